"""Operators, one module per operator family; importing this package registers them all."""
import importlib
import pkgutil


def load_all():
    for family in ("aclnn", "mcdnn", "mcblas"):
        package = importlib.import_module("opemu.ops." + family)
        for module in pkgutil.iter_modules(package.__path__):
            importlib.import_module("%s.%s" % (package.__name__, module.name))
