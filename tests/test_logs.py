"""Vendor-style logs: plog files under ASCEND_PROCESS_LOG_PATH (default ~/ascend/log) at the level
ASCEND_GLOBAL_LOG_LEVEL sets, and mcDNN's API log (MCDNN_LOGLEVEL_DBG, MCDNN_LOGERR_DBG / MCDNN_LOGINFO_DBG, cuDNN 8's
variables renamed) to MCDNN_LOGDEST_DBG or to the program's mcdnnSetCallback function, and mcBLASLt's logger
(MCBLASLT_LOG_LEVEL / _MASK / _FILE, the mcblasLtLogger* functions)."""
import re

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


CALLBACK_PROGRAM = r"""#include <mcdnn/mcdnn.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

static int calls;

static void report(mcdnnSeverity_t sev, void *udata, const mcdnnDebug_t *dbg, const char *msg)
{
    calls++;
    std::printf("sev=%d udata=%d status=%d version=%d own_pid=%d handle=%d device=%d\n", (int)sev, *(int *)udata,
                (int)dbg->mcdnnStatus, dbg->mcdnn_version == MCDNN_VERSION, dbg->pid == (unsigned long long)getpid(),
                dbg->handle != nullptr, dbg->mcDeviceId);
    for (const char *line = msg; *line; line += std::strlen(line) + 1)  /* lines end in \0, the message in \0\0 */
        std::printf("  %s\n", line);
    mcdnnTensorDescriptor_t inner;  /* what the callback calls is not reported */
    mcdnnCreateTensorDescriptor(&inner);
    mcdnnDestroyTensorDescriptor(inner);
}

int main(int argc, char **argv)
{
    unsigned mask = (unsigned)std::atoi(argv[1]);
    int tag = 7;
    unsigned got_mask = 99;
    void *got_udata;
    mcdnnCallback_t got_fptr;
    mcdnnGetCallback(&got_mask, &got_udata, &got_fptr);
    std::printf("initial mask=%u\n", got_mask);
    mcdnnSetCallback(mask, &tag, argc > 2 ? nullptr : report);
    mcdnnHandle_t handle;
    mcdnnCreate(&handle);
    mcdnnTensorDescriptor_t d;
    mcdnnCreateTensorDescriptor(&d);
    mcdnnSetTensor4dDescriptor(d, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, -1, 1, 1, 1);
    mcdnnSetStream(handle, (mcStream_t)0x1);
    mcdnnDestroyTensorDescriptor(d);
    mcdnnDestroy(handle);
    std::printf("calls=%d\n", calls);
    return 0;
}
"""


@pytest.fixture(scope="module")
def callback_program(build_dir):
    return compile_source(build_dir, "mccallback", CALLBACK_PROGRAM, ["mcdnn"], library_dir="lib")


def reports(stdout):
    return [line for line in stdout.splitlines() if line.startswith("sev=")]


def test_mcdnn_callback_gets_the_errors_its_mask_enables(callback_program):
    result = run_program(callback_program, "2")  # MCDNN_SEV_ERROR_EN
    assert result.returncode == 0, result.stderr
    assert reports(result.stdout) == ["sev=1 udata=7 status=3 version=1 own_pid=1 handle=0 device=0",
                                      "sev=1 udata=7 status=3 version=1 own_pid=1 handle=1 device=0"]
    lines = result.stdout.splitlines()
    first = lines.index(reports(result.stdout)[0])
    assert lines[first + 1].startswith("  E! mcDNN (v")
    assert lines[first + 1].endswith("function mcdnnSetTensor4dDescriptor() called:")
    assert lines[first + 2].startswith("  e!     Error: MCDNN_STATUS_BAD_PARAM; Reason: mcdnnSetTensor4dDescriptor: ")
    assert "mcdnnSetStream() called:" in result.stdout   # the second error names the handle it was given
    assert lines[-1] == "calls=2"


def test_mcdnn_callback_at_the_info_level_gets_every_call_but_its_own(callback_program):
    result = run_program(callback_program, "8")  # MCDNN_SEV_INFO_EN alone: successes only
    called = [line.split("function ")[1] for line in result.stdout.splitlines() if "called:" in line]
    assert called == ["mcdnnCreate() called:", "mcdnnCreateTensorDescriptor() called:",
                      "mcdnnDestroyTensorDescriptor() called:", "mcdnnDestroy() called:"]
    assert all(line.startswith("sev=3 ") for line in reports(result.stdout))


def test_mcdnn_callback_with_a_zero_mask_gets_nothing(callback_program):
    assert run_program(callback_program, "0").stdout.splitlines()[-1] == "calls=0"


def test_mcdnn_set_callback_without_a_function_logs_to_the_destination(callback_program):
    result = run_program(callback_program, "2", "builtin", env={"MCDNN_LOGDEST_DBG": "stdout"})
    called = [line.split("function ")[1] for line in result.stdout.splitlines() if "called:" in line]
    assert called == ["mcdnnSetTensor4dDescriptor() called:", "mcdnnSetStream() called:"]
    assert result.stdout.splitlines()[0] == "initial mask=0"


@pytest.mark.parametrize("env,mask", [({"MCDNN_LOGLEVEL_DBG": "1"}, 2), ({"MCDNN_LOGLEVEL_DBG": "2"}, 6),
                                      ({"MCDNN_LOGLEVEL_DBG": "9"}, 14), ({"MCDNN_LOGERR_DBG": "1"}, 2),
                                      ({"MCDNN_LOGINFO_DBG": "1"}, 14)])
def test_mcdnn_log_level_from_the_environment_is_the_initial_mask(callback_program, env, mask):
    result = run_program(callback_program, "0", env={**env, "MCDNN_LOGDEST_DBG": "stderr"})
    assert result.stdout.splitlines()[0] == "initial mask=%d" % mask


LT_LOGGER_PROGRAM = r"""#include <mcblas/mcblasLt.h>
#include <cstdio>
#include <cstdlib>

static void report(int level, const char *function, const char *message)
{
    std::printf("callback %d %s %s\n", level, function, message);
    mcblasLtHandle_t inner;  /* what the callback calls is not logged */
    mcblasLtCreate(&inner);
    mcblasLtDestroy(inner);
}

int main(int argc, char **argv)
{
    if (argc > 2)
        mcblasLtLoggerSetCallback(report);
    if (argc > 1)
        mcblasLtLoggerSetMask(std::atoi(argv[1]));
    if (argc > 3)
        mcblasLtLoggerForceDisable();
    mcblasLtHandle_t handle;
    mcblasLtCreate(&handle);
    mcblasLtMatrixLayoutCreate(nullptr, MACA_R_32F, 3, 4, 3);
    mcblasLtDestroy(handle);
    return 0;
}
"""
LT_LINE = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\]\[mcblasLt\]\[\d+\]\[(\w+)\]\[(\w+)\] (.*)$")


@pytest.fixture(scope="module")
def lt_logger_program(build_dir):
    return compile_source(build_dir, "ltlogger", LT_LOGGER_PROGRAM, ["mcblasLt", "mcblas"], library_dir="lib")


def lt_lines(text):
    return [LT_LINE.match(line).groups() for line in text.splitlines() if LT_LINE.match(line)]


def test_mcblaslt_logger_error_level_logs_failures_with_their_reason(lt_logger_program):
    result = run_program(lt_logger_program, env={"MCBLASLT_LOG_LEVEL": "1"})
    assert lt_lines(result.stdout) == [("Error", "mcblasLtMatrixLayoutCreate",
                                        "mcblasLtMatrixLayoutCreate: matLayout is null")]


def test_mcblaslt_logger_api_trace_mask_logs_every_call_to_the_callback_and_file(lt_logger_program, tmp_path):
    log = tmp_path / "lt.log"
    result = run_program(lt_logger_program, "16", "callback", env={"MCBLASLT_LOG_FILE": str(log)})
    called = [line.split()[2] for line in result.stdout.splitlines() if line.startswith("callback 5 ")]
    assert called == ["mcblasLtCreate", "mcblasLtMatrixLayoutCreate", "mcblasLtDestroy"]
    assert [(level, function) for level, function, _ in lt_lines(log.read_text())] == [
        ("Api", "mcblasLtCreate"), ("Api", "mcblasLtMatrixLayoutCreate"), ("Api", "mcblasLtDestroy")]
    assert '"rows": 3' in log.read_text()


def test_mcblaslt_logger_is_silent_without_a_mask_and_after_force_disable(lt_logger_program):
    assert lt_lines(run_program(lt_logger_program).stdout) == []
    result = run_program(lt_logger_program, "31", "callback", "off")
    assert lt_lines(result.stdout) == [] and "callback" not in result.stdout
