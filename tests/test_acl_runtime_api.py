"""AscendCL runtime calls frameworks make: last error, exception callbacks, op
timeouts, versions, stream configuration and attributes, host functions, event waits and
timestamps, device queries, peer access, host registration, pointer attributes, memory usage and
the allocator registry, probed from C (tests/c/acl_runtime_api_probe.cpp)."""
import re
import subprocess

import pytest

from conftest import ROOT, ops_nn_compile, run_program, toolkit

SOURCE = ROOT / "tests" / "c" / "acl_runtime_api_probe.cpp"
# Cases that need an environment of their own.
ENV = {
    "deferred_event_wait_is_pending_until_synchronised": {"OPEMU_STREAM": "deferred"},
    "device_uuid_utilization_and_capability": {"OPEMU_DEVICE_COUNT": "2"},
    "peer_access": {"OPEMU_DEVICE_COUNT": "2"},
}


@pytest.fixture(scope="module")
def api_probe(build_dir):
    return ops_nn_compile(SOURCE, build_dir / "acl_runtime_api_probe")


def probe_cases():
    return sorted(re.findall(r'^    \{"(\w+)", \[\] \{', SOURCE.read_text(), re.M))


@pytest.fixture
def version_files(tmp_path):
    """A toolkit home with version.info files: a release candidate, a dashed name, a malformed one."""
    for package, version in (("hccl", "8.5.0.rc2"), ("oam-tools", "7.0.1"), ("broken", "eight")):
        folder = tmp_path / "share" / "info" / package
        folder.mkdir(parents=True)
        (folder / "version.info").write_text("Version=%s\nversion_dir=x\n" % version)
    return tmp_path


@pytest.mark.parametrize("case", [c for c in probe_cases() if c != "versions_come_from_version_info_files"])
def test_runtime_api_behaviour(api_probe, case):
    result = run_program(api_probe, case, env=ENV.get(case))
    assert result.returncode == 0 and "PASS" in result.stdout, result.stdout + result.stderr


def test_versions_come_from_version_info_files(api_probe, version_files):
    result = run_program(api_probe, "versions_come_from_version_info_files", env={"ASCEND_HOME_PATH": str(version_files)})
    assert result.returncode == 0 and "PASS" in result.stdout, result.stdout + result.stderr


def test_every_case_is_collected(api_probe):
    assert run_program(api_probe, "--list").stdout.split() == probe_cases()


def test_cpp_overloads_of_acl_rt_api_forward(build_dir):
    program = ops_nn_compile(ROOT / "tests" / "c" / "acl_rt_api_probe.cpp", build_dir / "acl_rt_api_probe")
    result = run_program(program, "typed_and_timeout_overloads_forward")
    assert result.returncode == 0 and "PASS" in result.stdout, result.stdout + result.stderr


def test_compile_options_are_kept(build_dir):
    home, program = toolkit(), build_dir / "acl_op_compiler_probe"
    command = ["g++", str(ROOT / "tests" / "c" / "acl_op_compiler_probe.cpp"), "-Wall", "-Werror", "-o", str(program),
               "-I", "%s/include" % home, "-L", "%s/lib64" % home, "-lacl_op_compiler", "-lascendcl"]
    built = subprocess.run(command, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    result = run_program(program, "compile_options_are_kept")
    assert result.returncode == 0 and "PASS" in result.stdout, result.stdout + result.stderr
