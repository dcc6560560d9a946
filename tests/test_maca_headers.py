"""The MACA library headers bring the runtime in as cuDNN's and cuBLAS's bring in cuda_runtime.h: a C++
program that includes only <mcdnn.h> (or one mcDNN sub-library header, <mcblas.h>, <mcblasLt.h>, <mccl.h>) may call
the runtime's typed overloads — mcMalloc(&floatPtr, n) — and the C library functions the runtime header
provides. (Every header compiling alone as C and as C++ is tests/test_surface.py's test.)"""
import subprocess

import pytest

from conftest import opemu_only, toolkit

pytestmark = [opemu_only]

TYPED_CALLS = r"""
#include <%s>
int main()
{
    float *values = nullptr;
    double *host = nullptr;
    mcEvent_t event;
    if (mcMalloc(&values, 16 * sizeof(float)) != mcSuccess) return 1;       /* mcMalloc(T **, size_t) */
    if (mcMallocHost(&host, 4 * sizeof(double)) != mcSuccess) return 2;     /* mcMallocHost(T **, size_t, flags = 0) */
    if (mcEventCreate(&event, mcEventDisableTiming) != mcSuccess) return 3; /* the flags overload */
    printf("allocated %%p %%p\n", (void *)values, (void *)host);
    mcEventDestroy(event);
    mcFreeHost(host);
    return mcFree(values) == mcSuccess ? 0 : 4;
}
"""

LIBRARY_HEADERS = ["mcdnn/mcdnn.h", "mcdnn/mcdnn_ops_infer.h", "mcdnn/mcdnn_ops_train.h", "mcdnn/mcdnn_cnn_infer.h",
                   "mcdnn/mcdnn_cnn_train.h", "mcdnn/mcdnn_adv_infer.h", "mcdnn/mcdnn_adv_train.h",
                   "mcdnn/mcdnn_backend.h", "mcblas/mcblas.h", "mcblas/mcblasLt.h", "mccl.h"]


def compile_program(source, tmp_path, link=False):
    root = toolkit()
    path = tmp_path / "typed.cpp"
    path.write_text(source)
    command = ["g++", "-std=c++11", "-Wall", "-Wextra", "-Werror", "-I", str(root / "include"), str(path)]
    command += ["-o", str(tmp_path / "typed"), "-L", str(root / "lib"), "-lmcruntime"] if link else ["-fsyntax-only"]
    return subprocess.run(command, capture_output=True, text=True)


@pytest.mark.parametrize("header", LIBRARY_HEADERS)
def test_typed_runtime_calls_compile_with_only_the_library_header(header, tmp_path):
    result = compile_program(TYPED_CALLS % header, tmp_path)
    assert result.returncode == 0, result.stderr


def test_a_program_including_only_mcdnn_h_links_and_runs(tmp_path):
    result = compile_program(TYPED_CALLS % "mcdnn/mcdnn.h", tmp_path, link=True)
    assert result.returncode == 0, result.stderr
    run = subprocess.run([str(tmp_path / "typed")], capture_output=True, text=True,
                         env={"LD_LIBRARY_PATH": str(toolkit() / "lib")})
    assert run.returncode == 0 and run.stdout.startswith("allocated"), run.stdout + run.stderr
