"""Vendor-style logs: plog files under ASCEND_PROCESS_LOG_PATH (default ~/ascend/log) at the level
ASCEND_GLOBAL_LOG_LEVEL sets, and mcDNN's API log (MCDNN_LOGERR_DBG / MCDNN_LOGINFO_DBG, cuDNN 8's
variables renamed) to MCDNN_LOGDEST_DBG."""
import pytest

from conftest import compile_source, opemu_only, run_program
from test_runtime import LOG_LINE

pytestmark = [opemu_only]


def plog_lines(root):
    files = list((root / "debug" / "plog").glob("plog-*_*.log"))
    assert len(files) <= 1
    return files[0].read_text().splitlines() if files else []


@pytest.mark.parametrize("level,expected", [(None, ["ERROR", "ERROR"]), ("1", ["INFO", "ERROR", "ERROR"]), ("4", [])])
def test_plog_file_per_process_at_the_level_set(probe, tmp_path, level, expected):
    env = {"ASCEND_PROCESS_LOG_PATH": str(tmp_path)}
    if level:
        env["ASCEND_GLOBAL_LOG_LEVEL"] = level
    result = run_program(probe, "app_log", env=env)
    assert result.returncode == 0 and "[" not in result.stdout
    lines = plog_lines(tmp_path)
    assert [line[1:line.index("]")] for line in lines] == expected
    assert all(LOG_LINE.match(line) for line in lines), lines


def test_plog_defaults_to_home_ascend_log(probe, tmp_path):
    env = {"HOME": str(tmp_path), "ASCEND_PROCESS_LOG_PATH": ""}
    run_program(probe, "app_log", env=env)
    assert len(plog_lines(tmp_path / "ascend" / "log")) == 2


@pytest.fixture(scope="module")
def bad_descriptor_program(build_dir):
    return compile_source(build_dir, "mcbad", "#include <mcdnn/mcdnn.h>\nint main() {\n  mcdnnTensorDescriptor_t d;\n"
                          "  mcdnnCreateTensorDescriptor(&d);\n"
                          "  mcdnnSetTensor4dDescriptor(d, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, -1, 1, 1, 1);\n"
                          "  mcdnnDestroyTensorDescriptor(d);\n  return 0;\n}\n", ["mcdnn"], library_dir="lib")


def test_mcdnn_error_log_names_the_call_status_and_reason(bad_descriptor_program):
    result = run_program(bad_descriptor_program, env={"MCDNN_LOGERR_DBG": "1", "MCDNN_LOGDEST_DBG": "stdout"})
    lines = result.stdout.splitlines()
    assert lines[0].startswith("E! mcDNN (v") and lines[0].endswith("function mcdnnSetTensor4dDescriptor() called:")
    assert lines[1].startswith("e!     Error: MCDNN_STATUS_BAD_PARAM; Reason: mcdnnSetTensor4dDescriptor: ")
    assert not any("mcdnnCreateTensorDescriptor" in line for line in lines)  # successes only at the info level


def test_mcdnn_info_log_lists_every_call_to_a_file(bad_descriptor_program, tmp_path):
    log = tmp_path / "mcdnn.log"
    run_program(bad_descriptor_program, env={"MCDNN_LOGINFO_DBG": "1", "MCDNN_LOGDEST_DBG": str(log)})
    called = [line for line in log.read_text().splitlines() if "called:" in line]
    assert [line.split("function ")[1] for line in called] == [
        "mcdnnCreateTensorDescriptor() called:", "mcdnnSetTensor4dDescriptor() called:",
        "mcdnnDestroyTensorDescriptor() called:"]


def test_no_mcdnn_log_without_a_destination(bad_descriptor_program):
    assert run_program(bad_descriptor_program, env={"MCDNN_LOGERR_DBG": "1"}).stdout == ""
