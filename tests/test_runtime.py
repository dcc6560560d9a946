"""AscendCL runtime and aclnn object behaviours (reference §2.8, §3.5, §7), probed from C."""
import re

import pytest

from conftest import run_program

CASES = {
    "init_repeat_and_finalize_codes": {},
    "finalize_reference_counts_down": {},
    "malloc_null_pointer_or_zero_size_is_invalid_param": {},
    "malloc_without_device_is_context_null": {},
    "malloc_rounds_up_32_plus_32_with_64_byte_start": {},
    "malloc_huge_first_above_1mib_maps_whole_2mib_pages": {},
    "get_mem_info_counts_mapped_bytes": {},
    "free_errors": {},
    "memcpy_checks": {},
    "memcpy_round_trip_and_default_kind": {},
    "memset_is_bytewise": {},
    "recent_error_message_is_cleared_when_read": {},
    "default_stream_is_nullptr": {},
    "destroyed_stream_is_rejected": {},
    "deferred_stream_runs_at_synchronisation": {"OPEMU_STREAM": "deferred"},
    "events_measure_elapsed_time": {},
    "callback_needs_a_subscribed_thread": {},
    "blocking_callback_runs_in_the_launching_threads_process_report": {},
    "blocking_callback_runs_in_the_launching_threads_process_report[deferred]": {"OPEMU_STREAM": "deferred"},
    "synchronizing_behind_this_threads_blocking_callback_fails_instead_of_waiting_for_ever": {},
    "synchronizing_behind_this_threads_blocking_callback_fails_instead_of_waiting_for_ever[deferred]":
        {"OPEMU_STREAM": "deferred"},
    "host_function_launches_onto_and_synchronizes_its_own_stream": {},
    "host_function_launches_onto_and_synchronizes_its_own_stream[deferred]": {"OPEMU_STREAM": "deferred"},
    "devices_and_contexts": {},
    "reset_device_releases_its_memory": {},
    "soc_name_and_device_info": {},
    "data_type_size_and_fp16": {},
    "data_buffer": {},
    "tensor_create_get_destroy": {},
    "scalars_arrays_and_lists": {},
    "phase_two_releases_the_executor": {},
    "repeatable_executor_runs_again_with_new_addresses": {},
    "phase_one_rejects_dead_and_foreign_tensors": {},
    "no_operator_never_starts_python": {},
    "app_log": {},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_runtime_behaviour(probe, case):
    result = run_program(probe, case.split("[")[0], env=CASES[case])  # "[...]": the same case in another setting
    assert result.returncode == 0 and "PASS" in result.stdout, result.stdout + result.stderr


def test_every_probe_case_is_run(probe):
    listed = set(run_program(probe).stdout.split())
    assert listed == {case.split("[")[0] for case in CASES}


def test_soc_name_follows_opemu_soc(probe):
    result = run_program(probe, "soc_name_and_device_info", env={"OPEMU_SOC": "Ascend910_9391",
                                                                 "EXPECTED_SOC": "Ascend910_9391"})
    assert "PASS" in result.stdout, result.stdout


def test_device_count_is_configurable(probe):
    result = run_program(probe, "devices_and_contexts", env={"OPEMU_DEVICE_COUNT": "2"})
    assert "aclrtGetDeviceCount" not in result.stdout
    assert "count == 2, expected 8" in result.stdout


def test_deferred_stream_defers_operators_too(probe):
    result = run_program(probe, "phase_two_releases_the_executor", env={"OPEMU_STREAM": "deferred"})
    assert "PASS" in result.stdout, result.stdout + result.stderr


LOG_LINE = re.compile(r"^\[(DEBUG|INFO|WARNING|ERROR)\] (APP|ASCENDCL)\(\d+,runtime_probe\):"
                      r"\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3} \[[^\]]+:\d+\]\d+ ")


@pytest.mark.parametrize("level,expected", [("1", ["INFO", "ERROR", "ERROR"]), ("3", ["ERROR", "ERROR"]), ("4", [])])
def test_log_lines_follow_the_vendor_format_and_level(probe, level, expected):
    result = run_program(probe, "app_log", env={"ASCEND_SLOG_PRINT_TO_STDOUT": "1", "ASCEND_GLOBAL_LOG_LEVEL": level})
    lines = [line for line in result.stdout.splitlines() if line.startswith("[")]
    assert all(LOG_LINE.match(line) for line in lines), lines
    assert [line[1:line.index("]")] for line in lines] == expected
    if expected:
        assert 'app_log' not in lines[0] or '"info from the app 1"' in lines[0]


def test_logs_stay_off_stdout_by_default(probe):
    result = run_program(probe, "app_log", env={"ASCEND_GLOBAL_LOG_LEVEL": "0"})
    assert not [line for line in result.stdout.splitlines() if line.startswith("[")]
