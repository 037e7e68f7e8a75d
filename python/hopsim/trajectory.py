"""MD trajectories from hopsim's H5MD file (io/md/H5mdWriter.cpp): ``particles/all/{position,velocity,id}`` and
``particles/all/box/edges``, each a time series of ``step``, ``time`` and ``value`` with one row per frame, and
``observables/<name>`` series of scalars."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

__all__ = ["Frame", "Trajectory"]


@dataclass(frozen=True)
class Frame:
    """One frame: ``position`` and ``velocity`` (N, 3), ``id`` (N,), ``box`` edge lengths (3,) of the periodic
    box."""

    step: int
    time: float
    position: np.ndarray
    velocity: np.ndarray
    id: np.ndarray
    box: np.ndarray


class Trajectory:
    """An H5MD trajectory file. Frames are read on demand, one at a time; a negative index counts from the end.

    ``len(t)`` is the number of frames, ``t.steps`` and ``t.times`` their steps and times, ``t[i]`` a Frame,
    ``t.position(i)`` one array. The file is opened for each read, so a Trajectory holds no HDF5 handle.
    """

    _ALL = "particles/all"

    def __init__(self, path):
        import h5py

        self.path = os.fspath(path)
        with h5py.File(self.path, "r") as f:
            if self._ALL + "/position/value" not in f:
                raise ValueError(f"{self.path}: not an H5MD trajectory (no {self._ALL}/position)")
            self.steps = f[self._ALL + "/position/step"][()].astype(np.int64)
            self.times = f[self._ALL + "/position/time"][()].astype(np.float64)
            self.atoms = int(f[self._ALL + "/position/value"].shape[1])

    def __len__(self):
        return len(self.steps)

    def _index(self, i):
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"frame {i} of a trajectory of {n} frames")
        return i % n

    def _read(self, group, i):
        import h5py

        with h5py.File(self.path, "r") as f:
            return f[f"{self._ALL}/{group}/value"][self._index(i)]

    def position(self, i: int = -1) -> np.ndarray:
        """Positions (N, 3) of frame i, in the order of ``id(i)`` (wrapped into the periodic box)."""
        return self._read("position", i)

    def velocity(self, i: int = -1) -> np.ndarray:
        return self._read("velocity", i)

    def id(self, i: int = -1) -> np.ndarray:
        """Particle ids (N,) of frame i: row k of position and velocity is particle id[k]."""
        return self._read("id", i)

    def box(self, i: int = -1) -> np.ndarray:
        """Box edge lengths (x, y, z) at frame i."""
        return self._read("box/edges", i)

    def __getitem__(self, i: int) -> Frame:
        import h5py

        k = self._index(i)
        with h5py.File(self.path, "r") as f:
            value = lambda g: f[f"{self._ALL}/{g}/value"][k]  # noqa: E731
            return Frame(int(self.steps[k]), float(self.times[k]), value("position"), value("velocity"),
                         value("id"), value("box/edges"))

    def __iter__(self):
        for k in range(len(self)):
            yield self[k]

    def observables(self):
        """The file's ``observables/<name>`` series as a pandas DataFrame indexed by step (empty when none)."""
        import h5py
        import pandas as pd

        columns = {}
        with h5py.File(self.path, "r") as f:
            if "observables" in f:
                for name, g in f["observables"].items():
                    columns[name] = pd.Series(g["value"][()], index=g["step"][()].astype(np.int64))
        frame = pd.DataFrame(columns)
        frame.index.name = "step"
        return frame
