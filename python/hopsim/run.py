"""One hopsim output folder (``output.dir`` of a case, or ``hopsim run --output DIR``) and everything in it."""

from __future__ import annotations

import builtins
import io
import json
import os

from .fields import FieldSeries, Grid
from .trajectory import Trajectory

__all__ = ["Run", "open", "read_json", "read_bench"]


def read_json(path) -> dict:
    """A JSON document (run.json, a bench result of ``hopsim bench --json`` or ``--suite``) as a dict."""
    with builtins.open(path, "r", encoding="utf-8") as f:
        return json.load(f)


def read_bench(path) -> dict:
    """A bench result (``hopsim bench --json FILE``, ``hopsim bench --suite``) as a dict."""
    return read_json(path)


class Run:
    """The outputs of one run in ``directory``. Everything is read when asked for, so a Run of a run still going
    sees its newest steps; missing outputs raise FileNotFoundError naming the file.

    LBM: ``steps``, ``times``, ``grid``, ``field(name, step)``, ``fields``, ``observables()``, ``forces()``.
    MD: ``thermo()``, ``trajectory()``. Both: ``run_info()``.
    """

    def __init__(self, directory):
        self.directory = os.fspath(directory)
        if not os.path.isdir(self.directory):
            raise FileNotFoundError(f"{self.directory}: no such output folder")
        self._series = None

    def __repr__(self):
        return f"hopsim.Run({self.directory!r})"

    def path(self, name: str) -> str:
        """The path of a file of the run."""
        return os.path.join(self.directory, name)

    # -- LBM fields -------------------------------------------------------------------------------------------

    @property
    def series(self) -> FieldSeries:
        """The field series (fields.xmf), read once; ``refresh()`` reads it again."""
        if self._series is None:
            self._series = FieldSeries(self.directory)
        return self._series

    def refresh(self):
        """Forget what was read of the field series, so that steps written since show."""
        self._series = None

    @property
    def steps(self) -> list:
        """The field output steps, ascending (empty when the run wrote no fields)."""
        return self.series.steps

    @property
    def times(self) -> list:
        return [self.series.time(s) for s in self.steps]

    @property
    def grid(self) -> Grid:
        """The grid: ``cells`` (nx, ny, nz), ``origin``, ``spacing``, cell centres ``x``, ``y``, ``z``."""
        return self.series.grid

    @property
    def fields(self) -> list:
        """The names of the fields written at the last step."""
        return self.series.names()

    def field(self, name: str, step: int | None = None):
        """Field ``name`` ('density', 'velocity', 'flags') at ``step`` (default: the last output step) as a numpy
        array indexed ``[z, y, x]``, with a trailing component axis for vectors (``[z, y, x, 3]``); 2-D cases have
        nz = 1 (``a[0]`` is the ``[y, x]`` plane). Cell centres are ``grid.x``, ``grid.y``, ``grid.z``. The dtype is
        the file's (float32 for single precision). A run on several ranks is assembled into the whole grid."""
        return self.series.read(name, step)

    # -- tables -----------------------------------------------------------------------------------------------

    def _csv(self, name):
        import pandas as pd

        path = self.path(name)
        if os.path.exists(path):
            return pd.read_csv(path)
        part = path + ".part"
        if os.path.exists(part):
            # A run still going (or killed): its rows so far, less a last row cut mid-write (no newline at the
            # end). Not dropna(): observables.csv has nan cells of its own (the first row's dissipation rate).
            with open(part) as f:
                text = f.read()
            frame = pd.read_csv(io.StringIO(text))
            if text and not text.endswith("\n"):
                frame = frame.iloc[:-1]
            return frame.reset_index(drop=True)
        raise FileNotFoundError(f"{path}: not written by this run")

    def observables(self):
        """observables.csv (LBM): columns step, mass, kinetic_energy, max_speed, enstrophy, dissipation_rate (with
        units also time, after step). The first row's dissipation_rate is nan, and the enstrophy of a decomposed
        run's (README, Outputs)."""
        return self._csv("observables.csv")

    def forces(self):
        """forces.csv (LBM with output.forces): columns step, obstacle, fx, fy, fz, cd, cl; one row per obstacle
        and step (``df[df.obstacle == 'cyl']``, or ``df.pivot(index='step', columns='obstacle', values='cd')``)."""
        return self._csv("forces.csv")

    def thermo(self):
        """thermo.csv (MD): columns step, time, temp, pe, ke, etotal, press (LAMMPS conventions)."""
        return self._csv("thermo.csv")

    # -- MD ---------------------------------------------------------------------------------------------------

    def trajectory(self) -> Trajectory:
        """The H5MD trajectory (trajectory.h5; trajectory.h5.part while the run is going)."""
        path = self.path("trajectory.h5")
        if not os.path.exists(path) and os.path.exists(path + ".part"):
            path += ".part"
        if not os.path.exists(path):
            raise FileNotFoundError(f"{self.path('trajectory.h5')}: not written by this run")
        return Trajectory(path)

    # -- run.json ---------------------------------------------------------------------------------------------

    def run_info(self) -> dict:
        """run.json: the effective case, build, host, device plan and timings."""
        return read_json(self.path("run.json"))


def open(directory) -> Run:  # noqa: A001 - hopsim.open(outdir) reads like the builtin on purpose
    """The outputs of the run in ``directory``: ``hopsim.open('out/cylinder2d').field('velocity')``."""
    return Run(directory)
