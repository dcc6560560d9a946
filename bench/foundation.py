"""Foundation: host cost of one aclnn call from C, and the interpreter's start-up."""
import statistics
import tempfile
from pathlib import Path

from calls import FIRST_MS, TINY_ACLNN_US
from common import HERE, build, row, run


def main():
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(HERE / "c" / "embedding_overhead.cpp", Path(tmp) / "embedding_overhead")
        loop = run(exe, "loop", "3000")
        firsts = [run(exe, "first")["first_call_us"] / 1000 for _ in range(5)]
    row("tiny aclnnEmbedding, phase 1+2+sync (median)", loop["two_phase_us"], "us", target=TINY_ACLNN_US,
        reference=loop["round_trip_us"], reference_name="bare C->Python round trip")
    row("first call: interpreter + NumPy start (median of 5)", statistics.median(firsts), "ms", target=FIRST_MS)

