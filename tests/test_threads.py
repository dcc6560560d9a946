"""Host threads: several threads issuing operators on separate streams (and devices) at once give
bit-identical results to one thread doing the same work serially."""
import pytest

from conftest import ROOT, ops_nn_compile, run_program


@pytest.fixture(scope="module")
def threads_probe(build_dir):
    return ops_nn_compile(ROOT / "tests" / "c" / "threads_probe.cpp", build_dir / "threads_probe")


@pytest.mark.parametrize("mode", ["eager", "deferred"])
def test_concurrent_streams_match_serial_execution(threads_probe, mode):
    result = run_program(threads_probe, "4", "15", env={"OPEMU_STREAM": mode}, timeout=300)
    assert result.returncode == 0 and "PASS" in result.stdout, result.stdout + result.stderr
