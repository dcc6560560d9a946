"""The operator headers of include/aclnnop/ as the vendor ships them: one per exported operator (those
opbuild generates from an operator definition included), under level2/ as well, with the standard
includes the vendor's header has, and a table that matches the operator repositories' heads."""
import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, toolkit

MIRRORS = Path(os.environ.get("OPEMU_VENDOR_MIRRORS", "/work/.mirror"))


def operator_table():
    with open(ROOT / "cmake" / "surface" / "aclnn_ops.tsv", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def compiles(text, tmp_path, language="c++"):
    home = toolkit() / "include"
    source = tmp_path / ("probe.cpp" if language == "c++" else "probe.c")
    source.write_text(text)
    result = subprocess.run(["g++" if language == "c++" else "gcc", "-fsyntax-only", "-Wall", "-Werror",
                             "-I%s" % home, "-I%s/aclnnop" % home, "-I%s/aclnn" % home, str(source)],
                            capture_output=True, text=True)
    return result.returncode == 0, result.stderr


def test_every_exported_operator_has_a_prototype_and_a_header(tmp_path):
    rows = operator_table()
    assert all(row["workspace_parameters"] for row in rows)
    generated = [row for row in rows if row["declared_by"] == "op_def"]
    assert len(generated) == 14
    text = "".join('#include "aclnnop/aclnn_%s.h"\n' % row["path"].split("/")[-1][:-len("_def.cpp")]
                   for row in generated)
    text += "void *const entries[] = {%s};\nint main() { return entries[0] == 0; }\n" % ", ".join(
        "(void *)&%sGetWorkspaceSize, (void *)&%s" % (row["name"], row["name"]) for row in generated)
    ok, errors = compiles(text, tmp_path)
    assert ok, errors


def test_an_operator_opbuild_generates_takes_ref_inputs_and_named_outputs():
    row = {r["name"]: r for r in operator_table()}["aclnnGroupedMatmulAdd"]
    assert row["workspace_parameters"] == ("const aclTensor *x, const aclTensor *weight, const aclTensor *groupList, "
                                           "const aclTensor *yRef, bool transposeX, bool transposeWeight, "
                                           "int64_t groupType, uint64_t *workspaceSize, aclOpExecutor **executor")


def test_functions_not_named_aclnn_ship_in_the_vendor_header(tmp_path):
    ok, errors = compiles('#include "aclnnop/acl_stft.h"\n#include "aclnnop/acl_rfft1d.h"\n'
                          "void *const entries[] = {(void *)&aclStftGetWorkspaceSize, (void *)&aclStft, "
                          "(void *)&aclRfft1D};\nint main() { return entries[0] == 0; }\n", tmp_path)
    assert ok, errors


def test_a_header_keeps_the_standard_includes_of_the_vendor_header(tmp_path):
    header = (toolkit() / "include" / "aclnnop" / "aclnn_adaptive_avg_pool2d.h").read_text()
    assert "#include <array>" in header
    ok, errors = compiles('#include "aclnnop/aclnn_adaptive_avg_pool2d.h"\nstd::array<int, 2> a = {1, 2};\n', tmp_path)
    assert ok, errors
    ok, errors = compiles('#include "aclnnop/aclnn_adaptive_avg_pool2d.h"\n', tmp_path, language="c")
    assert ok, errors


def test_the_level2_path_declares_the_same_operators(tmp_path):
    level2 = toolkit() / "include" / "aclnnop" / "level2"
    assert {p.name for p in level2.glob("*.h")} == {p.name for p in level2.parent.glob("*.h")} - {"aclnn_util.h"}
    ok, errors = compiles('#include "aclnnop/level2/aclnn_add.h"\n#include "aclnnop/aclnn_add.h"\n'
                          "void *const entry = (void *)&aclnnAddGetWorkspaceSize;\nint main() { return entry == 0; }\n",
                          tmp_path)
    assert ok, errors


@pytest.mark.skipif(not (MIRRORS / "hicann+ops-transformer" / "repo").is_dir(),
                    reason="needs the operator repositories (hicann+ops-*/repo under %s)" % MIRRORS)
def test_the_table_is_what_the_operator_repositories_declare():
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "refresh_surface.py"), "--mirrors", str(MIRRORS)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    changes = [line for line in result.stdout.splitlines() if line[:1] in "+-~"]
    assert changes == []
