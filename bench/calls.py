"""The fixed cost of a call, which decides how an app with many small calls feels:
tiny aclnn two-phase calls (phase 1 + phase 2 + stream sync) and tiny mcDNN calls with their stream sync,
timed from C (bench/c/call_overhead.cpp); the first call of a fresh process; an opemu.api call."""
import statistics
import tempfile
from pathlib import Path

import numpy as np

from common import HERE, build, median_seconds, row, run
from opemu import api

TINY_ACLNN_US, TINY_MCDNN_US, API_US, FIRST_MS = 15, 20, 50, 250


def api_call_us(n=2000):
    """Median of an opemu.api ApplyFusedEmaAdam call on 16 elements."""
    arrays = {name: np.full(16, 0.5, np.float32) for name in ("grad", "varRef", "mRef", "vRef", "sRef")}
    step = np.array([3])

    def call():
        api.call("aclnnApplyFusedEmaAdam", step=step, lr=1e-3, emaDecay=0.99, beta1=0.9, beta2=0.999, eps=1e-8, mode=1,
                 biasCorrection=True, weightDecay=0.01, **arrays)
    return median_seconds(call, repeat=n, warmup=100) * 1e6


def main():
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(HERE / "c" / "call_overhead.cpp", Path(tmp) / "call_overhead")
        costs = run(exe, "loop", "2000")
        firsts = {family: statistics.median(run(exe, "first_" + family)["first_call_ms"] for _ in range(3))
                  for family in ("aclnn", "mcdnn")}
    for name, us in costs.items():
        target = TINY_MCDNN_US if name.startswith("mcdnn") else TINY_ACLNN_US
        row("tiny %s%s (median)" % (name, " + sync" if name.startswith("mcdnn") else ", phase 1+2+sync"), us, "us",
            target=target)
    for family, ms in firsts.items():
        row("first %s call of a process (median of 3)" % family, ms, "ms", target=FIRST_MS)
    row("opemu.api ApplyFusedEmaAdam, 16 elements (median)", api_call_us(), "us", target=API_US)
