"""The whole vendor surface: every function of the vendor headers is declared, exported by the
library the vendor puts it in, and answers — implemented or with its family's not-supported status."""
import csv
import ctypes
import json
import os
import subprocess
import sys

import pytest

import opemu
from conftest import ROOT, opemu_only, ops_nn_compile, run_program, toolkit
from opemu import paths, support
from opemu.core.headers import enum
from opemu.core.status import ACL, ACLNN

pytestmark = [opemu_only]
LIBRARIES = ROOT / "cmake" / "libraries.tsv"


def library_rows():
    """{library: its patterns} of cmake/libraries.tsv."""
    with open(LIBRARIES) as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip() and not line.startswith("#")]
    return {row[0]: row[1:] for row in rows}


def vendor_libraries():
    return list(library_rows())


def exported(library):
    out = subprocess.run(["nm", "-D", "--defined-only", str(opemu.prefix() / "lib64" / ("lib%s.so" % library))],
                         capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.split()[1:2] == ["T"]}


@pytest.mark.parametrize("library", vendor_libraries())
def test_each_vendor_library_exports_exactly_what_the_vendor_puts_in_it(library):
    table = support.entry_points()
    expected = {name for name, meta in table.items() if library in meta["libraries"]}
    assert bool(expected) == bool(library_rows()[library]), "lib%s.so exports nothing of its headers" % library
    assert exported(library) == expected


def test_the_lib_directory_holds_the_same_libraries():
    for library in vendor_libraries():
        assert (opemu.prefix() / "lib" / ("lib%s.so" % library)).is_file()


def operator_table():
    with open(ROOT / "cmake" / "surface" / "aclnn_ops.tsv", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def test_libopapi_exports_every_public_operator_pair_and_helper():
    expected = set()
    for row in operator_table():
        expected |= {row["name"], row["name"] + "GetWorkspaceSize"}
    with open(ROOT / "cmake" / "surface" / "aclnn_ops_other.tsv", newline="") as f:
        expected |= {row["name"] for row in csv.DictReader(f, delimiter="\t")}
    assert len(expected) == 2 * 1006 + 8
    assert exported("opapi") == expected


def test_each_operator_repository_library_exports_its_own_operators():
    for repository, library in (("hicann/ops-nn", "opapi_nn"), ("hicann/ops-math", "opapi_math"),
                                ("hicann/ops-transformer", "opapi_transformer"), ("hicann/ops-cv", "opapi_cv")):
        names = {row["name"] for row in operator_table() if row["repo"] == repository}
        symbols = exported(library)
        assert names <= symbols and {n + "GetWorkspaceSize" for n in names} <= symbols, library


def test_nnopbase_exports_the_fp16_t_members_with_the_vendor_mangled_names():
    with open(ROOT / "cmake" / "surface" / "fp16_t.tsv", newline="") as f:
        symbols = {row["symbol"] for row in csv.DictReader(f, delimiter="\t")}
    assert len(symbols) == 48
    assert symbols <= exported("nnopbase")


def test_operators_declared_by_header_get_the_vendor_header_name():
    headers = toolkit() / "include" / "aclnnop"
    for row in operator_table():
        if row["header"]:
            text = (headers / row["header"]).read_text()
            assert row["name"] + "GetWorkspaceSize(" in text and row["name"] + "(" in text


def unsupported_status(family):
    mcdnn = enum("mcdnn/mcdnn_ops_infer.h", "mcdnnStatus_t")
    mc = enum("mcr/mc_runtime_types.h", "mcError_t")
    return {"aclnn": ACLNN["ACLNN_ERR_RUNTIME_ERROR"], "acl": ACL["ACL_ERROR_API_NOT_SUPPORT"],
            "mcdnn": mcdnn["MCDNN_STATUS_NOT_SUPPORTED"], "mc": mc["mcErrorNotSupported"]}[family]


def first_unsupported(family, returns):
    for name, meta in sorted(support.c_entry_points().items()):
        if meta["family"] == family and meta["implemented_in"] == "none" and meta["returns"] == returns \
                and meta.get("declared", True):
            return name, meta
    pytest.skip("every %s function is implemented" % family)


CALL = r"""
import ctypes, json, sys
lib = ctypes.CDLL(sys.argv[1])
name, nargs = sys.argv[2], int(sys.argv[3])
function = getattr(lib, name)
function.restype = ctypes.c_int
function.argtypes = [ctypes.c_void_p] * nargs
first = function(*([None] * nargs))
second = function(*([None] * nargs))
lib.aclGetRecentErrMsg.restype = ctypes.c_char_p
getters = {"mcGetErrorString": "mcGetErrorString", "mcdnnGetErrorString": "mcdnnGetErrorString"}
texts = {}
for getter in getters:
    getattr(lib, getter).restype = ctypes.c_char_p
    texts[getter] = getattr(lib, getter)(first).decode()
lib.mcGetLastError.restype = ctypes.c_int
print(json.dumps({"status": [first, second], "recent": (lib.aclGetRecentErrMsg() or b"").decode(),
                  "texts": texts, "mc_last_error": lib.mcGetLastError()}))
"""


def call_unsupported(name, meta, env=None):
    """Calls `name` twice with null arguments in a fresh process; its outcome and stderr."""
    environment = dict(os.environ, **(env or {}))
    result = subprocess.run([sys.executable, "-c", CALL, str(paths.library()), name, str(len(meta["params"]))],
                            capture_output=True, text=True, env=environment, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout), result.stderr


@pytest.mark.parametrize("family, returns", [("aclnn", "aclnnStatus"), ("acl", "aclError"),
                                             ("mcdnn", "mcdnnStatus_t"), ("mc", "mcError_t")])
def test_a_not_supported_call_returns_its_familys_status_and_names_itself(family, returns):
    name, meta = first_unsupported(family, returns)
    outcome, stderr = call_unsupported(name, meta)
    status = unsupported_status(family)
    assert outcome["status"] == [status, status]
    named = "%s (%s) is not supported by opemu" % (name, meta["header"])
    assert named in outcome["recent"]
    if family == "mc":
        assert outcome["mc_last_error"] == status  # sticky, as every failed runtime call
        assert named in outcome["texts"]["mcGetErrorString"]
    if family == "mcdnn":
        assert outcome["texts"]["mcdnnGetErrorString"].startswith("MCDNN_STATUS_NOT_SUPPORTED: " + named)
    assert stderr.count("opemu: warning: " + named) == 1  # once per process, not per call


def test_not_supported_calls_are_flagged_in_the_trace(tmp_path):
    name, meta = first_unsupported("aclnn", "aclnnStatus")
    trace = tmp_path / "trace.jsonl"
    call_unsupported(name, meta, env={"OPEMU_TRACE": str(trace)})
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    flagged = [line for line in lines if json.dumps(line).find(name) >= 0]
    assert len(flagged) == 2 and all(line.get("args", line).get("not_supported") for line in flagged)
    assert all(line["status"] == unsupported_status("aclnn") for line in flagged)


UNSUPPORTED_PROGRAM = r"""
#include <cstdio>
#include "acl/acl.h"
#include "HEADER"
#include "aclnnop/aclnn_trans_matmul_weight.h"

int main()
{
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclnnStatus status = NAME(ARGUMENTS);
    const char *message = aclGetRecentErrMsg();
    printf("status %d\nmessage %s\n", (int)status, message ? message : "(none)");
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
"""


def test_a_program_calling_a_not_supported_operator_links_with_the_vendor_line_and_runs(tmp_path):
    name, meta = first_unsupported("aclnn", "aclnnStatus")
    source = tmp_path / "unsupported.cpp"
    source.write_text(UNSUPPORTED_PROGRAM.replace("HEADER", meta["header"]).replace("NAME", name)
                      .replace("ARGUMENTS", ", ".join(["{}"] * len(meta["params"]))))
    result = run_program(ops_nn_compile(source, tmp_path / "unsupported"))
    assert result.returncode == 0, result.stderr
    assert "status 361001" in result.stdout
    assert "%s (%s) is not supported" % (name, meta["header"]) in result.stdout


def public_headers():
    root = toolkit() / "include"
    headers = []
    for sub in ("acl", "aclnn", "aclnnop", "mcr", "mcdnn", "mcblas", "common"):
        for path in sorted((root / sub).rglob("*.h")):
            if path.parent.name != "level2":  # forwarding headers (tests/test_aclnnop_headers.py)
                headers.append(path.relative_to(root).as_posix())
    return headers


@pytest.mark.parametrize("language", ["c", "c++"])
def test_every_header_compiles_alone_with_wall_werror(language, tmp_path):
    """Each header is the only include of its translation unit (fp16_t.h is C++ only)."""
    root = toolkit() / "include"
    headers = [h for h in public_headers() if language == "c++" or "fp16_t" not in h and "bfloat16" not in h]
    standard = "-std=c99" if language == "c" else "-std=c++11"
    compiler = "gcc" if language == "c" else "g++"
    script = ('printf \'#include "%%s"\\n\' "$1" | %s -x %s %s -fsyntax-only -Wall -Wextra -Werror '
              '-I %s -I %s/aclnnop -I %s/aclnn - || echo "FAILED $1"' % (compiler, language, standard, root, root, root))
    result = subprocess.run(["xargs", "-P", "2", "-n", "1", "sh", "-c", script, "header"], input="\n".join(headers),
                            capture_output=True, text=True)
    failed = [line for line in result.stdout.splitlines() if line.startswith("FAILED")]
    assert failed == [], result.stderr[-4000:]


def test_the_implemented_list_names_exactly_the_registered_implementations():
    """implemented.py routes calls into Python at build time; the registries implement them at run time."""
    from opemu import implemented, ops
    from opemu.core.mcdnn import OPS as MCDNN_OPS
    from opemu.core.op import OPS
    from opemu.ops.mcblas import ROUTINES
    ops.load_all()
    assert implemented.aclnn_operators() == set(OPS)
    assert implemented.MCDNN == set(MCDNN_OPS)
    assert implemented.MCBLAS == set(ROUTINES)
    table = support.entry_points()
    assert {n for n, m in table.items() if m["implemented_in"] == "python"} == implemented.python_entry_points()

