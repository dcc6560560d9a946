"""opemu: run programs written for Huawei CANN (AscendCL + aclnn) and MetaX MACA (mcDNN) on a CPU."""
from opemu.paths import prefix

__version__ = "0.1.0"
__all__ = ["prefix", "__version__"]
