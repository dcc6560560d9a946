"""opemu speed figures: each against its target, floor or peer, measured in the same run; the runs repeated
(sections taking turns) and reported as ranges, every target marked met or missed.

    python bench/bench.py                           # every section, 3 runs
    python bench/bench.py mcdnn calls --runs 5      # some sections (modules of this folder with main())
    python bench/bench.py --json out.json --plot out.png
Not a test: these machines are noisy, so figures are printed, never asserted. The plot needs matplotlib
(the optional `bench` extra); without it the bench runs and says so."""
import argparse
import importlib
import json
import sys
import time
from pathlib import Path

# In the order they print; each is bench/<name>.py with main(). One per line, so that sections added
# side by side merge.
SECTIONS = [
    "foundation",
    "calls",
    "fused_cross_entropy",
    "mcdnn",
    "losses",
    "mcdnn_normalization",
    "mcdnn_convolution",
    "mcblas",
    "maca_adv",
    "aclnn_ops",
    "attention",
    "nn_families",
    "nn_activation",
    "attention",
    "torch_on_npu",
    "contention",
]


def summarise(results, runs):
    """One entry per figure: the range of its values and ratios over the runs, and how many met the target."""
    figures = {}
    for r in results:
        figures.setdefault((r["section"], r["name"], r["reference_name"]), []).append(r)
    summary = []
    for (section, name, reference_name), rows in figures.items():
        values = [r["value"] for r in rows]
        ratios = [r["value"] / r["reference"] for r in rows if r["reference"]]
        judged = [r["met"] for r in rows if r["met"] is not None]
        verdict = None if not judged else "met" if all(judged) else "missed" if not any(judged) else "mixed"
        summary.append({"section": section, "name": name, "unit": rows[0]["unit"], "reference_name": reference_name,
                        "values": values, "ratios": ratios, "target": rows[0]["target_ratio"] or rows[0]["target"],
                        "target_is_ratio": rows[0]["target_ratio"] is not None, "met_runs": sum(judged),
                        "runs": len(judged), "verdict": verdict})
    return summary


def print_summary(summary):
    print("\n== summary: ranges over the runs ==")
    for f in summary:
        line = "%-58s %9.2f-%-9.2f %s" % (f["name"][:58], min(f["values"]), max(f["values"]), f["unit"])
        if f["ratios"]:
            line += "   x%s %.2f-%.2f" % (f["reference_name"][:28], min(f["ratios"]), max(f["ratios"]))
        if f["verdict"]:
            target = ("%.2fx" % f["target"]) if f["target_is_ratio"] else ("%g %s" % (f["target"], f["unit"]))
            line += "   target <= %s: %s (%d/%d runs)" % (target, f["verdict"].upper() if f["verdict"] != "met"
                                                        else "met", f["met_runs"], f["runs"])
        print(line)


def plot(summary, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no plot: matplotlib is not installed (pip install '.[bench]')")
        return
    shown = [f for f in summary if f["ratios"]]
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(shown) + 1.5))
    for i, f in enumerate(shown):
        low, high = min(f["ratios"]), max(f["ratios"])
        colour = {"met": "tab:green", "missed": "tab:red", "mixed": "tab:orange"}.get(f["verdict"], "tab:gray")
        ax.barh(i, high, color=colour, alpha=0.35)
        ax.plot([low, high], [i, i], color=colour, linewidth=3)
        if f["target_is_ratio"]:
            ax.plot([f["target"]] * 2, [i - 0.4, i + 0.4], color="black")
    ax.set_yticks(range(len(shown)), ["%s / %s" % (f["name"], f["reference_name"]) for f in shown], fontsize=7)
    ax.axvline(1.0, color="gray", linestyle=":")
    ax.invert_yaxis()
    ax.set_xlabel("ours / peer or floor (range over runs; black tick: target)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print("plot written to %s" % path)


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("sections", nargs="*", default=SECTIONS)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", help="write the figures (every run, and the summary) to this file")
    ap.add_argument("--plot", help="write a PNG of ours against the peers and floors")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import common
    paths = common.kernel_paths()
    started = time.time()
    for run in range(args.runs):
        for name in args.sections:
            print("== %s (run %d of %d) ==" % (name, run + 1, args.runs), flush=True)
            common.SECTION[0] = name
            importlib.import_module(name).main()
    summary = summarise(common.RESULTS, args.runs)
    print_summary(summary)
    print("(%d runs in %.0f s)" % (args.runs, time.time() - started))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"runs": args.runs, "kernels": paths, "figures": common.RESULTS, "summary": summary}, f, indent=1)
    if args.plot:
        plot(summary, args.plot)


if __name__ == "__main__":
    main(sys.argv[1:])
