"""tools/sweep_vendor_examples.py sorts an operator repository's examples into verdicts: a checkout made here
of three small programs in the vendor's layout (an example that passes, one stopping at an operator opemu
does not implement yet, one that fails its own check)."""
import importlib.util
import json
from pathlib import Path

import pytest

import opemu
from conftest import ROOT

_spec = importlib.util.spec_from_file_location("sweep", ROOT / "tools" / "sweep_vendor_examples.py")
sweep = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sweep)

_PROGRAM = r"""
#include <cstdio>
#include "acl/acl.h"
#include "%(header)s"
int main() {
    aclInit(nullptr);
    aclrtSetDevice(0);
    int64_t shape[1] = {4}, strides[1] = {1};
    void *x = nullptr, *y = nullptr;
    aclrtMalloc(&x, 16, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&y, 16, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemset(x, 16, 0, 16);
    aclTensor *self = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, x);
    aclTensor *out = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, y);
    uint64_t size = 0;
    aclOpExecutor *executor = nullptr;
    int ret = %(op)sGetWorkspaceSize(self, out, &size, &executor);
    if (ret != 0) { printf("%(op)s failed: %%d\n", ret); return 1; }
    ret = %(op)s(nullptr, 0, executor, nullptr);
    printf("result %%d\n", ret);
    return %(exit)d;
}
"""
_UNARY = ["const aclTensor *self", "aclTensor *out", "uint64_t *workspaceSize", "aclOpExecutor **executor"]


def _unimplemented_unary():
    """(header, operator) of an operator of the self → out shape that opemu does not implement, or None."""
    entries = json.loads((opemu.prefix() / "share" / "opemu" / "entry_points.json").read_text())
    for name, entry in sorted(entries.items()):
        if (name.endswith("GetWorkspaceSize") and entry["implemented_in"] == "none"
                and [p[1] for p in entry["params"]] == _UNARY):
            return entry["header"], name[:-len("GetWorkspaceSize")]
    return None


def _example(root, name, header, op, exit_status):
    path = root / "ops-nn" / "activation" / name / "examples" / ("test_aclnn_%s.cpp" % name)
    path.parent.mkdir(parents=True)
    path.write_text(_PROGRAM % dict(header=header, op=op, exit=exit_status))


def test_the_sweep_gives_each_example_its_verdict(tmp_path, capsys):
    missing = _unimplemented_unary()
    if missing is None:
        pytest.skip("opemu implements every operator of the self → out shape")
    _example(tmp_path, "abs", "aclnnop/aclnn_abs.h", "aclnnAbs", 0)
    _example(tmp_path, "missing", missing[0], missing[1], 0)
    _example(tmp_path, "checked", "aclnnop/aclnn_abs.h", "aclnnAbs", 3)
    table = tmp_path / "verdicts.tsv"
    status = sweep.main([str(tmp_path / "ops-nn"), "--jobs", "2", "--quiet", "--tsv", str(table)])
    verdicts = {line.split("\t")[0]: line.split("\t")[1:] for line in table.read_text().splitlines()}
    assert verdicts["activation/abs/examples/test_aclnn_abs.cpp"] == ["pass", ""]
    assert verdicts["activation/missing/examples/test_aclnn_missing.cpp"] == ["not-supported",
                                                                             missing[1] + "GetWorkspaceSize"]
    assert verdicts["activation/checked/examples/test_aclnn_checked.cpp"][0] == "failed"
    assert status == 1
    assert "ops-nn: 3 examples" in capsys.readouterr().out


def test_the_kind_of_repository_comes_from_its_path():
    assert sweep.repository_kind(Path("/src/hicann+ops-transformer/repo")) == "ops-transformer"
    assert sweep.repository_kind(Path("/src/ops-nn")) == "ops-nn"
