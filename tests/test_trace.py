"""OPEMU_TRACE: one JSON line per API call, and `opemu trace summarize`."""
import json
import subprocess
import sys

import pytest

from conftest import run_program, opemu_only, toolkit

pytestmark = [opemu_only]


def test_trace_records_every_call_with_tensor_shapes(embedding_sample, tmp_path):
    trace = tmp_path / "trace.jsonl"
    assert run_program(embedding_sample, env={"OPEMU_TRACE": str(trace)}).returncode == 0
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    names = [r["function"] for r in records]
    assert names[:3] == ["aclInit", "aclrtSetDevice", "aclrtCreateStream"]
    assert names[-1] == "aclFinalize"
    phase1 = records[names.index("aclnnEmbeddingGetWorkspaceSize")]
    assert phase1["status"] == 0
    assert phase1["args"]["weight"]["shape"] == [5, 3] and phase1["args"]["weight"]["strides"] == [3, 1]
    assert phase1["args"]["indices"]["dtype"] == 9  # ACL_INT64
    assert records[names.index("aclrtMalloc")]["args"]["size"] == 60
    assert all(r["duration_us"] >= 0 and r["thread"] > 0 for r in records)


def test_trace_records_failures(probe, tmp_path):
    trace = tmp_path / "trace.jsonl"
    run_program(probe, "free_errors", env={"OPEMU_TRACE": str(trace)})
    frees = [json.loads(line) for line in trace.read_text().splitlines() if '"aclrtFree"' in line]
    assert [f["status"] for f in frees] == [0, 107000, 100000, 107000, 107000]


def test_summarize_counts_failures_and_time(probe, tmp_path):
    trace = tmp_path / "trace.jsonl"
    run_program(probe, "free_errors", env={"OPEMU_TRACE": str(trace)})
    out = subprocess.run([sys.executable, "-m", "opemu.cli", "trace", "summarize", str(trace)],
                         capture_output=True, text=True).stdout
    line = next(l for l in out.splitlines() if l.startswith("aclrtFree "))
    assert line.split()[1:3] == ["5", "4"]
    assert "107000 ACL_ERROR_RT_PARAM_INVALID x3" in line and "100000 ACL_ERROR_INVALID_PARAM x1" in line


def test_no_trace_file_without_the_variable(embedding_sample, tmp_path):
    result = run_program(embedding_sample, env={"OPEMU_TRACE": ""})
    assert result.returncode == 0


NAMED_CALLS = r"""
#include <cstdio>
#include "acl/acl.h"
#include "aclnnop/aclnn_embedding.h"
#include "mcr/mc_runtime.h"
#include "mcdnn/mcdnn.h"
#include "mcblas/mcblas.h"

int main()
{
    uint64_t size = 0;
    aclOpExecutor *executor = nullptr;
    mcdnnTensorDescriptor_t desc = nullptr;
    int device = 0;
    std::printf("%d\n", aclrtSetDevice(0));
    std::printf("%d\n", aclnnEmbeddingGetWorkspaceSize(nullptr, nullptr, nullptr, &size, &executor));
    std::printf("%d\n", aclrtMemcpy(&size, 8, &device, 4, ACL_MEMCPY_HOST_TO_HOST));
    std::printf("%d\n", mcGetDevice(nullptr));
    std::printf("%d\n", mcdnnCreateTensorDescriptor(&desc));
    std::printf("%d\n", mcdnnSetTensor4dDescriptor(desc, MCDNN_TENSOR_NHWC, MCDNN_DATA_HALF, 1, 2, 3, 4));
    std::printf("%d\n", mcdnnFusedOpsExecute(nullptr, nullptr, nullptr));
    std::printf("%d\n", mcblasCreate(nullptr));
    return 0;
}
"""


def compiled(build_dir, name, text, libraries):
    """A C++ program of `text`, built against the toolkit's headers and `libraries`."""
    home = toolkit()
    source, program = build_dir / (name + ".cpp"), build_dir / name
    source.write_text(text)
    subprocess.run(["g++", str(source), "-o", str(program), "-I%s/include" % home, "-I%s/include/mcr" % home,
                    "-L%s/lib64" % home] + ["-l" + library for library in libraries], check=True)
    return program


@pytest.fixture(scope="module")
def named_calls(build_dir):
    return compiled(build_dir, "named_calls", NAMED_CALLS,
                    ["opapi_nn", "ascendcl", "nnopbase", "mcdnn", "mcblas", "mcruntime"])


def test_trace_names_statuses_of_every_family_and_enum_arguments(named_calls, tmp_path):
    trace = tmp_path / "trace.jsonl"
    assert run_program(named_calls, env={"OPEMU_TRACE": str(trace)}).returncode == 0
    records = {r["function"]: r for r in map(json.loads, trace.read_text().splitlines())}
    named = {f: (r["status"], r.get("status_name")) for f, r in records.items()}
    assert named["aclrtSetDevice"] == (0, "ACL_SUCCESS")
    assert named["aclnnEmbeddingGetWorkspaceSize"] == (161001, "ACLNN_ERR_PARAM_NULLPTR")
    assert named["mcGetDevice"] == (1, "mcErrorInvalidValue")
    assert named["mcdnnSetTensor4dDescriptor"] == (0, "MCDNN_STATUS_SUCCESS")
    assert named["mcdnnFusedOpsExecute"] == (9, "MCDNN_STATUS_NOT_SUPPORTED")  # a not-supported function too
    assert named["mcblasCreate"] == (7, "MCBLAS_STATUS_INVALID_VALUE")
    memcpy = records["aclrtMemcpy"]
    assert memcpy["args"]["kind"] == 0 and memcpy["arg_names"] == {"kind": "ACL_MEMCPY_HOST_TO_HOST"}
    tensor = records["mcdnnSetTensor4dDescriptor"]
    assert tensor["args"]["format"] == 1 and tensor["args"]["dataType"] == 2  # the numbers stay
    assert tensor["arg_names"] == {"format": "MCDNN_TENSOR_NHWC", "dataType": "MCDNN_DATA_HALF"}
    assert "arg_names" not in records["mcdnnCreateTensorDescriptor"]  # no enum argument: no names


VALUES_AND_OUTPUTS = r"""
#include <cstdio>
#include <cstring>
#include "acl/acl.h"
#include "acl/acl_op_compiler.h"

int main()
{
    aclFloat16 half = aclFloatToFloat16(1.5f);
    float back = aclFloat16ToFloat(half);
    size_t size = aclGetCompileoptSize(ACL_OP_JIT_COMPILE);
    char value[64];
    std::memset(value, 'x', sizeof value);  // unterminated until the call fills it
    aclError rc = aclGetCompileopt(ACL_OP_JIT_COMPILE, value, sizeof value);
    std::memset(value, 'x', sizeof value);
    aclError short_rc = aclGetCompileopt(ACL_OP_JIT_COMPILE, value, 2);  // too short: fails, writes nothing
    std::printf("%g %zu %d %d\n", back, size, rc, short_rc);
    return 0;
}
"""


@pytest.fixture(scope="module")
def values_and_outputs(build_dir):
    return compiled(build_dir, "values_and_outputs", VALUES_AND_OUTPUTS, ["ascendcl", "acl_op_compiler"])


def test_a_call_that_returns_a_value_is_no_failure(values_and_outputs, tmp_path):
    trace = tmp_path / "trace.jsonl"
    result = run_program(values_and_outputs, env={"OPEMU_TRACE": str(trace)})
    assert result.returncode == 0 and result.stdout.split()[:3] == ["1.5", "256", "0"], result.stdout + result.stderr
    records = {r["function"]: r for r in map(json.loads, trace.read_text().splitlines())}
    assert records["aclFloatToFloat16"]["status"] == 0 and records["aclFloatToFloat16"]["returned"] == 0x3E00
    assert records["aclFloat16ToFloat"]["status"] == 0 and records["aclFloat16ToFloat"]["returned"] == 1.5
    assert records["aclGetCompileoptSize"]["status"] == 0 and records["aclGetCompileoptSize"]["returned"] == 256
    out = subprocess.run([sys.executable, "-m", "opemu.cli", "trace", "summarize", str(trace)],
                         capture_output=True, text=True).stdout
    for function in ("aclFloatToFloat16", "aclFloat16ToFloat", "aclGetCompileoptSize"):
        assert next(line for line in out.splitlines() if line.startswith(function + " ")).split()[1:3] == ["1", "0"]
    assert "5 calls, 1 failed" in out  # the too-short buffer


def test_an_output_buffer_is_logged_after_the_call(values_and_outputs, tmp_path):
    trace = tmp_path / "trace.jsonl"
    assert run_program(values_and_outputs, env={"OPEMU_TRACE": str(trace)}).returncode == 0
    filled, failed = [json.loads(line) for line in trace.read_text().splitlines() if '"aclGetCompileopt"' in line]
    assert filled["args"]["value"] == "disable" and filled["args"]["length"] == 64
    assert failed["status"] != 0 and failed["args"]["value"].startswith("0x")  # not read: where it is


def test_summarize_takes_status_names_from_the_trace(tmp_path):
    trace = tmp_path / "trace.jsonl"
    record = {"function": "aclrtFree", "args": {}, "status": 107000, "duration_us": 1.0, "thread": 1}
    trace.write_text(json.dumps(record) + "\n" + json.dumps(dict(record, status=123, status_name="A_NAME")) + "\n")
    out = subprocess.run([sys.executable, "-m", "opemu.cli", "trace", "summarize", str(trace)],
                         capture_output=True, text=True).stdout
    line = next(l for l in out.splitlines() if l.startswith("aclrtFree "))
    assert "123 A_NAME x1" in line  # the record's own name
    assert "107000 ACL_ERROR_RT_PARAM_INVALID x1" in line  # an older record without one: from the headers
