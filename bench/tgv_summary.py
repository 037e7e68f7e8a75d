#!/usr/bin/env python3
"""The 3-D Taylor-Green runs of `bench/device_check.sh tgvmap`: for each run folder tgv_N_MODEL_RE under the given
folder, whether it stayed stable (its exit status in status.txt) and the peak of the dissipation rate -dE/dt
normalised by U0^3 / L (L = N / 2 pi, U0 0.05) with its time t* = t U0 / L, against the DNS peak 0.0127 near t* 9.

Usage: python3 bench/tgv_summary.py DIR
"""
import csv
import math
import os
import re
import sys

U0 = 0.05


def exits(folder):
    """Exit status of each run, by name, from the status lines 'NAME: exit N in S s'."""
    out = {}
    path = os.path.join(folder, "status.txt")
    if os.path.exists(path):
        for line in open(path):
            m = re.match(r"(\S+): exit (\d+)", line)
            if m:
                out[m.group(1)] = int(m.group(2))
    return out


def peak(path, n):
    """(peak eps*, its t*, last t*) from observables.csv; the rate of a row is the interval before it."""
    length = n / (2 * math.pi)
    rows = list(csv.DictReader(open(path)))
    best, best_t, prev = -1.0, float("nan"), None
    for r in rows:
        step = float(r["step"])
        if prev is not None:
            eps = float(r["dissipation_rate"]) * length / U0 ** 3
            if math.isfinite(eps) and eps > best:
                best, best_t = eps, (step + prev) / 2 * U0 / length
        prev = step
    last = float(rows[-1]["step"]) * U0 / length if rows else float("nan")
    return best, best_t, last


def main():
    folder = sys.argv[1]
    status = exits(folder)
    print(f"{'N':>4} {'model':<8} {'Re':>8} {'exit':>4} {'peak eps*':>10} {'t* peak':>8} {'t* end':>7}")
    runs = []
    for name in os.listdir(folder):
        m = re.fullmatch(r"tgv_(\d+)_([a-z0-9_]+?)_(\d+)", name)
        if m and os.path.isdir(os.path.join(folder, name)):
            runs.append((int(m.group(1)), m.group(2), int(m.group(3)), name))
    for n, model, re_, name in sorted(runs):
        obs = os.path.join(folder, name, "observables.csv")
        eps, t, last = peak(obs, n) if os.path.exists(obs) else (float("nan"),) * 3
        print(f"{n:>4} {model:<8} {re_:>8} {status.get(name, -1):>4} {eps:>10.5f} {t:>8.2f} {last:>7.2f}")


if __name__ == "__main__":
    main()
