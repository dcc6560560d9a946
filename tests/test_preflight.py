"""The preflight (`opemu doctor`, and before `run`/`exec`/`check`): which calls of a program opemu
implements, which it declares as not supported, and which would not resolve."""
import json
import subprocess
import sys

import pytest

from conftest import ROOT, opemu_only, toolkit

pytestmark = [opemu_only]


def opemu_cli(*args):
    return subprocess.run([sys.executable, "-m", "opemu.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def program(build_dir):
    """Built as against another toolkit whose libacl_op_compiler.so has a function opemu's lacks: the
    stand-in library lends the linker that symbol under that soname (the linker takes one library
    per soname, so it must be one the program does not otherwise link)."""
    home = toolkit()
    stub_source, stub = build_dir / "stub.c", build_dir / "libstub.so"
    stub_source.write_text("int aclrtNoSuchCallAnywhere(int x) { return x; }\n")
    subprocess.run(["gcc", "-shared", "-fPIC", str(stub_source), "-o", str(stub), "-Wl,-soname,libacl_op_compiler.so"],
                   check=True)
    output = build_dir / "preflight_probe"
    command = ["g++", str(ROOT / "tests" / "c" / "preflight_probe.cpp"), "-o", str(output), "-I%s/include" % home,
               "-L%s/lib64" % home, "-lopapi_nn", "-lopapi_math", "-lascendcl", "-lnnopbase", str(stub)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return output


def test_doctor_sorts_implemented_not_supported_and_unresolved(program):
    result = opemu_cli("doctor", "--json", program)
    report = json.loads(result.stdout)
    assert [e["symbol"] for e in report["not_supported"]] == ["aclDumpOpTensors"]
    assert [e["symbol"] for e in report["unresolved"]] == ["aclrtNoSuchCallAnywhere"]
    assert "no vendor header" in report["unresolved"][0]["reason"]
    assert "aclrtMalloc" in [e["symbol"] for e in report["implemented"]]
    assert not report["loads"] and result.returncode == 1


def test_doctor_text_names_each_class_and_says_what_would_fail(program):
    text = opemu_cli("doctor", program).stdout
    assert "implemented:   aclrtMalloc (acl/acl_rt.h)" in text or "implemented:   aclrtMalloc (" in text
    assert "not supported: aclDumpOpTensors (aclnn/acl_meta.h)" in text
    assert "unresolved:    aclrtNoSuchCallAnywhere" in text
    assert text.rstrip().endswith("the program would stop with 'symbol lookup error' at the first unresolved call "
                                  "(at load when bound now)")


def test_a_program_calling_only_implemented_functions_loads(embedding_sample):
    result = opemu_cli("doctor", "--brief", embedding_sample)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 not supported, 0 unresolved" in result.stdout and "every call resolves" in result.stdout


def test_exec_prints_the_preflight_before_running(program):
    result = opemu_cli("exec", "--", program)
    assert "not supported: aclDumpOpTensors" in result.stderr
    assert "unresolved:    aclrtNoSuchCallAnywhere" in result.stderr
    assert "malloc " in result.stdout  # lazy binding: the program runs until it calls the unknown symbol


def test_check_and_exec_can_skip_it(program):
    assert "preflight" not in opemu_cli("exec", "--no-preflight", "--", program).stderr
    assert "preflight" not in opemu_cli("check", "--no-preflight", "--", program).stderr


def test_doctor_on_a_missing_file_is_one_line():
    result = opemu_cli("doctor", "/nonexistent/app")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_the_generated_table_decides_by_implemented_in_and_libraries(program, monkeypatch):
    """The table format after not-supported shims moved to C: "none" entries are not supported,
    "launch" (an implemented op's phase 2) is implemented, and "libraries" names the exporters."""
    from opemu import cli, preflight
    table = {
        "aclrtMalloc": {"header": "acl/acl_rt.h", "family": "acl", "implemented_in": "c", "libraries": ["ascendcl"]},
        "aclDumpOpTensors": {"header": "aclnn/acl_meta.h", "family": "aclnn", "implemented_in": "none",
                             "libraries": ["nnopbase"]},
        "aclrtNoSuchCallAnywhere": {"header": "acl/acl_rt.h", "family": "acl", "implemented_in": "launch",
                                    "libraries": ["acl_rt"]},
    }
    monkeypatch.setattr(preflight, "entry_points", lambda prefix=None: table)
    report = preflight.inspect(program, cli.run_environment())
    assert [e["symbol"] for e in report["implemented"]] == ["aclrtMalloc"]
    assert [e["symbol"] for e in report["not_supported"]] == ["aclDumpOpTensors"]
    assert report["unresolved"][0]["reason"] == "exported by libacl_rt.so, which the program does not load"
