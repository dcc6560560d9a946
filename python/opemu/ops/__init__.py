"""Operators: aclnn ones in opemu.ops.aclnn.<vendor folder>.<module>, mcDNN and mcBLAS routines in
opemu.ops.mcdnn and opemu.ops.mcblas. Importing a module registers the operators it defines.

An aclnn operator's module is imported when the operator is first needed (`aclnn_operator`: the
bridge's first call, opemu.api), found through the vendor folders' lists (opemu.implemented), so a
process pays only for the operators it calls. `load_all` imports everything (support matrix, tests)."""
import importlib
import pkgutil

from opemu import implemented
from opemu.core.op import OPS

_loaded = False


def aclnn_operator(name):
    """The registered aclnn operator `name` (aclnnXxx), importing the module that defines it; None when no
    vendor folder lists it."""
    op = OPS.get(name)
    if op is None:
        module = implemented.aclnn_modules().get(name)
        if module is not None:
            importlib.import_module(module)
            op = OPS.get(name)
    return op


def load_all():
    """Imports every operator module once (after the first call, a flag test)."""
    global _loaded
    if _loaded:
        return
    for family in ("aclnn", "mcdnn", "mcblas"):
        package = importlib.import_module("opemu.ops." + family)
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(module.name)
    _loaded = True
