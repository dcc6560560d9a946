"""The commands a user touches first: one line and an exit status for ordinary mistakes, help for
every subcommand and option, samples with progress/time/JSON/JUnit, the sanitizer's usual options."""
import json
import subprocess
import sys
from xml.etree import ElementTree

import pytest

from conftest import ROOT, opemu_only

pytestmark = [opemu_only]


def opemu_cli(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "opemu.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=600, **kwargs)


def one_line_error(result, status):
    assert result.returncode == status, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("opemu ")


def test_version():
    import opemu
    assert opemu_cli("--version").stdout.strip() == "opemu %s" % opemu.__version__


def test_every_subcommand_and_option_has_help():
    from opemu import cli
    parser = cli.parser()
    subcommands = parser._subparsers._group_actions[0]
    helped = {action.dest: action.help for action in subcommands._choices_actions}
    assert set(helped) == set(subcommands.choices) and all(helped.values())
    for name, sub in subcommands.choices.items():
        for action in sub._actions:
            if action.dest not in ("help", "func"):
                assert action.help or action.dest == "trace_command", (name, action.dest)


def test_missing_source_is_one_line():
    one_line_error(opemu_cli("run", "/nonexistent/app.cpp"), 2)


def test_compile_error_is_one_line_after_the_compiler_output(tmp_path):
    source = tmp_path / "broken.cpp"
    source.write_text("int main() { return undeclared; }\n")
    result = opemu_cli("run", source)
    one_line_error(result, 3)
    assert "undeclared" in result.stderr


def test_timeout_is_one_line(tmp_path):
    source = tmp_path / "sleepy.cpp"
    source.write_text("#include <unistd.h>\nint main() { sleep(30); return 0; }\n")
    one_line_error(opemu_cli("run", "--timeout", "1", source), 124)


def test_a_program_killed_by_a_signal_is_named_with_it(tmp_path):
    source = tmp_path / "crash.cpp"
    source.write_text("#include <signal.h>\nint main() { raise(SIGSEGV); return 0; }\n")
    result = opemu_cli("run", source)
    assert result.returncode == 139
    assert result.stderr.strip().splitlines()[-1] == "opemu run: %s: Segmentation fault (signal 11)" % source


def test_timeout_names_the_source_not_the_built_executable(tmp_path):
    source = tmp_path / "sleepy.cpp"
    source.write_text("#include <unistd.h>\nint main() { sleep(30); return 0; }\n")
    result = opemu_cli("run", "--timeout", "1", source)
    assert result.stderr.strip().splitlines()[-1] == "opemu run: %s: timed out after 1 s" % source


def test_exec_timeout():
    one_line_error(opemu_cli("exec", "--timeout", "1", "--", "sleep", "30"), 124)
    assert opemu_cli("exec", "--timeout", "30", "--", "sh", "-c", "exit 3").returncode == 3


def test_samples_filter_matching_nothing_is_an_error():
    result = opemu_cli("samples", "-k", "no-sample-has-this-name")
    one_line_error(result, 2)
    assert "no-sample-has-this-name" in result.stderr


def test_support_answers_for_the_functions_named():
    result = opemu_cli("support", "aclnnAdd", "aclrtMalloc")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "aclnnAdd: implemented (C launcher)" in lines and "  vendor folder: hicann/ops-math math/" in lines
    assert "aclrtMalloc: implemented (C)" in lines and "  header: acl/acl_rt.h" in lines
    unknown = opemu_cli("support", "aclrtNoSuchFunction")
    assert unknown.returncode == 1 and "aclrtNoSuchFunction: not declared" in unknown.stdout


def test_unknown_command_for_exec_and_check():
    one_line_error(opemu_cli("exec", "--", "no-such-command-here"), 127)
    one_line_error(opemu_cli("check", "--", "no-such-command-here"), 127)


def test_bad_trace_file_is_one_line(tmp_path):
    bad = tmp_path / "trace.jsonl"
    bad.write_text('{"function": "aclInit", "status": 0, "duration_us": 1}\nnot json\n')
    result = opemu_cli("trace", "summarize", bad)
    one_line_error(result, 2)
    assert "trace.jsonl:2:" in result.stderr
    one_line_error(opemu_cli("trace", "summarize", tmp_path / "missing"), 2)


def test_samples_progress_times_json_and_junit(tmp_path):
    result = opemu_cli("samples", "-k", "embedding.cpp", "--json", tmp_path / "r.json", "--junit", tmp_path / "r.xml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "[1/1] aclnn/embedding.cpp ... pass (" in result.stderr
    assert "time s" in result.stdout.splitlines()[0]
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["passed"] == 1 and report["samples"][0]["result"] == "pass" and report["samples"][0]["seconds"] > 0
    suite = ElementTree.parse(tmp_path / "r.xml").getroot()
    assert suite.tag == "testsuite" and suite.get("tests") == "1" and suite.get("failures") == "0"
    assert suite.find("testcase").get("name") == "aclnn/embedding.cpp"


@pytest.fixture(scope="module")
def check_probe_source():
    return ROOT / "tests" / "c" / "check_probe.cpp"


def test_check_accepts_a_source_file_like_run(check_probe_source):
    result = opemu_cli("check", "--", check_probe_source, "clean")
    assert result.returncode == 0 and "0 finding(s)" in result.stderr, result.stdout + result.stderr


def test_check_tool_selects_kinds_and_error_exitcode(check_probe_source):
    leak = opemu_cli("check", "--tool", "leakcheck", "--error-exitcode", "7", "--", check_probe_source, "leak")
    assert leak.returncode == 7 and "[leak]" in leak.stderr
    only_init = opemu_cli("check", "--tool", "initcheck", "--", check_probe_source, "leak")
    assert only_init.returncode == 0 and "0 finding(s)" in only_init.stderr


def test_check_leak_check_no_drops_leaks(check_probe_source):
    result = opemu_cli("check", "--leak-check", "no", "--", check_probe_source, "leak")
    assert result.returncode == 0 and "ERROR SUMMARY: 0 errors" in result.stderr, result.stderr


def test_check_keeps_stdout_the_programs(check_probe_source):
    """Findings and the summary go to stderr: stdout holds only what the program writes, with or without
    --json."""
    plain = opemu_cli("check", "--", check_probe_source, "memcpy-kind")
    as_json = opemu_cli("check", "--json", "--", check_probe_source, "memcpy-kind")
    assert "opemu check" not in plain.stdout and "opemu check" not in as_json.stdout
    assert plain.stdout == as_json.stdout
    assert json.loads(as_json.stderr[as_json.stderr.index("{"):])["findings"][0]["kind"] == "memcpy-kind"


def test_check_print_limit_counts_every_finding_in_the_error_summary(check_probe_source):
    result = opemu_cli("check", "--print-limit", "1", "--", check_probe_source, "leak")
    printed = [line for line in result.stderr.splitlines() if line.startswith("opemu check: [")]
    errors = int(result.stderr.rstrip().rsplit("ERROR SUMMARY: ", 1)[1].split()[0])
    assert len(printed) == 1 and errors > 1, result.stderr
    assert "%d more finding(s) not printed (--print-limit 1)" % (errors - 1) in result.stderr
    one_line_error(opemu_cli("check", "--print-limit", "-1", "--", check_probe_source, "leak"), 2)


def test_check_json_names_enums_and_log_file(check_probe_source, tmp_path):
    log = tmp_path / "findings.json"
    result = opemu_cli("check", "--json", "--log-file", log, "--", check_probe_source, "memcpy-kind")
    assert result.returncode == 1 and "1 finding(s)" in result.stderr
    findings = json.loads(log.read_text())["findings"]
    assert findings[0]["kind"] == "memcpy-kind"
    assert findings[0]["call"]["arg_names"]["kind"].startswith("ACL_MEMCPY_")
