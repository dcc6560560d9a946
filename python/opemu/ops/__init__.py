"""Operators, one module per operator family; importing this package registers them all."""
import importlib
import pkgutil

_loaded = False


def load_all():
    """Imports every operator module once (opemu.api calls this on every call: after the first, a flag test)."""
    global _loaded
    if _loaded:
        return
    for family in ("aclnn", "mcdnn", "mcblas"):
        package = importlib.import_module("opemu.ops." + family)
        for module in pkgutil.iter_modules(package.__path__):
            importlib.import_module("%s.%s" % (package.__name__, module.name))
    _loaded = True
