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


def test_debug_level_logs_every_successful_call(probe, tmp_path):
    result = run_program(probe, "no_operator_never_starts_python",
                         env={"ASCEND_PROCESS_LOG_PATH": str(tmp_path), "ASCEND_GLOBAL_LOG_LEVEL": "0"})
    assert result.returncode == 0, result.stdout + result.stderr
    lines = plog_lines(tmp_path)
    calls = [line for line in lines if line.startswith("[DEBUG] ASCENDCL(") and ":success, call: {" in line]
    assert calls and all(LOG_LINE.match(line) for line in lines), lines
    assert any(' aclrtMalloc:success, call: {"function": "aclrtMalloc", "args": {"devPtr": ' in line
               for line in calls), calls


@pytest.fixture(scope="module")
def mcblas_logging_program(build_dir):
    return compile_source(build_dir, "mcblas_logging", r'''#include <cstdio>
#include <cstring>
#include <mcblas/mcblas.h>
static int messages;
static void on_message(const char *msg) { messages += strstr(msg, "mcblasGetVersion") != nullptr; }
int main(int argc, char **argv) {
    mcblasHandle_t h;
    int version;
    mcblasCreate(&h);
    if (argc > 1) {  // configured at run time: stdout, then a callback too, then off
        mcblasLogCallback cb = nullptr;
        if (mcblasLoggerConfigure(1, 1, 0, nullptr) || mcblasGetVersion(h, &version)) return 1;
        if (mcblasSetLoggerCallback(on_message) || mcblasGetLoggerCallback(&cb) || cb != on_message) return 2;
        mcblasGetVersion(h, &version);
        mcblasLoggerConfigure(0, 0, 0, nullptr);
        mcblasGetVersion(h, &version);
        if (mcblasGetLoggerCallback(nullptr) != MCBLAS_STATUS_INVALID_VALUE) return 3;
        printf("callback saw %d\n", messages);
    }
    mcblasDestroy(h);
    return 0;
}
''', ["mcblas", "mcruntime"], library_dir="lib")


def test_mcblas_info_log_lists_every_call(mcblas_logging_program):
    result = run_program(mcblas_logging_program, env={"MCBLAS_LOGINFO_DBG": "1", "MCBLAS_LOGDEST_DBG": "stdout"})
    called = [line for line in result.stdout.splitlines() if line.startswith("I! mcBLAS (v")]
    assert [line.split("function ")[1] for line in called] == ["mcblasCreate_v2() called:", "mcblasDestroy_v2() called:"] \
        or [line.split("function ")[1] for line in called] == ["mcblasCreate() called:", "mcblasDestroy() called:"], \
        result.stdout


def test_mcblas_logger_configure_and_callback_at_run_time(mcblas_logging_program):
    result = run_program(mcblas_logging_program, "runtime")
    assert result.returncode == 0, result.stdout + result.stderr
    logged = [line.split("function ")[1] for line in result.stdout.splitlines() if line.startswith("I! mcBLAS (v")]
    # two of the three mcblasGetVersion calls: the one after logging was turned off is not logged
    assert logged.count("mcblasGetVersion() called:") == 2, logged
    assert "callback saw 1" in result.stdout


def test_no_mcblas_log_without_a_destination(mcblas_logging_program):
    assert run_program(mcblas_logging_program, env={"MCBLAS_LOGINFO_DBG": "1"}).stdout == ""
