"""Invalid OPEMU_* values are refused with a message: the tools stop with one line (exit 2), the
library says so on stderr and keeps the default."""
import subprocess
import sys

import pytest

from conftest import ROOT, opemu_only, run_program
from opemu import settings

pytestmark = [opemu_only]


@pytest.mark.parametrize("name,value", [("OPEMU_STREAM", "lazy"), ("OPEMU_STRICT", "yes"), ("OPEMU_DEVICE_COUNT", "0"),
                                        ("OPEMU_DEVICE_COUNT", "eight"), ("OPEMU_DEVICE_MEMORY_MB", "-5"),
                                        ("OPEMU_THREADS", "many"), ("OPEMU_SOC", "910B"), ("OPEMU_FAULT", "a b")])
def test_invalid_values_are_named(name, value):
    assert settings.problem(name, value).startswith("%s=%s is refused: expected " % (name, value))


@pytest.mark.parametrize("name,value", [("OPEMU_STREAM", "deferred"), ("OPEMU_STRICT", "0"), ("OPEMU_DEVICE_COUNT", "2"),
                                        ("OPEMU_SOC", "Ascend910_9391"), ("OPEMU_FAULT", "aclnnEmbedding,aclrtMalloc"),
                                        ("OPEMU_THREADS", "")])
def test_valid_values_pass(name, value):
    assert settings.problem(name, value) is None


def test_the_cli_refuses_before_running_anything():
    import os
    env = dict(os.environ, OPEMU_STREAM="lazy")
    result = subprocess.run([sys.executable, "-m", "opemu.cli", "run", str(ROOT / "samples" / "aclnn" / "embedding.cpp")],
                            capture_output=True, text=True, env=env)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == "opemu run: OPEMU_STREAM=lazy is refused: expected eager or deferred\n"


def test_the_library_refuses_with_a_line_and_keeps_the_default(probe):
    result = run_program(probe, "devices_and_contexts", env={"OPEMU_DEVICE_COUNT": "eight", "OPEMU_STRICT": "yes"})
    assert "PASS" in result.stdout  # 8 devices, no sanitizer
    assert "opemu: OPEMU_DEVICE_COUNT=eight is refused: expected an integer from 1 to 1024; using 8" in result.stderr
    assert "opemu: OPEMU_STRICT=yes is refused: expected 0 or 1; using 0" in result.stderr
