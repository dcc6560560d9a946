import os
import subprocess
import tempfile
from pathlib import Path

import pytest

import opemu
from opemu import cli

ROOT = Path(__file__).resolve().parents[1]
# Portable conformance: the C-level tests can build and run against another implementation of the
# same ABI, e.g. a real toolkit, given its prefix. Tests of opemu's own switches are then skipped.
TARGET = os.environ.get("OPEMU_TARGET_PREFIX")
opemu_only = pytest.mark.skipif(TARGET is not None, reason="exercises opemu's own switches or tools")
# The vendor-style log files (plog) of the programs the tests run go to a scratch directory, not ~/ascend/log.
os.environ.setdefault("ASCEND_PROCESS_LOG_PATH", tempfile.mkdtemp(prefix="opemu-plog-"))


def toolkit():
    """The prefix the C-level tests build against: OPEMU_TARGET_PREFIX, or opemu's."""
    return Path(TARGET) if TARGET else opemu.prefix()


def ops_nn_compile(source, output):
    """The ops-nn example runner's g++ line (reference §6), against the toolkit under test."""
    home = toolkit()
    command = ["g++", str(source), "-Wall", "-o", str(output),
               "-I", "%s/include" % home, "-I", "%s/include/aclnnop" % home, "-I", "%s/include/aclnn" % home,
               "-L", "%s/lib64" % home, "-lopapi_nn", "-lopapi_math", "-lascendcl", "-lnnopbase", "-lpthread", "-ldl"]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr, result.stderr
    return output


def compile_source(build_dir, name, text, libraries, library_dir="lib64"):
    """A small C++ program a test writes out, built against the toolkit under test."""
    home = toolkit()
    source, output = build_dir / (name + ".cpp"), build_dir / name
    source.write_text(text)
    subprocess.run(["g++", str(source), "-o", str(output), "-I%s/include" % home, "-L%s/%s" % (home, library_dir),
                    *("-l" + library for library in libraries)], check=True)
    return output


def run_program(executable, *args, env=None, timeout=300):
    if TARGET and any(key.startswith("OPEMU_") for key in env or {}):
        pytest.skip("uses opemu's own switches")
    environment = dict(os.environ)
    environment.update(cli.environment(toolkit()))
    environment.update(env or {})
    return subprocess.run([str(executable), *args], capture_output=True, text=True, env=environment, timeout=timeout)


@pytest.fixture(scope="session")
def build_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("programs")


@pytest.fixture(scope="session")
def probe(build_dir):
    return ops_nn_compile(ROOT / "tests" / "c" / "runtime_probe.cpp", build_dir / "runtime_probe")


@pytest.fixture(scope="session")
def embedding_sample(build_dir):
    return ops_nn_compile(ROOT / "samples" / "aclnn" / "embedding.cpp", build_dir / "embedding")
