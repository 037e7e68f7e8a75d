"""PNG plots of a run's history, written next to its data, and their paths printed one per line.

    python -m hopsim.plot OUTDIR [--if-available] [--quiet]
    hopsim-plot OUTDIR
    hopsim plot OUTDIR          (the hopsim binary runs this module)

Draws whichever series the run wrote: observables.png (mass, kinetic energy, maximum speed, enstrophy and
dissipation rate over steps, from observables.csv), forces.png (cd and cl over steps, one line per obstacle, from forces.csv) and thermo.png
(temperature, potential and total energy per particle, pressure, from thermo.csv). Series still growing
(NAME.part) are drawn as far as they go.

Exit codes: 0 plots written; 1 matplotlib (or pandas) is not installed, or OUTDIR holds no series to draw;
2 OUTDIR is not a folder or the command line is wrong. With --if-available (the end of a run), a missing
matplotlib or an empty folder is a one-line note on stderr and exit 0: the plots are an extra, not the result.
"""

from __future__ import annotations

import argparse
import os
import sys

INSTALL_HINT = ("install matplotlib (apt-get install python3-matplotlib, or pip install 'hopsim[plot]'; "
                "HOPSIM_PYTHON names the interpreter hopsim uses)")

OBSERVABLES = [("mass", "mass"), ("kinetic_energy", "kinetic energy"), ("max_speed", "max speed"),
               ("enstrophy", "enstrophy"), ("dissipation_rate", "dissipation rate -dE/dt")]
FORCES = [("cd", "drag coefficient $c_d$"), ("cl", "lift coefficient $c_l$")]
THERMO = [("temp", "temperature T"), ("pe", "potential energy / atom"), ("etotal", "total energy / atom"),
          ("press", "pressure P")]


def _save(fig, path):
    """Writes the figure under a temporary name and renames it, as hopsim writes every file."""
    tmp = path + ".tmp%d.png" % os.getpid()
    try:
        fig.savefig(tmp, dpi=110)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _panels(plt, frame, x, columns, title):
    """One figure with a panel per column of `frame` over `x`; columns missing from the frame are left out."""
    present = [(c, label) for c, label in columns if c in frame.columns]
    fig, axes = plt.subplots(len(present), 1, figsize=(7, 2.1 * len(present) + 0.6), sharex=True, squeeze=False)
    for ax, (c, label) in zip(axes[:, 0], present):
        ax.plot(frame[x], frame[c], lw=1.2)
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        ax.ticklabel_format(axis="y", useOffset=False, style="sci", scilimits=(-3, 4))
    axes[-1, 0].set_xlabel(x)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_observables(plt, run, title):
    frame = run.observables()
    if frame.empty:
        return None
    return _panels(plt, frame, "step", OBSERVABLES, title + ": observables")


def plot_forces(plt, run, title):
    frame = run.forces()
    if frame.empty:
        return None
    fig, axes = plt.subplots(len(FORCES), 1, figsize=(7, 5), sharex=True, squeeze=False)
    for ax, (c, label) in zip(axes[:, 0], FORCES):
        for name, rows in frame.groupby("obstacle", sort=False):
            ax.plot(rows["step"], rows[c], lw=1.2, label=str(name))
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    axes[0, 0].legend(loc="best", fontsize="small")
    axes[-1, 0].set_xlabel("step")
    fig.suptitle(title + ": obstacle forces")
    fig.tight_layout()
    return fig


def plot_thermo(plt, run, title):
    frame = run.thermo()
    if frame.empty:
        return None
    return _panels(plt, frame, "step", THERMO, title + ": thermo")


PLOTS = [("observables.csv", "observables.png", plot_observables), ("forces.csv", "forces.png", plot_forces),
         ("thermo.csv", "thermo.png", plot_thermo)]


def series_in(directory):
    """The CSV series of PLOTS that `directory` holds (finished, or NAME.part of a run still going)."""
    return [csv for csv, _, _ in PLOTS
            if os.path.exists(os.path.join(directory, csv)) or os.path.exists(os.path.join(directory, csv + ".part"))]


def plot_run(directory, quiet=False):
    """Draws every series the run in `directory` wrote; returns the paths of the PNGs written. Needs matplotlib."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    from .run import Run

    run = Run(directory)
    title = os.path.basename(os.path.normpath(os.path.abspath(directory)))
    written = []
    present = series_in(directory)
    for csv, png, draw in PLOTS:
        if csv not in present:
            continue
        fig = draw(plt, run, title)
        if fig is None:
            continue
        path = run.path(png)
        _save(fig, path)
        plt.close(fig)
        written.append(path)
    return written


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="hopsim-plot", description=__doc__.split("\n")[0])
    p.add_argument("outdir", help="a hopsim output folder (output.dir of the case)")
    p.add_argument("--if-available", action="store_true",
                   help="missing matplotlib or nothing to draw: a one-line note and exit 0 (the end of a run)")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")
    args = p.parse_args(argv)
    prog = "hopsim plot"
    if not os.path.isdir(args.outdir):
        print(f"{prog}: {args.outdir}: no such output folder", file=sys.stderr)
        return 2
    if not series_in(args.outdir):
        print(f"{prog}: {args.outdir} holds no observables.csv, forces.csv or thermo.csv to draw", file=sys.stderr)
        return 0 if args.if_available else 1
    try:
        import matplotlib  # noqa: F401
        import pandas  # noqa: F401
    except ImportError as e:
        print(f"{prog}: no plots: {e.name} is not installed for {sys.executable}; {INSTALL_HINT}", file=sys.stderr)
        return 0 if args.if_available else 1
    written = plot_run(args.outdir, args.quiet)
    if not args.quiet:
        for path in written:
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
