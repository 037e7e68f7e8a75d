"""Checks that a PNG rendered by a run's view.py shows the fields: its size, and the colour map on enough of it.

Usage (pvbatch, pvpython or a python3 that imports paraview.simple; no display needed: nothing is rendered):
    pvbatch check_view_png.py view.png --size 800x400 --min-map 0.5 --min-levels 40 [--min-solid 0.002]

view.py draws the fields unshaded, so every pixel of them is a colour of the map (ParaView's "Viridis
(matplotlib)") and solid cells grey. The check counts the pixels within a few levels of the map's colours
(--min-map: their fraction of the image), how many of 64 equal parts of the map cover at least 1/2000 of the image
each (--min-levels: a field coloured by one value, or not at all, shows one or two; the colour bar shows every part,
on too few pixels to count), and the neutral grey pixels of solid cells (--min-solid: fraction).
Exits 1 with a message when the image falls short.
"""

import argparse
import sys

# view.py's map (io/ViewScript.py: COLOUR_MAP).
COLOUR_MAP = "Viridis (matplotlib)"
# A neutral grey: R, G and B within GREY_SPREAD levels of each other, between GREY_MIN and GREY_MAX. view.py's
# solids are 0.62 grey (158), darker where shaded.
GREY_SPREAD, GREY_MIN, GREY_MAX = 4, 40, 215
LEVELS = 64
# The share of the image a part of the map must cover to count: more than the colour bar gives each part.
LEVEL_SHARE = 1.0 / 2000
# Colour distance (max over R, G, B, in 8-bit levels) within which a pixel counts as a colour of the map: the PNG
# is 8 bits per channel and the map is sampled, so exact equality would miss most pixels.
TOLERANCE = 3


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("png")
    p.add_argument("--size", required=True, metavar="WxH")
    p.add_argument("--min-map", type=float, required=True, metavar="FRACTION")
    p.add_argument("--min-levels", type=int, required=True, metavar="N")
    p.add_argument("--min-solid", type=float, default=0.0, metavar="FRACTION")
    args = p.parse_args()
    args.size = tuple(int(v) for v in args.size.split("x"))
    return args


def read_png(path):
    """(width, height, pixels as an (n, 3) uint8 array)."""
    from vtkmodules.vtkIOImage import vtkPNGReader
    from vtkmodules.util.numpy_support import vtk_to_numpy
    r = vtkPNGReader()
    if not r.CanReadFile(path):
        sys.exit("FAIL: %s is not a PNG file" % path)
    r.SetFileName(path)
    r.Update()
    image = r.GetOutput()
    w, h, _ = image.GetDimensions()
    pixels = vtk_to_numpy(image.GetPointData().GetScalars())
    return w, h, pixels[:, :3]


def map_colours():
    """The colour map at LEVELS * 8 evenly spaced values, as 8-bit RGB, in order along the map."""
    import numpy as np
    import paraview.simple as pv
    lut = pv.GetColorTransferFunction("check_view_png")
    lut.ApplyPreset(COLOUR_MAP, True)
    lut.RescaleTransferFunction(0.0, 1.0)
    ctf = lut.GetClientSideObject()
    samples = LEVELS * 8
    colours = []
    for i in range(samples):
        rgb = [0.0, 0.0, 0.0]
        ctf.GetColor(i / (samples - 1), rgb)
        colours.append([round(255 * c) for c in rgb])
    return np.array(colours, dtype=np.int32)


def main():
    import numpy as np
    args = parse_args()
    w, h, pixels = read_png(args.png)
    errors = []
    if (w, h) != args.size:
        errors.append("the image is %dx%d, expected %dx%d" % (w, h, args.size[0], args.size[1]))
    total = float(len(pixels))
    colours, counts = np.unique(pixels.astype(np.int32), axis=0, return_counts=True)
    print("%s: %dx%d, %d distinct colours" % (args.png, w, h, len(colours)))

    samples = map_colours()
    # Each distinct colour against every sample of the map: its distance to the nearest and which sample that is.
    distance = np.abs(colours[:, None, :] - samples[None, :, :]).max(axis=2)
    nearest = distance.argmin(axis=1)
    on_map = distance.min(axis=1) <= TOLERANCE
    # The solid grey is not on the map (viridis has no grey), so it is never counted as a field colour.
    map_fraction = counts[on_map].sum() / total
    part = (nearest * LEVELS) // len(samples)
    per_part = np.bincount(part[on_map], weights=counts[on_map], minlength=LEVELS)
    levels = int((per_part >= LEVEL_SHARE * total).sum())
    # Solid cells: unshaded in 2-D (the one grey), shaded in 3-D (greys); neither the map nor the background (blue
    # grey), the white text nor the light grey outline is a neutral grey between these bounds.
    spread = colours.max(axis=1) - colours.min(axis=1)
    solid = (spread <= GREY_SPREAD) & (colours.min(axis=1) >= GREY_MIN) & (colours.max(axis=1) <= GREY_MAX)
    solid_fraction = counts[solid].sum() / total
    print("colour map on %.3f of the pixels (at least %.3f), %d of %d parts of the map (at least %d), solid grey on "
          "%.4f (at least %.4f)" % (map_fraction, args.min_map, levels, LEVELS, args.min_levels, solid_fraction,
                                    args.min_solid))
    if map_fraction < args.min_map:
        errors.append("the colour map covers %.3f of the image, less than %.3f" % (map_fraction, args.min_map))
    if levels < args.min_levels:
        errors.append("%d parts of the colour map appear, fewer than %d" % (levels, args.min_levels))
    if solid_fraction < args.min_solid:
        errors.append("solid grey covers %.4f of the image, less than %.4f" % (solid_fraction, args.min_solid))
    for e in errors:
        print("FAIL: %s" % e)
    if errors:
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
