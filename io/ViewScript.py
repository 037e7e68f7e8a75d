"""Shows the fields of a hopsim lattice Boltzmann run in ParaView; hopsim writes this script into the run's output.

    pvpython view.py                     a window on the last output step (mouse to turn, q to quit)
    paraview --script=view.py            the same picture in the ParaView application
    pvpython view.py --png view.png      renders into a PNG file and exits, no window
    pvbatch view.py --png view.png       the same (Debian's and Ubuntu's paraview package has pvbatch, no pvpython)
    python3 view.py --png view.png       any python3 that imports paraview.simple (PYTHONPATH may have to name it)

Options: --step N (the output step to show, default the last), --time T (the step nearest T), --size WxH of the
PNG or window (default 1600x900), --array NAME (colour by another field), --slice-normal x|y|z (3-D: the mid-plane
shown), --streamlines (3-D: streamlines from a line through the box as well), --no-obstacles.
It colours by the speed (the velocity's magnitude), or by density when the run wrote no velocity; 3-D runs show a
mid-plane slice inside the box's outline. Solid cells (obstacles) are grey where the run wrote `flags`.
ParaView builds that render through X (Debian's, Ubuntu's) need a display also for --png; on a machine without one:
    xvfb-run -a -s "-screen 0 1920x1080x24 -noreset" pvbatch view.py --png view.png
(-noreset: ParaView opens the display twice in a row, and a server resetting after the first drops the second.)
"""

import argparse
import json
import math
import os
import sys

# What hopsim knew when it wrote this file: the case's dimensions and cells, the fields and series files it writes,
# the plane a 3-D view cuts. Filled in by hopsim (io/ViewScript.cpp); the template in hopsim's sources holds a
# 2-D example.
CASE = json.loads(r'''
{
  "case": "example.yaml",
  "dimensions": 2,
  "cells": [64, 32, 1],
  "fields": ["density", "velocity", "flags"],
  "series": ["fields.xmf"],
  "slice_normal": "z",
  "written_in": "."
}
''')

AXES = "xyz"
# Solid cells: a grey, which no colour of the map comes near (unshaded in 2-D, as the fields are; shaded in 3-D).
SOLID_GREY = [0.62, 0.62, 0.62]
COLOUR_MAP = "Viridis (matplotlib)"


def parse_args(argv):
    p = argparse.ArgumentParser(prog="view.py", description=__doc__.split("\n")[0])
    p.add_argument("--png", metavar="FILE", help="render into FILE (PNG) and exit instead of opening a window")
    p.add_argument("--size", default="1600x900", metavar="WxH",
                   help="the PNG's (or the window's) size in pixels (default 1600x900)")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--step", type=int, help="the output step to show (default: the last one written)")
    when.add_argument("--time", type=float, help="show the output step nearest this time (= step)")
    p.add_argument("--array", help="the field to colour by (default: velocity's magnitude, else density)")
    p.add_argument("--slice-normal", choices=list(AXES), default=CASE.get("slice_normal", "z"),
                   help="3-D: the axis normal to the mid-plane slice (default %(default)s, chosen by hopsim from the "
                        "case's flow direction)")
    p.add_argument("--streamlines", action="store_true", help="3-D: add streamlines seeded along the box's diagonal")
    p.add_argument("--no-obstacles", action="store_true", help="do not draw the solid cells")
    args = p.parse_args(argv)
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
        if w < 16 or h < 16:
            raise ValueError
    except ValueError:
        p.error("--size takes WIDTHxHEIGHT in pixels, at least 16x16, e.g. 1600x900; not %s" % args.size)
    args.size = [w, h]
    return args


def embedded():
    """Whether the script runs inside an application (ParaView's --script, or exec() at a Python prompt) rather than
    as `pvpython view.py`: then sys.argv[0] is empty. paraview.fromGUI does not tell: ParaView 5.11's application
    leaves it False while it runs a --script."""
    import paraview
    return paraview.fromGUI or not (getattr(sys, "argv", None) or [""])[0]


def fail(message):
    """Ends with `message`: an error exit from the command line; inside the application, whose process SystemExit
    would end, an exception its Python shell shows."""
    if embedded():
        raise RuntimeError("view.py: " + message)
    sys.exit("view.py: " + message)


def output_dir():
    """The folder this script lies in: its series are beside it, wherever the folder was moved to. The ParaView
    application's --script may run it without __file__; then the folder hopsim wrote it into."""
    here = globals().get("__file__")
    return os.path.dirname(os.path.abspath(here)) if here else CASE["written_in"]


def open_series(folder):
    """A reader on the first series file that exists: fields.xmf through ParaView's XDMF 3 reader, else the VTK
    fields.pvd."""
    import paraview.simple as pv
    tried = []
    for name in CASE["series"]:
        path = os.path.join(folder, name)
        tried.append(path)
        if not os.path.isfile(path):
            continue
        if name.endswith(".xmf"):
            reader = pv.Xdmf3ReaderS(registrationName=name, FileName=[path])
        else:
            reader = pv.PVDReader(registrationName=name, FileName=path)
        return reader
    fail("no series to show: %s missing (has the run written its first output step?)" % " and ".join(tried))


def pick_time(reader, args):
    """The time to show (time = output step) and its step, from --step, --time or the last one."""
    times = getattr(reader, "TimestepValues", None)
    if times is None or times == []:
        return None, None  # no time information: one data set
    times = list(times) if hasattr(times, "__len__") else [times]  # one step comes as a number
    if args.step is not None:
        matching = [t for t in times if abs(t - args.step) < 0.5]
        if not matching:
            fail("no output step %d; the series has steps %s" % (args.step, ", ".join("%d" % t for t in times)))
        t = matching[0]
    elif args.time is not None:
        t = min(times, key=lambda v: abs(v - args.time))
    else:
        t = times[-1]
    return t, int(round(t))


def colour_array(reader, args):
    """(association, name, component) to colour by: velocity's magnitude, else density, else any cell array."""
    available = list(reader.CellData.keys())
    if args.array:
        if args.array not in available:
            fail("no field '%s' in the series (it has %s; the case writes %s)"
                 % (args.array, ", ".join(available) or "none", ", ".join(CASE["fields"])))
        name = args.array
    else:
        name = next((n for n in ("velocity", "density") if n in available), None)
        name = name or next((n for n in available if n != "flags"), None) or (available[0] if available else None)
    if name is None:
        fail("the series has no fields to colour by")
    components = reader.CellData[name].GetNumberOfComponents()
    return "CELLS", name, "Magnitude" if components > 1 else None


def threshold(source, name, lower, upper):
    """Cells of `source` whose `name` lies in [lower, upper] (the Threshold filter's properties as of ParaView 5.10,
    and before)."""
    import paraview.simple as pv
    t = pv.Threshold(Input=source)
    t.Scalars = ["CELLS", name]
    if hasattr(t, "LowerThreshold"):
        t.LowerThreshold, t.UpperThreshold = lower, upper
        if hasattr(t, "ThresholdMethod"):
            t.ThresholdMethod = "Between"
    else:
        t.ThresholdRange = [lower, upper]
    return t


def flat(display):
    """Shows a display's colours as they are in the map: ambient light only. The fields are planes facing the
    camera, where shading would only darken them unevenly; unshaded, every pixel's colour is a value on the colour
    bar."""
    display.Ambient, display.Diffuse, display.Specular = 1.0, 0.0, 0.0


def colour(display, what, lut):
    import paraview.simple as pv
    association, name, component = what
    pv.ColorBy(display, (association, name, component) if component else (association, name))
    display.LookupTable = lut
    flat(display)


def build(args):
    """The pipeline and the view: returns (view, step shown, what the colours show)."""
    import paraview.simple as pv
    folder = output_dir()
    reader = open_series(folder)
    t, step = pick_time(reader, args)
    if not embedded():
        # The animation's time is the one a window shows, and the one its time controls start from. Inside the
        # ParaView application (5.11) changing the scene from a --script hangs the application: it follows the
        # reader's steps itself, and the view below is given the time instead.
        scene = pv.GetAnimationScene()
        scene.UpdateAnimationUsingDataTimeSteps()
        if t is not None:
            scene.AnimationTime = t
    if t is not None:
        reader.UpdatePipeline(t)
    else:
        reader.UpdatePipeline()

    view = pv.GetActiveViewOrCreate("RenderView")
    if not embedded():  # the application sizes its views itself
        view.ViewSize = args.size
    if t is not None:
        view.ViewTime = t
    what = colour_array(reader, args)
    lut = pv.GetColorTransferFunction(what[1])
    lut.ApplyPreset(COLOUR_MAP, True)
    if what[2]:
        lut.VectorMode = "Magnitude"

    dims = int(CASE["dimensions"])
    # The box's extent in the files' coordinates: cells, or metres for a case with units (cells x spacing).
    cells = [float(n) * float(CASE.get("spacing", 1.0)) for n in CASE["cells"]]
    has_flags = "flags" in reader.CellData.keys() and not args.no_obstacles
    solid_max = reader.CellData["flags"].GetRange()[1] if has_flags else 0.0
    # Flags: 0 fluid, 1 solid, 2 + k obstacle k. Fluid cells carry the colours, solid ones the grey, each cell in
    # exactly one of the two, so that nothing is drawn twice in one place.
    fluid = threshold(reader, "flags", -0.5, 0.5) if solid_max > 0.5 else reader
    solids = threshold(reader, "flags", 0.5, 1e9) if solid_max > 0.5 else None

    shown = []
    if dims == 2:
        d = pv.Show(fluid, view)
        d.Representation = "Surface"
        colour(d, what, lut)
        shown.append(d)
    else:
        outline = pv.Show(reader, view)
        outline.Representation = "Outline"
        pv.ColorBy(outline, None)
        outline.AmbientColor = outline.DiffuseColor = [0.9, 0.9, 0.9]
        normal = [0.0, 0.0, 0.0]
        normal[AXES.index(args.slice_normal)] = 1.0
        cut = pv.Slice(registrationName="mid-plane", Input=fluid)
        cut.SliceType = "Plane"
        cut.SliceType.Origin = [n / 2.0 for n in cells]
        cut.SliceType.Normal = normal
        d = pv.Show(cut, view)
        colour(d, what, lut)
        shown.append(d)
        if args.streamlines:
            add_streamlines(reader, view, what, lut, cells)
    if solids is not None:
        s = pv.Show(solids, view)
        s.Representation = "Surface"
        pv.ColorBy(s, None)
        s.AmbientColor = s.DiffuseColor = SOLID_GREY
        if dims == 2:
            flat(s)
    # The map spans the shown step's values, not the first step's (often a fluid at rest).
    shown[0].RescaleTransferFunctionToDataRange(False, True)
    shown[0].SetScalarBarVisibility(view, True)
    bar = pv.GetScalarBar(lut, view)
    bar.Title = "%s magnitude" % what[1] if what[2] else what[1]
    if what[1] in CASE.get("units", {}):
        bar.Title += " [%s]" % CASE["units"][what[1]]
    bar.ComponentTitle = ""

    label = pv.Text(registrationName="label")
    label.Text = "%s%s" % (os.path.basename(CASE.get("case", "")), "   step %d" % step if step is not None else "")
    pv.Show(label, view).WindowLocation = "Upper Left Corner"
    place_camera(view, dims, cells, args)
    return view, step, bar.Title


def add_streamlines(reader, view, what, lut, cells):
    """Streamlines of the velocity from 60 seeds on the box's diagonal. Drawn only when they can be: a series
    without velocity gets a note instead of a failure."""
    import paraview.simple as pv
    if "velocity" not in reader.CellData.keys():
        print("view.py: no velocity field: no streamlines")
        return
    points = pv.CellDatatoPointData(Input=reader)
    lines = pv.StreamTracer(registrationName="streamlines", Input=points, SeedType="Line")
    lines.Vectors = ["POINTS", "velocity"]
    seed = lines.SeedType
    seed.Point1 = [0.1 * n for n in cells]
    seed.Point2 = [0.9 * n for n in cells]
    seed.Resolution = 60
    lines.MaximumStreamlineLength = 4.0 * max(cells)
    d = pv.Show(lines, view)
    pv.ColorBy(d, ("POINTS", "velocity", "Magnitude"))
    d.LookupTable = lut
    d.LineWidth = 2.0


def place_camera(view, dims, cells, args):
    """2-D: straight down the z axis, the domain filling the picture. 3-D: the slice seen at an angle from its
    normal's side, z up (y when the slice is normal to z)."""
    import paraview.simple as pv
    centre = [n / 2.0 for n in cells]
    width, height = view.ViewSize
    if dims == 2:
        view.InteractionMode = "2D"
        view.CameraParallelProjection = 1
        # The domain between 3% and 81% of the picture's width (the colour bar is to its right) and on 86% of its
        # height (the label is above it), whichever of its sides is the tighter fit: half the height shown is the
        # parallel scale.
        scale = 0.5 * max(cells[1] / 0.86, cells[0] / 0.78 * height / width)
        shown_width = 2.0 * scale * width / height
        centre[0] += 0.08 * shown_width  # the domain's centre at 0.42 of the width
        view.CameraParallelScale = scale
        view.CameraPosition = [centre[0], centre[1], 10.0 * max(cells)]
        view.CameraFocalPoint = [centre[0], centre[1], 0.5]
        view.CameraViewUp = [0.0, 1.0, 0.0]
        view.OrientationAxesVisibility = 0
        return
    n = AXES.index(args.slice_normal)
    up = 2 if n != 2 else 1
    side = 3 - n - up
    direction = [0.0, 0.0, 0.0]
    direction[n], direction[side], direction[up] = 1.0, -0.45, 0.35
    distance = 3.0 * math.sqrt(sum(c * c for c in cells))
    view.CameraFocalPoint = centre
    view.CameraPosition = [centre[a] + distance * direction[a] for a in range(3)]
    up_vector = [0.0, 0.0, 0.0]
    up_vector[up] = 1.0
    view.CameraViewUp = up_vector
    pv.ResetCamera(view)


def main(argv):
    args = parse_args(argv)
    import paraview.simple as pv
    pv._DisableFirstRenderCameraReset()  # keep place_camera's camera at the first render
    view, step, coloured = build(args)
    if args.png:
        pv.SaveScreenshot(args.png, view, ImageResolution=args.size, TransparentBackground=0)
        print("view.py: %s (%dx%d, step %s, coloured by %s)" % (args.png, args.size[0], args.size[1], step, coloured))
        # Deleted here rather than at exit: pvbatch 5.11 under Xvfb otherwise ends with a GLXBadContext X error,
        # and exit code 1, as it tears the render window down after the interpreter.
        pv.Delete(view)
        return
    pv.Render(view)
    # The ParaView application shows the view itself, and a Python prompt keeps it after the script; run as a
    # script, pvpython would close the window at its end.
    if not embedded() and not sys.flags.interactive:
        pv.Interact(view)


if __name__ == "__main__":
    # No sys.exit() at the end: inside the ParaView application it would end the application.
    main(sys.argv[1:] if not embedded() else [])
