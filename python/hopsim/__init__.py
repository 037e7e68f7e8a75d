"""Read hopsim's outputs into numpy and pandas.

    import hopsim
    run = hopsim.open("out/cylinder2d")
    u = run.field("velocity", run.steps[-1])      # numpy, [z, y, x, 3]; run.grid.x, .y, .z: cell centres
    run.observables().plot(x="step", y="mass")    # pandas DataFrame of observables.csv
    run.forces(); hopsim.open("out/lj_liquid").thermo(); .trajectory()[-1].position; run.run_info()

Fields come from the HDF5 + XDMF series whichever way the run wrote it (one rank, one file per step written
collectively, or one file per rank), assembled into the whole grid. ``python -m hopsim.plot OUTDIR`` (or
``hopsim-plot``, or ``hopsim plot``) draws the run's history as PNGs.
"""

from .fields import FieldSeries, Grid
from .run import Run, open, read_bench, read_json
from .trajectory import Frame, Trajectory

__version__ = "0.1.0"
__all__ = ["open", "Run", "Grid", "FieldSeries", "Trajectory", "Frame", "read_json", "read_bench"]
