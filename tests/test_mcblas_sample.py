"""The mcBLAS sample, built with the MACA compile line against the prefix (<mcblas/mcblas.h>,
-lmcblas) and run: its printed GEMM, AXPY, GEMV and NRM2 results against float64 NumPy."""
import re
import subprocess

import numpy as np

import opemu
from conftest import ROOT, run_program


def numbers(text):
    return [float(v) for v in re.findall(r"[-+]?\d+\.\d+", text)]


def build(source, output, *flags):
    home = opemu.prefix()
    command = ["g++", str(source), "-Wall", "-o", str(output), "-I%s/include" % home, "-I%s/include/mcr" % home,
               *flags, "-L%s/lib" % home, "-lmcblas", "-lmcruntime"]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0 and "warning" not in result.stderr, result.stderr
    return output


def test_gemm_axpy_gemv_sample_prints_the_float64_reference(build_dir):
    executable = build(ROOT / "samples" / "mcblas" / "gemm_axpy_gemv.cpp", build_dir / "mcblas_sample")
    result = run_program(executable)
    assert result.returncode == 0, result.stdout + result.stderr
    a = np.array([[i + 1 + 0.5 * j for j in range(4)] for i in range(3)])
    b = np.array([[(i - j) * 0.25 for j in range(2)] for i in range(4)])
    x = np.array([1.0, -1.0, 2.0, 0.5])
    c_part, rest = result.stdout.split("y =")
    np.testing.assert_allclose(numbers(c_part), (a @ b + 0.5).ravel(), atol=1e-3)
    y, z, norm = rest.split("\n")[0], rest.split("z =")[1].split("\n")[0], rest.split("|z| =")[1]
    np.testing.assert_allclose(numbers(y), 2 * x + 0.5, atol=1e-3)
    np.testing.assert_allclose(numbers(z), a @ x, atol=1e-3)
    np.testing.assert_allclose(numbers(norm), [np.linalg.norm(a @ x)], atol=1e-3)


def test_the_header_also_works_from_include_mcblas(build_dir, tmp_path):
    """-I$MACA_PATH/include/mcblas with #include <mcblas.h>, as MACA build files do."""
    source = tmp_path / "flat.cpp"
    source.write_text((ROOT / "samples" / "mcblas" / "gemm_axpy_gemv.cpp").read_text()
                      .replace("<mcblas/mcblas.h>", "<mcblas.h>"))
    executable = build(source, build_dir / "mcblas_sample_flat", "-I%s/include/mcblas" % opemu.prefix())
    assert run_program(executable).returncode == 0


LEGACY = r"""
#include <cstdio>
#include <mc_runtime.h>
#include <mcblas/mcblas.h>
int main()
{
    float *a;
    float host[16];
    for (int i = 0; i < 16; i++)
        host[i] = 1.0f;
    mcMalloc((void **)&a, sizeof host);
    mcblasSetVector(16, sizeof(float), host, 1, a, 1);
    mcblasHandle_t h;
    mcblasCreate(&h);
    const float one = 1.0f, zero = 0.0f;
    mcblasStatus_t ok = mcblasGemmEx(h, MCBLAS_OP_N, MCBLAS_OP_N, 4, 4, 4, &one, a, MACA_R_32F, 4, a, MACA_R_32F, 4,
                                     &zero, a, MACA_R_32F, 4, MACA_R_32F, MCBLAS_GEMM_DEFAULT);
    mcblasGetVector(16, sizeof(float), a, 1, host, 1);
    mcblasStatus_t bad = mcblasGemmEx(h, MCBLAS_OP_N, MCBLAS_OP_N, 4, 4, 4, &one, a, MACA_R_32F, 4, a, MACA_R_32F, 4,
                                      &zero, a, MACA_R_32F, 4, MACA_R_8U, MCBLAS_GEMM_DEFAULT);
    printf("%d %d %g\n", (int)ok, (int)bad, host[0]);
    return mcblasDestroy(h);
}
"""


def test_cpp_gemm_ex_still_takes_a_data_type_as_compute_type(build_dir, tmp_path):
    """cuBLAS 11's C++ overloads: MACA_R_32F as the compute type means COMPUTE_32F; others are NOT_SUPPORTED."""
    source = tmp_path / "legacy.cpp"
    source.write_text(LEGACY)
    result = run_program(build(source, build_dir / "mcblas_legacy"))
    assert result.returncode == 0 and result.stdout.split() == ["0", "15", "4"], result.stdout + result.stderr
