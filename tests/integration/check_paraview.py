"""Checks that ParaView's own readers open a hopsim output file and find what the run wrote.

Usage (headless: the script reads data and renders nothing, so it needs no display, X server or GPU):
    pvpython check_paraview.py out/fields.xmf --arrays density,velocity --steps 3 --cells 64 32 1
    pvpython check_paraview.py out/fields.pvd --range density 0.9 1.1 --time 200 --value density:0:0:1.0
    pvpython check_paraview.py out/particles.xmf --points 32000 --arrays velocity
    pvpython check_paraview.py out_4ranks/fields.xmf --arrays density,velocity --same-as out_1rank/fields.xmf
Debian 12's `paraview` package (5.11) ships `pvbatch` but no `pvpython`; `pvbatch check_paraview.py ...` works the
same way once `paraview.simple` is importable: package python3-paraview, or PYTHONPATH set to the dist-packages
folder of an unpacked python3-paraview (that package conflicts with python3-vtk9, which libvtk9-dev needs).
pvpython and pvbatch take every argument that looks like "-123" as one of their own options and drop it, so give
bounds and values that are negative in the one-word forms: --range velocity:-0.1:0.1, --value velocity:7:0:-0.02.
Rendering (not done here) needs an X server on Debian's build, which has no EGL/OSMesa and ignores
--force-offscreen-rendering: use `xvfb-run -a -s "-screen 0 1280x1024x24 -noreset" pvbatch ...`
for screenshots.

Opens FILE with paraview.simple.OpenDataFile (.xmf -> ParaView's XDMF reader, .pvd -> its PVD reader), then at every
time step checks that each listed array exists with one tuple per cell (grids) or per point (particles, --points),
and optionally that an array's values lie in a range. --same-as OTHER opens OTHER too and requires the same time
steps and, at each, the same number of cells and the same tuples, components and value range (exactly) of every
listed array: a decomposed run's output (many blocks) against a one-rank run's (one).
Prints what it found; exits 1 with a message on any mismatch.
"""

import argparse
import math
import os
import sys
import xml.etree.ElementTree as ET


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("file")
    p.add_argument("--arrays", default="", help="comma-separated array names that must exist")
    p.add_argument("--steps", type=int, help="expected number of time steps")
    p.add_argument("--cells", type=int, nargs=3, metavar=("NX", "NY", "NZ"), help="expected cells (grid files)")
    p.add_argument("--points", type=int, help="expected points: a particle file, arrays are point data")
    p.add_argument("--range", nargs="+", action="append", default=[], metavar="ARRAY MIN MAX",
                   help="all values (every component) of ARRAY within [MIN, MAX]; repeatable; "
                        "write ARRAY:MIN:MAX when a bound is negative")
    p.add_argument("--value", action="append", default=[], metavar="ARRAY:ID:COMPONENT:VALUE",
                   help="the value of one cell (or point) by id, x fastest: catches swapped axes; repeatable")
    p.add_argument("--time", type=float, help="check --range only at this time (default: at every time step)")
    p.add_argument("--same-as", metavar="OTHER",
                   help="another output file that must show the same steps, cell counts and array ranges")
    p.add_argument("--reader", choices=["auto", "xdmf2"], default="auto",
                   help="xdmf2: ParaView's 'XDMF Reader' (the XDMF 2 reader); it reads the hyperslabs into H5MD "
                        "time series that the Xdmf3 readers of ParaView 5.11 return empty for steps after the first")
    args = p.parse_args()
    ranges = []
    for r in args.range:
        parts = r[0].split(":") if len(r) == 1 else r
        if len(parts) != 3:
            p.error("--range takes ARRAY MIN MAX or ARRAY:MIN:MAX, not %s" % " ".join(r))
        try:
            ranges.append((parts[0], float(parts[1]), float(parts[2])))
        except ValueError:
            p.error("--range bounds must be numbers: %s" % " ".join(r))
    args.range = ranges
    values = []
    for v in args.value:
        parts = v.split(":")
        try:
            values.append((parts[0], int(parts[1]), int(parts[2]), float(parts[3])))
        except (IndexError, ValueError):
            p.error("--value takes ARRAY:ID:COMPONENT:VALUE, not %s" % v)
    args.value = values
    return args


def leaves(data):
    """The data sets inside data: itself, or the leaves of a composite (multiblock) data set."""
    if not data.IsA("vtkCompositeDataSet"):
        return [data]
    out = []
    it = data.NewIterator()
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        out.append(it.GetCurrentDataObject())
        it.GoToNextItem()
    return out


def array_summary(blocks, name, point_data):
    """(tuples, components, min, max) of an array over all blocks, or None when a block lacks it."""
    tuples, comps, lo, hi = 0, None, math.inf, -math.inf
    for b in blocks:
        a = (b.GetPointData() if point_data else b.GetCellData()).GetArray(name)
        if a is None:
            return None
        tuples += a.GetNumberOfTuples()
        comps = a.GetNumberOfComponents()
        for c in range(comps):
            r = a.GetRange(c)
            lo, hi = min(lo, r[0]), max(hi, r[1])
    return tuples, comps, lo, hi


def referenced_files(path):
    """Data files a series file points at; a missing one makes ParaView's XDMF reader abort rather than report."""
    base = os.path.dirname(os.path.abspath(path))
    root = ET.parse(path).getroot()
    if path.endswith(".pvd"):
        names = [d.get("file") for d in root.iter("DataSet")]
    else:
        names = [(d.text or "").strip().split(":")[0] for d in root.iter("DataItem") if d.get("Format") == "HDF"]
    return sorted({os.path.join(base, n) for n in names if n})


def open_reader(path, kind):
    """ParaView's reader for path (kind 'xdmf2': the XDMF 2 reader), or None with a message."""
    from paraview.simple import OpenDataFile
    try:
        if kind == "xdmf2":
            from paraview.simple import XDMFReader
            return XDMFReader(FileNames=[path])
        return OpenDataFile(path)
    except RuntimeError as e:
        print(e)
        return None


def summary_at(reader, t, names, particles):
    """(blocks, cells or points, {array: (tuples, components, min, max) or None}) at time t."""
    from paraview import servermanager
    if t is None:
        reader.UpdatePipeline()
    else:
        reader.UpdatePipeline(t)
    blocks = [b for b in leaves(servermanager.Fetch(reader)) if b is not None]
    count = sum(b.GetNumberOfPoints() if particles else b.GetNumberOfCells() for b in blocks)
    return blocks, count, {name: array_summary(blocks, name, particles) for name in names}


def at_checked_time(t, wanted):
    """Whether --range and --value apply at time t (all times when --time is not given)."""
    return wanted is None or t is None or abs(t - wanted) <= 1e-9 * max(1.0, abs(wanted))


def cell_values(blocks, names):
    """{cell centre: values of the arrays} over image blocks, None when a block is not image data: shows where each
    block's cells lie, so blocks that are complete but misplaced differ."""
    out = {}
    for b in blocks:
        if not b.IsA("vtkImageData"):
            return None
        ext, origin, spacing = b.GetExtent(), b.GetOrigin(), b.GetSpacing()
        n = [max(ext[2 * a + 1] - ext[2 * a], 1) for a in range(3)]
        arrays = [b.GetCellData().GetArray(name) for name in names]
        if any(a is None for a in arrays):
            return None
        for cid in range(b.GetNumberOfCells()):
            ijk = (cid % n[0], (cid // n[0]) % n[1], cid // (n[0] * n[1]))
            centre = tuple(round(origin[a] + (ext[2 * a] + ijk[a] + 0.5) * spacing[a], 9) for a in range(3))
            out[centre] = tuple(a.GetComponent(cid, c) for a in arrays for c in range(a.GetNumberOfComponents()))
    return out


def compare_with(other, kind, times, names, particles, counts, summaries, cells_by_time):
    """Errors where OTHER differs from what was found: time steps, cell counts, array sizes and ranges, and (image
    data) each cell's values by its centre."""
    if not os.path.isfile(other):
        return ["--same-as: %s does not exist" % other]
    reader = open_reader(other, kind)
    if reader is None:
        return ["--same-as: ParaView found no reader for %s" % other]
    other_times = list(reader.TimestepValues) if hasattr(reader, "TimestepValues") else []
    if other_times != times:
        return ["time steps %s, but %s has %s" % (times, other, other_times)]
    errors = []
    compared_cells = True
    for t in (times or [None]):
        blocks, count, summary = summary_at(reader, t, names, particles)
        theirs = cell_values(blocks, names) if not particles else None
        mine = cells_by_time.get(t)
        compared_cells = compared_cells and theirs is not None and mine is not None
        if count != counts[t]:
            errors.append("time %s: %d cells, but %s has %d" % (t, counts[t], other, count))
        for name in names:
            if summary[name] != summaries[t][name]:
                errors.append("time %s: '%s' is %s, but in %s %s" % (t, name, summaries[t][name], other, summary[name]))
        if theirs is not None and mine is not None and mine != theirs:
            errors.append("time %s: the cells' places or values differ from those in %s" % (t, other))
    if not errors:
        print("same steps, cell counts and array ranges%s as %s: ok"
              % (", and every cell's place and values" if compared_cells else "", other))
    return errors


def main():
    args = parse_args()
    errors = []
    if not os.path.isfile(args.file):
        print("FAIL: %s does not exist" % args.file)
        return 1
    if args.file.endswith((".xmf", ".xdmf", ".pvd")):
        try:
            missing = [f for f in referenced_files(args.file) if not os.path.isfile(f)]
        except ET.ParseError as e:
            print("FAIL: %s is not well-formed XML: %s" % (args.file, e))
            return 1
        if missing:
            print("FAIL: %s refers to missing files: %s" % (args.file, ", ".join(missing)))
            return 1
    reader = open_reader(args.file, args.reader)
    if reader is None:
        print("FAIL: ParaView found no reader for %s" % args.file)
        return 1
    print("%s: opened with %s" % (args.file, reader.GetXMLName()))

    times = list(reader.TimestepValues) if hasattr(reader, "TimestepValues") else []
    print("time steps: %d %s" % (len(times), times))
    if args.steps is not None and len(times) != args.steps:
        # A single step carries no time information at all for some readers.
        if not (args.steps == 1 and len(times) == 0):
            errors.append("expected %d time steps, found %d" % (args.steps, len(times)))

    names = [n for n in args.arrays.split(",") if n]
    particles = args.points is not None
    expected_count = args.points if particles else (
        args.cells[0] * args.cells[1] * args.cells[2] if args.cells else None)
    for name in [r[0] for r in args.range] + [v[0] for v in args.value]:
        if name not in names:
            names.append(name)

    summaries, counts, cells_by_time = {}, {}, {}
    for t in (times or [None]):
        blocks, count, summaries[t] = summary_at(reader, t, names, particles)
        counts[t] = count
        if args.same_as and not particles:
            cells_by_time[t] = cell_values(blocks, names)
        where = "time %s" % t
        if not blocks:
            errors.append("%s: the reader produced no data" % where)
            continue
        kind = "points" if particles else "cells"
        print("%s: %s, %d %s in %d block(s)" % (where, blocks[0].GetClassName(), count, kind, len(blocks)))
        if count == 0:
            errors.append("%s: no %s" % (where, kind))
        if expected_count is not None and count != expected_count:
            errors.append("%s: expected %d %s, found %d" % (where, expected_count, kind, count))
        if args.cells and blocks[0].IsA("vtkImageData"):
            dims = blocks[0].GetDimensions()
            want = tuple(n + 1 for n in args.cells)
            if len(blocks) == 1 and tuple(dims) != want:
                errors.append("%s: expected %s points per axis, found %s" % (where, want, tuple(dims)))
        for name in names:
            s = summaries[t][name]
            if s is None:
                errors.append("%s: no %s array '%s'" % (where, "point" if particles else "cell", name))
                continue
            tuples, comps, lo, hi = s
            print("  %s: %d tuples x %d components, values in [%.17g, %.17g]" % (name, tuples, comps, lo, hi))
            if tuples != count:
                errors.append("%s: array '%s' has %d tuples for %d %s" % (where, name, tuples, count, kind))
            for rname, rmin, rmax in args.range:
                if rname != name or not at_checked_time(t, args.time):
                    continue
                if lo < rmin or hi > rmax:
                    errors.append("%s: '%s' values [%.17g, %.17g] outside [%.10g, %.10g]"
                                  % (where, name, lo, hi, rmin, rmax))
                else:
                    print("  %s within [%.10g, %.10g]: ok" % (name, rmin, rmax))
            for vname, vid, vcomp, want in args.value:
                if vname != name or not at_checked_time(t, args.time):
                    continue
                if len(blocks) != 1:
                    errors.append("%s: --value needs a single data set, found %d blocks" % (where, len(blocks)))
                    continue
                a = (blocks[0].GetPointData() if particles else blocks[0].GetCellData()).GetArray(name)
                if vid >= a.GetNumberOfTuples() or vcomp >= a.GetNumberOfComponents():
                    errors.append("%s: '%s' has no tuple %d component %d" % (where, name, vid, vcomp))
                    continue
                got = a.GetComponent(vid, vcomp)
                if abs(got - want) > 1e-6 * max(1.0, abs(want)):
                    errors.append("%s: '%s'[%d][%d] is %.17g, expected %.17g" % (where, name, vid, vcomp, got, want))
                else:
                    print("  %s[%d][%d] = %.17g: ok" % (name, vid, vcomp, got))
    if args.time is not None and times and not any(at_checked_time(t, args.time) for t in times):
        errors.append("no time step at time %s" % args.time)

    if args.same_as:
        errors += compare_with(args.same_as, args.reader, times, names, particles, counts, summaries, cells_by_time)

    for e in errors:
        print("FAIL: %s" % e)
    if errors:
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
