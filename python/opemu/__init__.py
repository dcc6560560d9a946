"""opemu: run programs written for Huawei CANN (AscendCL + aclnn) and MetaX MACA (mcDNN) on a CPU."""
import os
import sys

from opemu.paths import prefix

# NumPy's OpenBLAS keeps its workers spinning for 2^28 cycles (~80-100 ms) after each threaded GEMM, taking
# half a core from opemu's kernel threads (and an app's own) long after opemu's GEMMs: 1.3-1.6x on mcDNN's
# backward calls here. 2^22 cycles (~1.5-2 ms) still spans the gaps between an op's GEMMs. OpenBLAS reads the
# variable when it loads, so this takes effect where opemu loads NumPy first (a C program's embedded
# interpreter); a host that imported NumPy before opemu keeps its own setting (README: OPENBLAS_THREAD_TIMEOUT).
if "numpy" not in sys.modules:
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "22")

__version__ = "0.1.0"
__all__ = ["prefix", "__version__"]
