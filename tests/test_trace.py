"""OPEMU_TRACE: one JSON line per API call, and `opemu trace summarize`."""
import json
import subprocess
import sys

from conftest import run_program, opemu_only

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
