"""Operators: aclnn ones in opemu.ops.aclnn.<vendor folder>.<module>, mcDNN and mcBLAS routines in
opemu.ops.mcdnn and opemu.ops.mcblas. Importing a module registers the operators it defines.

An aclnn operator's module is imported when the operator is first needed (`aclnn_operator`: the
bridge's first call, opemu.api), found through the vendor folders' lists (opemu.implemented), so a
process pays only for the operators it calls; a mcDNN or mcBLAS routine's first call imports its
family (`load_family`). `load_all` imports everything (opemu.support, the tests)."""
import importlib
import pkgutil

from opemu import implemented
from opemu.core.op import OPS

FAMILIES = ("aclnn", "mcdnn", "mcblas")
_loaded = set()


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


def load_family(family):
    """Imports every module of opemu.ops.<family> (aclnn, mcdnn, mcblas) once."""
    if family in _loaded:
        return
    package = importlib.import_module("opemu.ops." + family)
    for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        importlib.import_module(module.name)
    _loaded.add(family)


def load_all():
    """Imports every operator module once (opemu.api and the tools that list operators)."""
    for family in FAMILIES:
        load_family(family)
