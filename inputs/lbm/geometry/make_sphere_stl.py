#!/usr/bin/env python3
"""Writes sphere.stl, the surface that inputs/lbm/sphere_stl.yaml reads: a sphere of radius 1 about the origin, an
icosahedron whose faces are split in four `--subdivisions` times (default 4: 5,120 triangles) with the new vertices
pushed out onto the sphere. Binary STL, outward-facing triangles (counter-clockwise seen from outside).

Usage: python3 make_sphere_stl.py [--subdivisions N] [--output sphere.stl]
"""

import argparse
import math
import struct


def icosphere(subdivisions):
    t = (1 + math.sqrt(5)) / 2
    vertices = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t), (0, 1, -t),
                (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    vertices = [tuple(c / math.sqrt(1 + t * t) for c in v) for v in vertices]
    faces = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2),
             (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11),
             (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    for _ in range(subdivisions):
        midpoints = {}

        def midpoint(a, b):
            key = (min(a, b), max(a, b))
            if key not in midpoints:
                m = [(p + q) / 2 for p, q in zip(vertices[a], vertices[b])]
                r = math.sqrt(sum(c * c for c in m))
                vertices.append(tuple(c / r for c in m))
                midpoints[key] = len(vertices) - 1
            return midpoints[key]

        split = []
        for a, b, c in faces:
            ab, bc, ca = midpoint(a, b), midpoint(b, c), midpoint(c, a)
            split += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        faces = split
    return vertices, faces


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subdivisions", type=int, default=4)
    parser.add_argument("--output", default="sphere.stl")
    args = parser.parse_args()
    vertices, faces = icosphere(args.subdivisions)
    with open(args.output, "wb") as out:
        out.write(b"hopsim sphere, radius 1".ljust(80, b" "))
        out.write(struct.pack("<I", len(faces)))
        for face in faces:
            corners = [vertices[k] for k in face]
            out.write(struct.pack("<3f", 0.0, 0.0, 0.0))  # readers take the normal from the vertex order
            for v in corners:
                out.write(struct.pack("<3f", *v))
            out.write(b"\0\0")
    print(f"{args.output}: {len(faces)} triangles")


if __name__ == "__main__":
    main()
