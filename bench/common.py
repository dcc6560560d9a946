"""What every bench section shares: building a C driver against the prefix, timing, printing."""
import compileall
import functools
import statistics
import subprocess
import time
from pathlib import Path

import opemu
from opemu import cli

HERE = Path(__file__).resolve().parent


@functools.cache
def _bytecode():
    """opemu's modules compiled, as `pip install .` leaves them. An editable checkout in an environment with
    PYTHONDONTWRITEBYTECODE set (this workplace sets it) never gets its .pyc files, and each driver's
    embedded interpreter would compile every module again: the first call of a process read ~250 ms
    instead of ~150. py_compile writes them whatever that variable says."""
    compileall.compile_dir(str(Path(opemu.__file__).parent), quiet=1)


def kernel_paths():
    """Prints, and returns, which path each kernel runs: the instruction-set level in use (OPEMU_ISA caps it)
    and what that means per kernel, with whether the convolutions take the chain kernel (this BLAS's
    products)."""
    from opemu.core import blas, kernels
    if kernels.lib() is None:
        print("kernels: the NumPy references (OPEMU_KERNELS=numpy)")
        return {"kernels": "numpy"}
    described = {"isa": kernels.isa(), "cpu": kernels.cpu_isa(), "paths": dict(kernels.paths()),
                 "chain sums in convolutions": bool(blas.chain_available())}
    capped = ", OPEMU_ISA=" + kernels.ISA if kernels.ISA != kernels.ISA_LEVELS[-1] else ""
    print("kernels: C at instruction-set level %s (this CPU: %s%s)" % (described["isa"], described["cpu"],
                                                                        capped))
    for kernel, path in kernels.paths():
        print("  %-70s %s" % (kernel, path))
    print("  convolutions take the chain sums: %s" % ("yes" if described["chain sums in convolutions"] else
                                                      "no (this BLAS does not form its products as FMA chains)"))
    return described


def build(source, output):
    _bytecode()
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


def alternating_medians(sides, rounds=5, warmup=1):
    """{name: median seconds} of the callables in `sides`, run in turn, one call each a round (the order reversed
    every other round): a drift of the host while they are measured falls on every side alike instead of on one
    side of a ratio. For calls long beside the pools' spinning after them (IDLE_SECONDS)."""
    for fn in sides.values():
        for _ in range(warmup):
            fn()
    times = {name: [] for name in sides}
    order = list(sides)
    for r in range(rounds):
        for name in order if r % 2 == 0 else reversed(order):
            start = time.perf_counter()
            sides[name]()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


RESULTS = []  # every row of this process, for bench.py's ranges, JSON and plot
SECTION = [""]  # the section now running (bench.py sets it)


def row(name, value, unit, target=None, reference=None, reference_name="", ratio=None):
    """One figure: its value, a floor or peer measured in the same run, and its target — absolute
    (`target`, in `unit`) or as a ratio to the reference (`ratio`) — marked met or MISSED."""
    if ratio is not None and reference is not None:
        target = ratio * reference
    parts = ["%-52s %10.2f %s" % (name, value, unit)]
    if reference is not None:
        parts.append("%s %.2f %s (ratio %.2f)" % (reference_name, reference, unit, value / reference))
    met = None if target is None else value <= target
    if target is not None:
        parts.append("target <= %s  %s" % ("%.2fx" % ratio if ratio is not None else "%g %s" % (target, unit),
                                            "met" if met else "MISSED"))
    print("   ".join(parts), flush=True)
    RESULTS.append({"section": SECTION[0], "name": name, "value": value, "unit": unit, "reference": reference,
                    "reference_name": reference_name, "target": target, "target_ratio": ratio, "met": met})


# Thread pools spin on the cores for a while after their last job: OpenBLAS's (NumPy's BLAS, which opemu's
# GEMMs use) for 2^28 cycles, ~80 ms here, in which a torch convolution ran at half speed; torch's OpenMP
# workers likewise. So each block of calls starts once the other side's pool has gone to sleep. After that
# pause this host needs a while to run either side at full speed again (a 2 ms activation backward took
# 4-6 ms for its first 5-8 calls, torch's 2-3 ms for 3-5), so each block first runs untimed for WARM_SECONDS.
IDLE_SECONDS = 0.1
WARM_SECONDS = 0.05


def best_of(ours, theirs, rounds=4, calls=5):
    """Best single call of each side over `rounds` alternating blocks of `calls` calls, each block started
    on idle cores (IDLE_SECONDS) and warmed up (WARM_SECONDS). Blocks rather than single alternating calls:
    within a block each side meets only its own load."""
    ours(), theirs()
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        for i, fn in enumerate((ours, theirs)):
            time.sleep(IDLE_SECONDS)
            warm = time.perf_counter()
            fn()
            while time.perf_counter() - warm < WARM_SECONDS:
                fn()
            for _ in range(calls):
                start = time.perf_counter()
                fn()
                best[i] = min(best[i], time.perf_counter() - start)
    return best[0] * 1e3, best[1] * 1e3
