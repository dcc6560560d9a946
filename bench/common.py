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
                    "-lmcdnn", "-lmcruntime", "-ldl"], check=True)
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
