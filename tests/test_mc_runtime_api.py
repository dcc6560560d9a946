"""The MACA runtime calls frameworks make (managed and page-locked memory, pools, 2D and peer transfers,
device queries, peer access, stream attributes and callbacks, versions) and the size and span
hardening, probed from C++ built with the MACA line; the C++ overloads of mc_runtime.h compiled with
-Wall -Werror; the not-supported answer of device-code calls, with its message."""
import ctypes
import subprocess

import pytest

import opemu
from conftest import ROOT, opemu_only, run_program
from test_mc_runtime import maca_compile

DEFERRED = {"OPEMU_STREAM": "deferred"}
CASES = {
    "allocation_sizes_near_2_64_fail": {},
    "device_allocations_start_512_byte_aligned": {},
    "malloc_managed": {},
    "host_alloc_flags_and_device_pointer": {},
    "host_register_and_unregister": {},
    "pointer_attributes": {},
    "empty_2d_copy_checks_its_kind_first": {},
    "host_function_launches_onto_and_synchronizes_its_own_stream": {},
    "memcpy_2d": {},
    "memcpy_2d_spans_are_checked": {},
    "memcpy_default_checks_device_ranges": {},
    "memcpy_2d_async": {},
    "memset_2d": {},
    "malloc_async_and_the_default_pool": {},
    "pool_release_threshold_and_trim": {},
    "malloc_async_allocates_on_the_streams_device": {},
    "pool_errors": {},
    "device_attributes_match_properties": {},
    "device_properties": {},
    "pci_bus_ids": {},
    "peer_access": {},
    "memcpy_peer": {},
    "stream_flags_and_priorities": {},
    "stream_callbacks_and_host_functions": {},
    "event_record_with_flags_and_timing": {},
    "elapsed_time_not_ready_is_not_sticky": DEFERRED,
    "versions": {},
    "sticky_errors_survive_successes": {},
    "device_kernels_are_not_supported": {},
}
# Cases whose stream-ordered behaviour must also hold when tasks wait for a synchronisation.
ALSO_DEFERRED = ["stream_callbacks_and_host_functions", "host_function_launches_onto_and_synchronizes_its_own_stream", "malloc_async_and_the_default_pool", "memcpy_2d_async",
                 "memset_2d", "memcpy_peer"]


# The probe sources in tests/c/: memory and transfers in one, devices, streams and events in the other.
PROBES = ("mc_runtime_memory_probe", "mc_runtime_device_probe")


@pytest.fixture(scope="session")
def runtime_probe(build_dir):
    """{case: the probe executable that runs it}."""
    probes = {}
    for name in PROBES:
        executable = maca_compile(ROOT / "tests" / "c" / (name + ".cpp"), build_dir / name)
        probes.update(dict.fromkeys(run_program(executable, "--list").stdout.split(), executable))
    return probes


@pytest.mark.parametrize("case", sorted(CASES))
def test_runtime_call(runtime_probe, case):
    result = run_program(runtime_probe[case], case, env=CASES[case])
    assert result.returncode == 0 and "PASS" in result.stdout, result.stdout + result.stderr


@pytest.mark.parametrize("case", ALSO_DEFERRED)
def test_runtime_call_with_deferred_streams(runtime_probe, case):
    result = run_program(runtime_probe[case], case, env=DEFERRED)
    assert result.returncode == 0 and "PASS" in result.stdout, result.stdout + result.stderr


def test_every_runtime_probe_case_is_run(runtime_probe):
    assert set(runtime_probe) == set(CASES)


def test_cpp_overloads_compile_with_warnings_as_errors_and_run(build_dir):
    home = opemu.prefix()
    executable = build_dir / "mc_templates"
    command = ["g++", "-std=c++11", "-Wall", "-Wextra", "-Werror", str(ROOT / "tests" / "c" / "mc_templates.cpp"),
               "-o", str(executable), "-I%s/include" % home, "-I%s/include/mcr" % home, "-L%s/lib" % home,
               "-lmcruntime"]
    compiled = subprocess.run(command, capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
    result = run_program(executable)
    assert result.returncode == 0 and "PASS" in result.stdout, result.stdout + result.stderr


@opemu_only
def test_device_code_calls_say_kernels_are_not_emulated():
    lib = ctypes.CDLL(str(opemu.prefix() / "lib64" / "libopemu.so"))
    lib.aclGetRecentErrMsg.restype = ctypes.c_char_p
    attributes = ctypes.create_string_buffer(256)
    assert lib.mcFuncGetAttributes(attributes, attributes) == 801  # mcErrorNotSupported
    message = lib.aclGetRecentErrMsg().decode()
    assert "mcFuncGetAttributes" in message and "device kernels are not emulated" in message
    assert lib.mcGetLastError() == 801
