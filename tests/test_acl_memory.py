"""AscendCL memory calls of caching allocators and frameworks, virtual memory, and the size
hardening of allocations and 2D copies, probed from C (tests/c/acl_memory_probe.cpp)."""
import re

import pytest

from conftest import ROOT, ops_nn_compile, run_program


@pytest.fixture(scope="module")
def memory_probe(build_dir):
    return ops_nn_compile(ROOT / "tests" / "c" / "acl_memory_probe.cpp", build_dir / "acl_memory_probe")


def probe_cases():
    source = (ROOT / "tests" / "c" / "acl_memory_probe.cpp").read_text()
    return sorted(re.findall(r'^    \{"(\w+)", \[\] \{', source, re.M))


@pytest.mark.parametrize("case", probe_cases())
def test_memory_behaviour(memory_probe, case):
    result = run_program(memory_probe, case)
    assert result.returncode == 0 and "PASS" in result.stdout, result.stdout + result.stderr


def test_every_case_is_collected(memory_probe):
    listed = run_program(memory_probe, "--list").stdout.split()
    assert listed == probe_cases()
