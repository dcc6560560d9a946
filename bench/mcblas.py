"""mcBLAS from a C program: mcblasSgemm 2048^3 against NumPy's matmul of the same float32 matrices
(target <= 1.1x), and the cost of a tiny call (mcblasSaxpy of one element, mcblasSgemm 4^3; target
<= 20 us): what the entry point, the handle and stream machinery and the embedded interpreter add."""
import tempfile
from pathlib import Path

import numpy as np

from common import HERE, build, median_seconds, row, run

N = 2048


def main():
    with tempfile.TemporaryDirectory() as tmp:
        driver = build(HERE / "c" / "mcblas_driver.cpp", Path(tmp) / "mcblas_driver")
        figures = run(driver, str(N))
    rng = np.random.default_rng(0)
    a = np.asfortranarray(rng.uniform(-0.5, 0.5, (N, N)).astype(np.float32))
    b = np.asfortranarray(rng.uniform(-0.5, 0.5, (N, N)).astype(np.float32))
    numpy_ms = median_seconds(lambda: a @ b, repeat=5) * 1e3
    row("mcblasSgemm %d^3 vs NumPy matmul" % N, figures["sgemm_ms"], "ms", reference=numpy_ms,
        reference_name="numpy")
    print("    ratio %.2f (target <= 1.1)" % (figures["sgemm_ms"] / numpy_ms))
    row("mcblasSaxpy n=1, one call", figures["saxpy_tiny_us"], "us", target=20)
    row("mcblasSgemm 4^3, one call", figures["sgemm_tiny_us"], "us", target=20)
    # CPU time per call: the cost itself when the machine is shared (wall time includes waiting for a core)
    row("mcblasSaxpy n=1, CPU time per call", figures["saxpy_tiny_cpu_us"], "us", target=20)
    row("mcblasSgemm 4^3, CPU time per call", figures["sgemm_tiny_cpu_us"], "us", target=20)
