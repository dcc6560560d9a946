"""`opemu check` on MACA programs: the same findings as for CANN ones (reads of unwritten memory,
overruns of the requested size, double frees, an mcDNN routine writing past its allocation, a host
read of an mcDNN routine's output before its non-blocking stream is synchronised,
mcDNN objects never destroyed, a host dereference of device memory), and leaks reported at a
device reset as compute-sanitizer does."""
import subprocess

import pytest

from conftest import ROOT, compile_source, opemu_only, run_program, toolkit
from test_check import opemu_check

pytestmark = [opemu_only]

EXPECTED = {
    "uninitialized-read": ("uninitialized-read", '"function": "mcMemcpy"'),
    "out-of-bounds": ("out-of-bounds", "100 bytes past the 100 requested"),
    "double-free": ("double-free", "mcFree: "),
    "use-after-free": ("use-after-free", "mcMemcpy: src at "),
    "routine-overrun": ("out-of-bounds", "mcdnnActivationForward: y: 256 bytes"),
    "workspace-overrun": ("out-of-bounds", "mcdnnConvolutionForward: workSpace: "),
    "unsynchronized-read": ("unsynchronized-read", "is read while 1 write(s) to it wait on a stream"),
    "mcdnn-leak": ("leak", "1 mcdnnTensorDescriptor_t object(s) were never destroyed"),
    "mc-reset-leak": ("leak", '(64 bytes) was never freed, at the device\'s reset | call: {"function": "mcDeviceReset"'),
    "host-access": ("host-access", "the host dereferenced device memory at "),
}


@pytest.fixture(scope="module")
def mc_check_probe(build_dir):
    home, output = toolkit(), build_dir / "mc_check_probe"
    command = ["g++", str(ROOT / "tests" / "c" / "mc_check_probe.cpp"), "-Wall", "-o", str(output),
               "-I%s/include" % home, "-I%s/include/mcr" % home, "-L%s/lib" % home, "-lmcdnn", "-lmcruntime"]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return output


def test_every_case_is_tested(mc_check_probe):
    listed = run_program(mc_check_probe).stdout.split()
    assert set(listed) == set(EXPECTED) | {"clean"}


def test_host_dereference_of_device_memory_faults_as_on_the_device(mc_check_probe):
    result = opemu_check(mc_check_probe, "host-access")
    assert "the program exited with 139" in result.stderr and "read " not in result.stdout, result.stderr


def test_without_check_a_host_dereference_goes_through(mc_check_probe):
    assert "read 0" in run_program(mc_check_probe, "host-access").stdout  # lenient by default, as documented


def test_a_correct_maca_program_has_no_findings(mc_check_probe):
    result = opemu_check(mc_check_probe, "clean")
    assert result.returncode == 0 and "0 finding(s); the program exited with 0" in result.stderr, result.stderr


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_maca_misuse_is_found(mc_check_probe, case):
    kind, text = EXPECTED[case]
    result = opemu_check(mc_check_probe, case)
    findings = [line for line in result.stderr.splitlines() if line.startswith("opemu check: [")]
    assert result.returncode == 1 and {line.split("]")[0][len("opemu check: ["):] for line in findings} == {kind}, \
        result.stderr
    assert any(text in line for line in findings), result.stderr


def test_acl_leak_is_reported_at_aclrtResetDevice(build_dir):
    output = compile_source(build_dir, "acl_reset_leak", '#include "acl/acl.h"\nint main() {\n  void* d;\n'
                            '  aclInit(nullptr);\n  aclrtSetDevice(0);\n  aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST);\n'
                            '  aclrtResetDevice(0);\n  return (int)aclFinalize();\n}\n', ["ascendcl"])
    result = opemu_check(output)
    findings = [line for line in result.stderr.splitlines() if line.startswith("opemu check: [")]
    assert len(findings) == 1 and findings[0].startswith("opemu check: [leak] device memory at "), result.stderr
    assert '(64 bytes) was never freed, at the device\'s reset | call: {"function": "aclrtResetDevice"' in findings[0]


def test_a_finding_names_the_app_function_and_source_line(build_dir):
    home, source, output = toolkit(), build_dir / "double_free_g.cpp", build_dir / "double_free_g"
    source.write_text("#include <mc_runtime.h>\nint main() {\n    void *d;\n    mcMalloc(&d, 64);\n    mcFree(d);\n"
                      "    mcFree(d);  // line 6\n    return 0;\n}\n")
    subprocess.run(["g++", "-g", "-O0", str(source), "-o", str(output), "-I%s/include" % home,
                    "-I%s/include/mcr" % home, "-L%s/lib" % home, "-lmcruntime"], check=True)
    result = opemu_check(output)
    assert "opemu check: [double-free] mcFree: " in result.stderr, result.stderr
    assert "    at main (%s:6)" % source in result.stderr, result.stderr
