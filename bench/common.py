"""What every bench section shares: building a C driver against the prefix, timing, printing."""
import statistics
import subprocess
import time
from pathlib import Path

import opemu
from opemu import cli

HERE = Path(__file__).resolve().parent


def build(source, output):
    home = opemu.prefix()
    subprocess.run(["g++", "-O2", str(source), "-o", str(output), "-I%s/include" % home, "-I%s/include/aclnnop" % home,
                    "-I%s/include/mcr" % home, "-L%s/lib64" % home, "-lopapi", "-lnnopbase", "-lascendcl",
                    "-lmcdnn", "-lmcblas", "-lmcruntime", "-ldl"], check=True)
    return output


def run(executable, *args):
    """Runs a C driver that prints `name value` lines; returns them as a dict of floats."""
    out = subprocess.run([str(executable), *args], capture_output=True, text=True, env=cli.run_environment(), check=True)
    return dict((k, float(v)) for k, v in (line.split() for line in out.stdout.splitlines()))


def median_seconds(fn, repeat=5, warmup=1):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def row(name, value, unit, target=None, reference=None, reference_name=""):
    """One figure: its value, its target (ratio printed) and a floor or peer measured in the same run."""
    parts = ["%-52s %10.2f %s" % (name, value, unit)]
    if target is not None:
        parts.append("target <= %g %s (%.2fx)" % (target, unit, value / target))
    if reference is not None:
        parts.append("%s %.2f %s (ratio %.2f)" % (reference_name, reference, unit, value / reference))
    print("   ".join(parts), flush=True)


def best_of(ours, theirs, rounds=4, calls=5):
    """Best single call of each side over `rounds` alternating blocks of `calls` calls. Blocks rather than
    single alternating calls: torch's OpenMP workers spin for a while after each of its calls, which
    would land on whichever side runs next; within a block each side meets only its own load."""
    ours(), theirs()
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        for i, fn in enumerate((ours, theirs)):
            for _ in range(calls):
                start = time.perf_counter()
                fn()
                best[i] = min(best[i], time.perf_counter() - start)
    return best[0] * 1e3, best[1] * 1e3
