"""MACA runtime and mcDNN object behaviours (reference mcdnn.md §1c, §2, §5), probed from C built with the
MACA compile line against the prefix."""
import subprocess

import pytest

import opemu
from conftest import ROOT, run_program

CASES = {
    "malloc_free_and_sticky_errors": {},
    "error_names_and_strings": {},
    "memcpy_memset_and_meminfo": {},
    "streams_and_async_copies": {},
    "deferred_stream_runs_at_synchronisation": {"OPEMU_STREAM": "deferred"},
    "events": {},
    "devices": {},
    "mcdnn_library_and_handle": {},
    "tensor_descriptors": {},
    "activation_pooling_lrn_descriptors": {},
    "unimplemented_features_are_not_supported": {},
}


def maca_compile(source, output):
    """The MACA build line: g++ app.cpp -I$MACA_PATH/include -I$MACA_PATH/include/mcr -L$MACA_PATH/lib
    -lmcdnn -lmcruntime."""
    home = opemu.prefix()
    command = ["g++", str(source), "-Wall", "-o", str(output), "-I%s/include" % home, "-I%s/include/mcr" % home,
               "-L%s/lib" % home, "-lmcdnn", "-lmcruntime"]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr, result.stderr
    return output


@pytest.fixture(scope="session")
def mc_probe(build_dir):
    return maca_compile(ROOT / "tests" / "c" / "mc_probe.cpp", build_dir / "mc_probe")


@pytest.mark.parametrize("case", sorted(CASES))
def test_maca_behaviour(mc_probe, case):
    result = run_program(mc_probe, case, env=CASES[case])
    assert result.returncode == 0 and "PASS" in result.stdout, result.stdout + result.stderr


def test_every_probe_case_is_run(mc_probe):
    assert set(run_program(mc_probe, "--list").stdout.split()) == set(CASES)


def test_runtime_alone_never_starts_python(mc_probe):
    result = run_program(mc_probe, "memcpy_memset_and_meminfo", env={"OPEMU_PYTHONPATH": "/nonexistent",
                                                                     "PYTHONHOME": "/nonexistent"})
    assert "PASS" in result.stdout, result.stdout + result.stderr


def test_both_runtime_header_spellings_compile(tmp_path):
    source = tmp_path / "spellings.cpp"
    source.write_text('#include <mcr/mc_runtime_api.h>\n#include <mc_runtime.h>\n#include <mcdnn/mcdnn.h>\n'
                      'int main() { void *p = 0; mcError_t e = mcMalloc(&p, 4); mcFree(p); '
                      'return e == mcSuccess && mcdnnGetVersion() == MCDNN_VERSION ? 0 : 1; }\n')
    result = run_program(maca_compile(source, tmp_path / "spellings"))
    assert result.returncode == 0, result.stdout + result.stderr


SAMPLES = {  # sample: a line its output must hold
    "activation.cpp": "x[ 4] =  2.00  relu =  2.00  grad =  1.0",
    "softmax.cpp": "n=0  sum of softmax = 1.000000",
    "pooling.cpp": "max pooled y:",
    "lrn.cpp": "c=0 w=0  x = -2.50  lrn = -1.395872",
    "divisive_normalization.cpp": "(1,1)  x =   5  y = +0.000000",
}


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_sample_builds_with_the_maca_line_and_runs(build_dir, sample):
    executable = maca_compile(ROOT / "samples" / "mcdnn" / sample, build_dir / sample.replace(".cpp", ""))
    result = run_program(executable)
    assert result.returncode == 0, result.stdout + result.stderr
    assert SAMPLES[sample] in result.stdout, result.stdout


def test_pooling_sample_routes_each_gradient_to_its_windows_max(build_dir):
    result = run_program(maca_compile(ROOT / "samples" / "mcdnn" / "pooling.cpp", build_dir / "pooling_sample"))
    lines = result.stdout.splitlines()
    dx = lines[lines.index("dx (dy = 1 routed to each window's max):") + 1:]
    assert [row.split() for row in dx] == [["0", "0", "1", "0"], ["1", "0", "0", "0"], ["0", "1", "0", "1"],
                                           ["0", "0", "0", "0"]]


def test_a_synchronous_copy_waits_for_blocking_streams_only(build_dir):
    """mcMemcpy runs on the legacy default stream: it waits for work queued on streams created without
    mcStreamNonBlocking, not for the non-blocking ones (seen with OPEMU_STREAM=deferred, where a queued
    copy runs only at a synchronisation point)."""
    from conftest import compile_source, run_program
    output = compile_source(build_dir, "legacy_stream_copy", r'''#include <cstdio>
#include <mcr/mc_runtime.h>
int main() {
  int one = 1, two = 2, seen[2] = {0, 0};
  void *d[2];
  mcStream_t s[2];
  for (int i = 0; i < 2; i++) {
    mcMalloc(&d[i], sizeof(int));
    mcMemset(d[i], 0, sizeof(int));
    mcStreamCreateWithFlags(&s[i], i ? mcStreamNonBlocking : mcStreamDefault);
    mcMemcpyAsync(d[i], i ? &two : &one, sizeof(int), mcMemcpyHostToDevice, s[i]);
    mcMemcpy(&seen[i], d[i], sizeof(int), mcMemcpyDeviceToHost);
  }
  mcDeviceSynchronize();
  printf("%d %d\n", seen[0], seen[1]);
  return 0;
}
''', ["mcruntime"], library_dir="lib")
    assert run_program(output, env={"OPEMU_STREAM": "deferred"}).stdout.split() == ["1", "0"]
    assert run_program(output).stdout.split() == ["1", "2"]   # eager: every queued copy has run
