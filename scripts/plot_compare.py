#!/usr/bin/env python3
"""Bar chart of a `hopsim compare` result: `hopsim compare ... --plot FILE` calls this script.

Usage: plot_compare.py COMPARISON.json OUT [svg|png|pdf]   (the format defaults to OUT's extension)

COMPARISON.json is what `hopsim compare --json` writes. The chart has two panels sharing the runs on the x axis:
the step time of every file (ms per step, log scale, the bars' whiskers the repeats' extremes), and each file's
speed over the baseline (its whiskers the ratio's range from the extremes) beside what the ratio of copy bandwidths
alone predicts (a marker), so the part of a speedup that is not bandwidth shows at a glance. Runs that a file lacks
or that failed have no bar. SVG keeps its text as text, so run names can be searched and edited.
"""
import json
import sys


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write("usage: plot_compare.py COMPARISON.json OUT [svg|png|pdf]\n")
        return 2
    try:
        import matplotlib
    except ImportError:
        sys.stderr.write("plot_compare.py: needs matplotlib (Debian/Ubuntu: apt-get install python3-matplotlib; "
                         "otherwise pip install matplotlib)\n")
        return 3
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"
    import matplotlib.pyplot as plt

    with open(argv[1]) as f:
        comparison = json.load(f)
    files = comparison["files"]
    baseline = comparison["baseline"]
    runs = comparison["runs"]
    ids = [run["id"] for run in runs]
    n_files = len(files)
    width = 0.8 / n_files
    x = list(range(len(runs)))

    fig_width = max(8.0, 0.55 * len(runs) + 3.0)
    fig, (times, speeds) = plt.subplots(2, 1, figsize=(fig_width, 9.0), sharex=True,
                                        gridspec_kw={"height_ratios": [3, 2]})
    for k, f in enumerate(files):
        label = f"{f['label']} ({f['gpu']})"
        xs, medians, lows, highs = [], [], [], []
        for i, run in enumerate(runs):
            entry = run["per_file"][k]
            if entry is None:
                continue
            t = entry["step_time_ms"]
            xs.append(i + (k - (n_files - 1) / 2) * width)
            medians.append(t["median"])
            lows.append(t["median"] - t["min"])
            highs.append(t["max"] - t["median"])
        times.bar(xs, medians, width, yerr=[lows, highs], capsize=2, label=label)
    times.set_yscale("log")
    times.set_ylabel("step time (ms, median; whiskers: min..max)")
    times.set_title(f"hopsim compare: baseline {files[baseline]['label']}")
    times.legend(fontsize="small")
    times.grid(axis="y", which="both", alpha=0.3)

    others = [k for k in range(n_files) if k != baseline]
    ratio_width = 0.8 / max(1, len(others))
    for j, k in enumerate(others):
        xs, speed, lows, highs, predicted_x, predicted = [], [], [], [], [], []
        for i, run in enumerate(runs):
            ratio = run["ratios"][k]
            if ratio is None:
                continue
            xi = i + (j - (len(others) - 1) / 2) * ratio_width
            xs.append(xi)
            speed.append(ratio["speed"])
            lows.append(ratio["speed"] - ratio["speed_low"])
            highs.append(ratio["speed_high"] - ratio["speed"])
            if ratio.get("bandwidth_predicted") is not None:
                predicted_x.append(xi)
                predicted.append(ratio["bandwidth_predicted"])
        speeds.bar(xs, speed, ratio_width, yerr=[lows, highs], capsize=2,
                   label=f"{files[k]['label']} over {files[baseline]['label']}")
        speeds.plot(predicted_x, predicted, linestyle="none", marker="_", markersize=14, markeredgewidth=2,
                    color="black", label="copy bandwidth ratio (prediction)" if j == 0 else None)
    speeds.set_yscale("log")
    speeds.axhline(1.0, color="grey", linewidth=0.8)
    speeds.set_ylabel("speed over baseline (x, log)")
    speeds.legend(fontsize="small")
    speeds.grid(axis="y", alpha=0.3)
    speeds.set_xticks(x)
    speeds.set_xticklabels(ids, rotation=60, ha="right", fontsize="x-small")

    fig.tight_layout()
    fig.savefig(argv[2], format=argv[3] if len(argv) == 4 else None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
