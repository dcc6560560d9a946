"""The samples of cuDNN's newer APIs, built with the MACA compile line against the prefix and run: the LSTM
training step (RNN v8), the backend-API convolution with bias and ReLU, the mcblasLt matmul with the
bias + ReLU epilogue and its gradient. Each checks its own numbers against a double computation (exit 1 on a
mismatch); the test also reads the errors they print."""
import re
import subprocess

import pytest

import opemu
from conftest import ROOT, run_program

ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1"}
SAMPLES = {"mcdnn/lstm_training_step": ("max |y, hy, cy - double LSTM| = ", "max |gradient - central difference| = "),
           "mcdnn/backend_conv_bias_relu": ("max |y - double reference| = ",),
           "mcblas/lt_matmul_bias_relu": ("max |D - double| = ", "max |dZ - double| = ")}


def build(name, build_dir):
    home = opemu.prefix()
    output = build_dir / name.replace("/", "_")
    command = ["g++", str(ROOT / "samples" / (name + ".cpp")), "-Wall", "-O2", "-o", str(output),
               "-I%s/include" % home, "-I%s/include/mcr" % home, "-L%s/lib" % home, "-lmcdnn", "-lmcblasLt",
               "-lmcblas", "-lmcruntime"]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0 and "warning" not in result.stderr, result.stderr
    return output


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_sample_passes_its_own_checks(name, build_dir):
    result = run_program(build(name, build_dir), env=ONE_THREAD, timeout=600)
    assert result.returncode == 0 and "PASSED" in result.stdout, result.stdout + result.stderr
    for label in SAMPLES[name]:
        error = float(re.search(re.escape(label) + r"([-+0-9.e]+)", result.stdout).group(1))
        assert error < 2e-3, (label, result.stdout)
