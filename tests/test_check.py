"""`opemu check -- ./app`: the sanitizer reports each kind of misuse with the call behind it, exits
non-zero when it found anything, and stays silent on a correct program."""
import subprocess
import sys

import pytest

from conftest import ROOT, ops_nn_compile, run_program, opemu_only

pytestmark = [opemu_only]

KINDS = ["use-after-free", "double-free", "invalid-free", "memcpy-kind", "out-of-bounds", "uninitialized-read",
         "unsynchronized-read", "executor-reuse", "invalid-handle", "leak"]


@pytest.fixture(scope="module")
def check_probe(build_dir):
    return ops_nn_compile(ROOT / "tests" / "c" / "check_probe.cpp", build_dir / "check_probe")


def opemu_check(*command):
    return subprocess.run([sys.executable, "-m", "opemu.cli", "check", "--", *map(str, command)],
                          capture_output=True, text=True, timeout=300)


def test_every_case_is_tested(check_probe):
    listed = run_program(check_probe).stdout.split()
    assert set(listed) == set(KINDS) | {"clean"}


def test_a_correct_program_has_no_findings(check_probe):
    result = opemu_check(check_probe, "clean")
    assert result.returncode == 0, result.stderr
    assert "opemu check: 0 finding(s); the program exited with 0" in result.stderr
    assert result.stderr.rstrip().endswith("ERROR SUMMARY: 0 errors")


@pytest.mark.parametrize("kind", KINDS)
def test_misuse_is_reported_with_its_call(check_probe, kind):
    result = opemu_check(check_probe, kind)
    assert result.returncode != 0
    findings = [line for line in result.stderr.splitlines() if line.startswith("opemu check: [")]
    assert {line.split("]")[0][len("opemu check: ["):] for line in findings} == {kind}, result.stderr
    if kind != "leak":  # leaks are found at aclFinalize, whose call carries no arguments of interest
        assert all("| call: {\"function\": " in line for line in findings)


def test_documented_sample_over_read_is_found(build_dir):
    result = opemu_check(ops_nn_compile(ROOT / "samples" / "aclnn" / "fused_linear_cross_entropy_loss_grad.cpp",
                                        build_dir / "flce_checked"))
    assert result.returncode != 0
    assert "[out-of-bounds] the copy's source: 4194304 bytes" in result.stderr
    assert '"function": "aclrtMemcpy"' in result.stderr


def test_without_check_defaults_stay_lenient(check_probe):
    for kind in ("out-of-bounds", "unsynchronized-read"):
        result = run_program(check_probe, kind)
        assert result.returncode == 0 and "opemu check" not in result.stdout + result.stderr
