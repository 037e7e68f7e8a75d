"""LBM grid fields from hopsim's HDF5 + XDMF series (io/FieldWriter.h), in every layout hopsim writes.

A series is ``<base>.xmf`` (``fields.xmf``) plus, per output step, either one file of the whole grid,
``fields_<step, 9 digits>.h5`` (one rank, or many writing it collectively through parallel HDF5), or one file per
rank, ``fields_<step>/r<rank, 5 digits>.h5``, each holding its block of cells with the attributes ``first`` (the
block's first cell, x y z) and ``grid_cells`` (the whole grid's cells, x y z). Datasets are stored slowest axis
first, ``[z, y, x]`` (x fastest), with a trailing axis of 3 for vectors; this module keeps that order.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Grid", "FieldSeries"]

_STEP_FILE = re.compile(r"^(?P<base>.+)_(?P<step>\d{9})\.h5$")
_STEP_DIR = re.compile(r"^(?P<base>.+)_(?P<step>\d{9})$")


@dataclass(frozen=True)
class Grid:
    """The cell-centred grid of a series.

    ``cells`` is (nx, ny, nz) with nz = 1 for 2-D cases; ``origin`` (x, y, z) is the corner of cell (0, 0, 0) and
    ``spacing`` the cell size, so cell (i, j, k) covers [origin + i h, origin + (i + 1) h) along each axis.
    ``shape`` is the array shape of a scalar field, ``(nz, ny, nx)``.
    """

    cells: tuple
    origin: tuple = (0.0, 0.0, 0.0)
    spacing: float = 1.0

    @property
    def dimensions(self) -> int:
        """2 when the grid has one cell along z, else 3."""
        return 2 if self.cells[2] == 1 else 3

    @property
    def shape(self) -> tuple:
        return (self.cells[2], self.cells[1], self.cells[0])

    def centres(self, axis: int) -> np.ndarray:
        """Cell-centre coordinates along axis 0 (x), 1 (y) or 2 (z): origin + (i + 0.5) * spacing."""
        return self.origin[axis] + (np.arange(self.cells[axis]) + 0.5) * self.spacing

    @property
    def x(self) -> np.ndarray:
        return self.centres(0)

    @property
    def y(self) -> np.ndarray:
        return self.centres(1)

    @property
    def z(self) -> np.ndarray:
        return self.centres(2)

    def mesh(self):
        """(Z, Y, X) coordinate arrays of every cell centre, each of ``shape`` (numpy.meshgrid, 'ij' order)."""
        return tuple(np.meshgrid(self.z, self.y, self.x, indexing="ij"))


@dataclass
class _Step:
    step: int
    time: float
    files: list                              # paths relative to the series' folder, one per block
    origins: list = field(default_factory=list)   # each block's origin (x, y, z) from the .xmf, when listed there
    fields: dict = field(default_factory=dict)    # name -> components


def _floats(text):
    return [float(v) for v in (text or "").split()]


class FieldSeries:
    """The field series ``<base>.xmf`` in an output folder: its steps, grid and fields.

    The .xmf lists only steps whose files are complete, so it is the index; a folder without it (a series file
    lost or not yet written) is read from the step files' names, with the grid's origin taken as 0 and spacing 1.
    """

    def __init__(self, directory, base: str = "fields"):
        self.directory = os.fspath(directory)
        self.base = base
        self._steps: dict[int, _Step] = {}
        self._grid: Grid | None = None
        xmf = os.path.join(self.directory, base + ".xmf")
        if os.path.exists(xmf):
            self._read_xmf(xmf)
        else:
            self._scan()

    # -- index ------------------------------------------------------------------------------------------------

    def _read_xmf(self, path):
        root = ET.parse(path).getroot()
        temporal = None
        for g in root.iter("Grid"):
            if g.get("CollectionType") == "Temporal":
                temporal = g
                break
        if temporal is None:
            raise ValueError(f"{path}: no temporal collection of grids")
        origin_spacing = None
        for entry in temporal.findall("Grid"):
            name = entry.get("Name", "")
            m = re.match(r"step_(\d+)$", name)
            if not m:
                continue
            step = int(m.group(1))
            t = entry.find("Time")
            time = float(t.get("Value")) if t is not None else float(step)
            uniforms = [entry] if entry.get("GridType") != "Collection" else entry.findall("Grid")
            s = _Step(step, time, [])
            for u in uniforms:
                files = []
                for attr in u.findall("Attribute"):
                    item = attr.find("DataItem")
                    s.fields.setdefault(attr.get("Name"), 3 if attr.get("AttributeType") == "Vector" else 1)
                    files.append(item.text.strip().split(":")[0])
                if files:
                    s.files.append(files[0])
                geometry = {d.get("Name"): _floats(d.text) for d in u.iter("DataItem") if d.get("Format") == "XML"}
                if "Origin" in geometry:
                    zyx = geometry["Origin"]
                    s.origins.append((zyx[2], zyx[1], zyx[0]))
                    if origin_spacing is None and "Spacing" in geometry:
                        origin_spacing = geometry["Spacing"][0]
            self._steps[step] = s
        self._spacing = origin_spacing if origin_spacing is not None else 1.0

    def _scan(self):
        self._spacing = 1.0
        if not os.path.isdir(self.directory):
            raise FileNotFoundError(f"{self.directory}: no such folder")
        for name in sorted(os.listdir(self.directory)):
            m = _STEP_FILE.match(name)
            if m and m.group("base") == self.base:
                step = int(m.group("step"))
                self._steps[step] = _Step(step, float(step), [name])
                continue
            m = _STEP_DIR.match(name)
            full = os.path.join(self.directory, name)
            if m and m.group("base") == self.base and os.path.isdir(full):
                pieces = sorted(p for p in os.listdir(full) if re.match(r"^r\d+\.h5$", p))
                if pieces:
                    step = int(m.group("step"))
                    self._steps[step] = _Step(step, float(step), [name + "/" + p for p in pieces])

    # -- public -----------------------------------------------------------------------------------------------

    @property
    def steps(self) -> list:
        """The output steps, ascending."""
        return sorted(self._steps)

    def time(self, step: int) -> float:
        return self._entry(step).time

    def names(self, step: int | None = None) -> list:
        """The fields written at a step (default: the last), e.g. ['density', 'velocity', 'flags']."""
        entry = self._entry(step)
        if not entry.fields:
            import h5py
            with h5py.File(os.path.join(self.directory, entry.files[0]), "r") as f:
                entry.fields = {k: (3 if f[k].ndim == 4 else 1) for k in f.keys()}
        return list(entry.fields)

    def pieces(self, step: int | None = None) -> list:
        """The HDF5 files holding a step, one per block (one file for the whole grid, or one per rank)."""
        return [os.path.join(self.directory, p) for p in self._entry(step).files]

    @property
    def grid(self) -> Grid:
        """The whole grid, read from the first step's file(s) and the .xmf's geometry."""
        if self._grid is None:
            self._grid = self._grid_of(self._entry(self.steps[0]))
        return self._grid

    def read(self, name: str, step: int | None = None) -> np.ndarray:
        """One field at one step (default: the last) as a numpy array indexed ``[z, y, x]`` (``[z, y, x, c]`` for a
        vector), of the grid's whole shape however many ranks wrote it, in the precision of the file (float32 for
        single-precision runs, float64 for double)."""
        import h5py

        entry = self._entry(step)
        if entry.fields and name not in entry.fields:
            raise KeyError(f"field '{name}' not written at step {entry.step}; written: {', '.join(entry.fields)}")
        grid = self.grid
        out = None
        covered = None
        for path in self.pieces(entry.step):
            with h5py.File(path, "r") as f:
                if name not in f:
                    raise KeyError(f"{path}: no dataset '{name}' (has {', '.join(f.keys())})")
                data = f[name][()]
                first, _ = self._block_of(f)
            if out is None:
                out = np.empty(grid.shape + data.shape[3:], dtype=data.dtype)
                covered = np.zeros(grid.shape, dtype=bool)
            z0, y0, x0 = first[2], first[1], first[0]
            nz, ny, nx = data.shape[:3]
            if z0 + nz > grid.shape[0] or y0 + ny > grid.shape[1] or x0 + nx > grid.shape[2]:
                raise ValueError(f"{path}: block at {first} of {nx}x{ny}x{nz} cells lies outside the grid "
                                 f"{grid.cells}")
            sl = (slice(z0, z0 + nz), slice(y0, y0 + ny), slice(x0, x0 + nx))
            if covered[sl].any():
                raise ValueError(f"{path}: block at {first} overlaps another block of step {entry.step}")
            out[sl] = data
            covered[sl] = True
        if out is None:
            raise ValueError(f"step {entry.step} lists no files")
        if not covered.all():
            raise ValueError(f"step {entry.step}: the blocks leave {int((~covered).sum())} cells of the grid unwritten")
        return out

    # -- helpers ----------------------------------------------------------------------------------------------

    def _entry(self, step):
        if not self._steps:
            raise FileNotFoundError(f"{self.directory}: no field output ({self.base}.xmf or {self.base}_<step>.h5)")
        if step is None:
            step = max(self._steps)
        try:
            return self._steps[int(step)]
        except KeyError:
            raise KeyError(f"step {step} not in the series; steps: {self.steps}") from None

    @staticmethod
    def _block_of(f):
        """(first cell x y z, whole grid cells x y z or None) of an open step file."""
        if "first" in f.attrs:
            return tuple(int(v) for v in f.attrs["first"]), tuple(int(v) for v in f.attrs["grid_cells"])
        return (0, 0, 0), None

    def _grid_of(self, entry):
        """The whole grid, from the step's first file: a whole-grid file's dataset shape, or a piece's grid_cells."""
        import h5py

        with h5py.File(self.pieces(entry.step)[0], "r") as f:
            first, cells = self._block_of(f)
            if cells is None:
                shape = next(iter(f.values())).shape
                cells = (shape[2], shape[1], shape[0])
        origin = (0.0, 0.0, 0.0)
        if entry.origins:
            # The .xmf places each block by its first cell: the grid's origin is that less first * spacing.
            origin = tuple(entry.origins[0][a] - first[a] * self._spacing for a in range(3))
        return Grid(tuple(int(c) for c in cells), tuple(float(v) for v in origin), float(self._spacing))
