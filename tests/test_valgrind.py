"""valgrind memcheck: no invalid reads or writes, and no definite leaks, from opemu's C part.

The embedded interpreter and NumPy have their own (suppressed-by-design) noise, so an error counts
when its innermost frame is in libopemu.so, and a leak when libopemu.so made the allocation. In CI a
subset runs (a sample that starts Python, and C-only probes); OPEMU_VALGRIND_ALL=1 runs every sample.
"""
import os
import shutil
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT, run_program, opemu_only
from opemu import cli


pytestmark = [opemu_only, pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")]
MEMORY_ERRORS = {"InvalidRead", "InvalidWrite", "InvalidFree", "MismatchedFree", "InvalidMemPool", "Overlap",
                 "SyscallParam", "UninitValue", "UninitCondition", "ClientCheck"}
ALLOCATORS = {"malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign", "strdup",
              "operator new[](unsigned long)", "operator new(unsigned long)"}


def ours(frames):
    return [fn for fn, obj in frames if "libopemu" in obj]


def findings(xml_path):
    problems = []
    for error in ET.parse(xml_path).getroot().findall("error"):
        kind = error.findtext("kind")
        frames = [(f.findtext("fn") or "?", f.findtext("obj") or "") for f in error.find("stack").findall("frame")]
        if kind in MEMORY_ERRORS:
            inner = [frame for frame in frames if frame[0] not in ALLOCATORS and "vgpreload" not in frame[1]]
            if inner and "libopemu" in inner[0][1]:
                problems.append("%s in %s" % (kind, " <- ".join(ours(frames)[:4])))
        elif kind == "Leak_DefinitelyLost":
            allocated = [frame for frame in frames if frame[0] not in ALLOCATORS and "vgpreload" not in frame[1]]
            if allocated and "libopemu" in allocated[0][1]:
                problems.append("definite leak from %s" % " <- ".join(ours(frames)[:4]))
    return problems


def memcheck(executable, tmp_path, *args):
    xml = tmp_path / ("%s.xml" % executable.name)
    command = ["valgrind", "--leak-check=full", "--errors-for-leak-kinds=definite", "--xml=yes",
               "--xml-file=%s" % xml, str(executable), *args]
    result = run_program(command[0], *command[1:], env={"PYTHONMALLOC": "malloc"}, timeout=900)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return findings(xml)


def test_a_sample_that_runs_an_operator(embedding_sample, tmp_path):
    assert memcheck(embedding_sample, tmp_path) == []


@pytest.mark.parametrize("case", ["tensor_create_get_destroy", "scalars_arrays_and_lists", "free_errors",
                                  "callback_needs_a_subscribed_thread", "repeatable_executor_runs_again_with_new_addresses"])
def test_runtime_probe_cases(probe, tmp_path, case):
    assert memcheck(probe, tmp_path, case) == []


@pytest.mark.skipif(os.environ.get("OPEMU_VALGRIND_ALL") != "1", reason="every sample: set OPEMU_VALGRIND_ALL=1")
def test_every_sample(build_dir, tmp_path):
    problems = {}
    for source in sorted((ROOT / "samples").rglob("*.cpp")):
        executable = cli.build(source)
        found = memcheck(executable, tmp_path)
        if found:
            problems[source.name] = found
    assert problems == {}
