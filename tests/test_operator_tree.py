"""The house of the aclnn operators: each lives in the vendor's folder, is listed there with the module
that defines it, and is imported only when it is needed; family rows make every form the vendor
declares, with the header's parameters."""
import subprocess
import sys

import numpy as np
import pytest

from opemu import implemented
from opemu.ops.aclnn import declared
from opemu.ops.aclnn.common import elementwise
from opemu.ops.aclnn.common.promotion import per_product


def test_each_aclnn_operator_is_listed_with_the_module_that_defines_it():
    """The bridge imports the listed module when the operator is first called: it must be the defining one."""
    assert implemented.differences() == []


def test_each_aclnn_operator_lives_in_the_vendor_folder_that_keeps_it():
    """ops/aclnn/<folder>/ is the first component of the operator's path in the vendor's repository."""
    misplaced = {name: (folder, declared.operators()[name].folder) for folder, listed in
                 implemented.aclnn_folders().items() for name in listed if declared.operators()[name].folder != folder}
    assert misplaced == {}


def test_an_operator_left_not_supported_is_declared_unimplemented_and_says_why():
    """NOT_EMULATED lists operators with no CPU meaning; docs/SUPPORT.md shows their reasons."""
    reasons = implemented.aclnn_not_emulated()
    assert not set(reasons) & implemented.aclnn_operators()
    assert set(reasons) <= set(declared.operators())
    assert all(len(why) > 20 for why in reasons.values())


def test_every_vendor_folder_has_its_room():
    folders = {operator.folder for operator in declared.operators().values()}
    assert folders == set(implemented.aclnn_folders())


def test_an_operators_first_use_imports_its_module_only():
    code = ("import sys, opemu.ops as o; o.aclnn_operator('aclnnAbs'); "
            "print(sorted(m for m in sys.modules if m.startswith('opemu.ops.aclnn.') and m.count('.') > 3))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = eval(out)
    assert "opemu.ops.aclnn.math.elementwise" in loaded
    assert not [m for m in loaded if m.split(".")[3] not in ("common", "math")], loaded


def test_the_folder_lists_are_plain_data_the_build_reads_without_importing():
    namespace = {"__file__": implemented.__file__}
    with open(implemented.__file__) as f:
        exec(compile(f.read(), implemented.__file__, "exec"), namespace)
    assert namespace["python_entry_points"]() == implemented.python_entry_points()
    assert "aclnnForeachSqrtGetWorkspaceSize" in implemented.python_entry_points()


def test_a_row_makes_each_declared_form_with_the_headers_parameters():
    ops = {op.name: op for op in _made("opemu_tree_probe", elementwise.Row("Sqrt", np.sqrt, per_product("FLOAT")))}
    assert sorted(ops) == ["aclnnInplaceSqrt", "aclnnSqrt"]
    assert ops["aclnnSqrt"].params == (("self", "T"),) and ops["aclnnSqrt"].target == "out"
    assert ops["aclnnInplaceSqrt"].target == "self" and ops["aclnnInplaceSqrt"].inplace


def test_a_row_without_a_declared_inplace_twin_makes_none():
    assert [op.name for op in _made("opemu_tree_probe", elementwise.Row("Abs", np.abs, per_product("FLOAT")))] \
        == ["aclnnAbs"]


def test_a_row_spelling_the_vendor_does_not_declare_is_an_error():
    with pytest.raises(LookupError, match="aclnnAbss"):
        _made("opemu_tree_probe", elementwise.Row("Abs", np.abs, per_product("FLOAT"), forms="Abs Abss"))


def _made(module, row):
    """The operators `row` makes, built apart from the registry (which keeps the real ones)."""
    from opemu.core.op import OPS
    saved, rows = dict(OPS), dict(elementwise.ROWS)
    try:
        elementwise.generate(module, [row])
        return [op for name, op in OPS.items() if type(op).__module__ == module]
    finally:
        OPS.clear()
        OPS.update(saved)
        elementwise.ROWS.clear()
        elementwise.ROWS.update(rows)
