"""opemu speed figures: medians and ratios against targets, floors and peers, measured in one run.

    python bench/bench.py            # everything
Not a test: these machines are noisy, so figures are printed, never asserted."""
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import opemu
from opemu import cli

HERE = Path(__file__).resolve().parent


def build(source, output):
    home = opemu.prefix()
    subprocess.run(["g++", "-O2", str(source), "-o", str(output), "-I%s/include" % home, "-I%s/include/aclnnop" % home,
                    "-L%s/lib64" % home, "-lopapi", "-lnnopbase", "-lascendcl", "-ldl"], check=True)
    return output


def run(executable, *args):
    out = subprocess.run([str(executable), *args], capture_output=True, text=True, env=cli.run_environment(), check=True)
    return dict((k, float(v)) for k, v in (line.split() for line in out.stdout.splitlines()))


def row(name, value, unit, target=None, reference=None, reference_name=""):
    parts = ["%-44s %10.2f %s" % (name, value, unit)]
    if target is not None:
        parts.append("target <= %g %s (%.2fx)" % (target, unit, value / target))
    if reference is not None:
        parts.append("%s %.2f %s (ratio %.2f)" % (reference_name, reference, unit, value / reference))
    print("   ".join(parts))


def foundation():
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(HERE / "c" / "embedding_overhead.cpp", Path(tmp) / "embedding_overhead")
        loop = run(exe, "loop", "3000")
        firsts = [run(exe, "first")["first_call_us"] / 1000 for _ in range(5)]
    print("== foundation: aclnn host overhead ==")
    row("tiny aclnnEmbedding, phase 1+2+sync (median)", loop["two_phase_us"], "us", target=20,
        reference=loop["round_trip_us"], reference_name="bare C->Python round trip")
    row("first call: interpreter + NumPy start (median of 5)", statistics.median(firsts), "ms", target=300)


if __name__ == "__main__":
    foundation()
    sys.exit(0)
