"""The `opemu` command: build, run, check and explain programs written for CANN and MACA on a CPU.

An ordinary mistake (a missing file, a compile error, a timeout, a bad trace file) ends with one
line on stderr and an exit status, never a traceback:
  0 success · 1 the program or a sample failed, or `check` found something · 2 usage or input error
  3 compile error · 124 timeout · 126 not executable · 127 command not found
(`run`, `exec` and `check` otherwise exit with the program's own status.)
"""
import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from xml.etree import ElementTree

from opemu import __version__, paths, settings
from opemu.findings import parse_finding, render_finding, symbolize

# The ops-nn example line (reference §6) and the MACA one, together: unused names cost nothing.
INCLUDE_DIRS = ("include", "include/aclnnop", "include/aclnn", "include/mcr")
LIBRARY_DIRS = ("lib64", "lib")
LIBRARIES = ("opapi_nn", "opapi_math", "opapi", "ascendcl", "nnopbase", "hccl", "mcdnn", "mcblas", "mcblasLt", "mcruntime")
SOURCE_SUFFIXES = (".cpp", ".cc", ".cxx", ".c")

# Which finding kinds each sanitizer tool reports (compute-sanitizer's split of the same checks).
TOOLS = {
    "memcheck": {"out-of-bounds", "use-after-free", "double-free", "invalid-free", "memcpy-kind", "invalid-handle",
                 "executor-reuse", "short-workspace", "host-access"},
    "initcheck": {"uninitialized-read"},
    "synccheck": {"unsynchronized-read"},
    "leakcheck": {"leak"},
}

EXIT_FAILED, EXIT_USAGE, EXIT_COMPILE, EXIT_TIMEOUT, EXIT_CANNOT_RUN, EXIT_NOT_FOUND = 1, 2, 3, 124, 126, 127


class CommandError(Exception):
    """An ordinary mistake: the message is the one line the user sees, `status` the exit status."""

    def __init__(self, message, status=EXIT_USAGE):
        super().__init__(message)
        self.status = status


def environment(prefix=None):
    """What sourcing the prefix's set_env.sh exports (the one place that says it), over os.environ."""
    prefix = str(prefix or paths.prefix())
    script = os.path.join(prefix, "set_env.sh")
    if not os.path.isfile(script):
        raise FileNotFoundError("%s has no set_env.sh" % prefix)
    dump = subprocess.run(["bash", "-c", 'source "$1" >/dev/null && env -0', "set_env", script],
                          capture_output=True, check=True).stdout
    after = dict(item.decode().split("=", 1) for item in dump.split(b"\0") if b"=" in item)
    changed = {key: value for key, value in after.items() if os.environ.get(key) != value}
    return {key: value for key, value in changed.items() if key not in ("SHLVL", "_", "PWD", "OLDPWD")}


def compile_command(source, output, prefix):
    cxx = os.environ.get("CXX", "g++")
    flags = ["-I%s/%s" % (prefix, d) for d in INCLUDE_DIRS] + ["-L%s/%s" % (prefix, d) for d in LIBRARY_DIRS]
    return [cxx, "-std=c++11", "-O2", "-Wall", str(source), "-o", str(output), *flags,
            *("-l" + name for name in LIBRARIES), "-lpthread"]


def build(source, quiet=False):
    """Compile `source` (cached by content) and return the executable's path."""
    source = Path(source)
    if not source.is_file():
        raise CommandError("%s: no such file" % source)
    source = source.resolve()
    prefix = paths.prefix()
    digest = hashlib.sha256(source.read_bytes() + str(prefix).encode() + __version__.encode()).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "opemu" / "run" / digest
    executable = cache / source.stem
    if not executable.exists():
        cache.mkdir(parents=True, exist_ok=True)
        command = compile_command(source, executable, prefix)
        if shutil.which(command[0]) is None:
            raise CommandError("the C++ compiler %s was not found (set CXX)" % command[0], EXIT_NOT_FOUND)
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            if not quiet:
                sys.stderr.write(result.stdout + result.stderr)
            raise CommandError("compiling %s failed (%s exited with %d)" % (source, command[0], result.returncode),
                               EXIT_COMPILE)
    return executable


def run_environment():
    env = dict(os.environ)
    env.update(environment())
    return env


def samples_dir():
    for candidate in (paths.prefix() / "samples", Path(__file__).resolve().parents[2] / "samples"):
        if candidate.is_dir():
            return candidate
    raise CommandError("no samples directory found in the prefix or the source tree")


def program_command(command):
    """A command line whose first word may be a source file: built first, as `opemu run` does."""
    if not command:
        raise CommandError("give a command after --")
    if command[0].endswith(SOURCE_SUFFIXES):
        return [str(build(command[0])), *command[1:]]
    if os.sep not in command[0] and shutil.which(command[0]) is None or os.sep in command[0] and not os.path.exists(command[0]):
        raise CommandError("%s: command not found" % command[0], EXIT_NOT_FOUND)
    return list(command)


def preflight(command, args, out=sys.stderr):
    """Say before the run which calls will fail; quiet when everything is implemented."""
    from opemu import preflight as pf
    if getattr(args, "no_preflight", False):
        return
    executable = pf.executable_of(command[0])
    if executable is None:
        return
    try:
        report = pf.inspect(executable, run_environment())
    except pf.PreflightError as error:
        out.write("opemu preflight: skipped: %s\n" % error)
        return
    if report["not_supported"] or report["unresolved"] or report["missing_libraries"]:
        out.write("\n".join(pf.render(report, verbose=False)) + "\n")
        out.flush()


def run_child(command, env, timeout=None, name=None, **kwargs):
    """Runs the program; `name` is what messages call it (the source a program was built from, not the
    cache path of its executable)."""
    name = name or command[0]
    try:
        return subprocess.run(command, env=env, timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired:
        raise CommandError("%s: timed out after %g s" % (name, timeout), EXIT_TIMEOUT)
    except PermissionError:
        raise CommandError("%s: permission denied" % name, EXIT_CANNOT_RUN)


def exit_status(returncode, name, command_name):
    """The program's status as a shell reports it: a program killed by a signal says which, on stderr,
    and exits 128 + the signal's number (139 for a segmentation fault), as the shell's $? would."""
    if returncode >= 0:
        return returncode
    number = -returncode
    sys.stderr.write("opemu %s: %s: %s (signal %d)\n" % (command_name, name, signal.strsignal(number) or
                                                          "killed by signal", number))
    return 128 + number


# ---- the subcommands ----

def command_run(args):
    command = [str(build(args.file)), *args.args]
    preflight(command, args)
    return exit_status(run_child(command, run_environment(), args.timeout, name=args.file).returncode, args.file,
                       "run")


def command_samples(args):
    sources = sorted(samples_dir().rglob("*.cpp"))
    if args.filter:
        sources = [s for s in sources if args.filter in str(s.relative_to(samples_dir()))]
        if not sources:
            raise CommandError("no sample's path contains %r" % args.filter)
    rows = []
    for index, source in enumerate(sources, 1):
        name = str(source.relative_to(samples_dir()))
        sys.stderr.write("[%d/%d] %s ... " % (index, len(sources), name))
        sys.stderr.flush()
        start = time.monotonic()
        row = {"sample": name, "output": ""}
        try:
            executable = build(source, quiet=True)
            result = subprocess.run([str(executable)], env=run_environment(), capture_output=True, text=True,
                                    timeout=args.timeout)
            row["output"] = result.stdout + result.stderr
            row["result"] = "pass" if result.returncode == 0 else "FAIL (%s)" % (
                "exit %d" % result.returncode if result.returncode > 0 else signal.strsignal(-result.returncode))
        except CommandError as error:
            row["result"], row["output"] = "build failed", str(error)
        except subprocess.TimeoutExpired as error:
            row["result"] = "timeout (%g s)" % args.timeout
            row["output"] = (error.stdout or b"").decode(errors="replace") if isinstance(error.stdout, bytes) \
                else error.stdout or ""
        row["seconds"] = round(time.monotonic() - start, 3)
        sys.stderr.write("%s (%.2f s)\n" % (row["result"], row["seconds"]))
        if args.verbose or row["result"] != "pass":
            sys.stdout.write(row["output"])
        rows.append(row)
    failed = sum(r["result"] != "pass" for r in rows)
    width = max([len(r["sample"]) for r in rows] + [len("sample")])
    print("%-*s  %-16s %8s" % (width, "sample", "result", "time s"))
    for row in rows:
        print("%-*s  %-16s %8.2f" % (width, row["sample"], row["result"], row["seconds"]))
    print("%d passed, %d failed" % (len(rows) - failed, failed))
    if args.json:
        Path(args.json).write_text(json.dumps({"passed": len(rows) - failed, "failed": failed, "samples": rows},
                                              indent=1) + "\n")
    if args.junit:
        write_junit(args.junit, rows)
    return EXIT_FAILED if failed else 0


def write_junit(path, rows):
    """JUnit XML as CI servers read it: one testcase per sample, a failure element when it failed."""
    failed = sum(r["result"] != "pass" for r in rows)
    suite = ElementTree.Element("testsuite", name="opemu samples", tests=str(len(rows)), failures=str(failed),
                                time="%.3f" % sum(r["seconds"] for r in rows))
    for row in rows:
        case = ElementTree.SubElement(suite, "testcase", classname="samples", name=row["sample"],
                                      time="%.3f" % row["seconds"])
        if row["result"] != "pass":
            ElementTree.SubElement(case, "failure", message=row["result"]).text = row["output"]
    ElementTree.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)


def command_exec(args):
    command = program_command(args.command)
    preflight(command, args)
    if args.timeout is not None:
        return exit_status(run_child(command, run_environment(), args.timeout, name=args.command[0]).returncode,
                           args.command[0], "exec")
    sys.stderr.flush()
    try:
        os.execvpe(command[0], command, run_environment())
    except OSError as error:
        raise CommandError("%s: %s" % (command[0], error.strerror), EXIT_NOT_FOUND)


def command_doctor(args):
    from opemu import preflight as pf
    program = args.program if os.sep in args.program or os.path.exists(args.program) else shutil.which(args.program)
    if program is None:
        raise CommandError("%s: command not found" % args.program, EXIT_NOT_FOUND)
    if program.endswith(SOURCE_SUFFIXES):
        program = str(build(program))
    try:
        report = pf.inspect(program, run_environment())
    except pf.PreflightError as error:
        raise CommandError(str(error))
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print("\n".join(pf.render(report, verbose=not args.brief)))
    return 0 if report["loads"] else EXIT_FAILED


def command_info(args):
    from opemu import support
    prefix = paths.prefix()
    table = support.entry_points()
    # C++ members (fp16_t.h's) under the names their header gives them, after the C functions
    implemented = sorted((meta.get("demangled") is not None, meta.get("demangled", name))
                         for name, meta in table.items() if meta["implemented_in"] != "none")
    print("opemu %s" % __version__)
    print("prefix: %s" % prefix)
    print("libraries: %s" % ", ".join(sorted(p.name for p in (prefix / "lib64").glob("lib*.so"))))
    print("entry points: %d declared, %d implemented" % (len(table), len(implemented)))
    for _, name in implemented:
        print("  " + name)
    return 0


def command_support(args):
    from opemu import support
    if args.names:
        if args.write or args.check:
            raise CommandError("give function names or --write/--check, not both")
        unknown = 0
        for name in args.names:
            lines = support.describe(name)
            unknown += lines is None
            print("\n".join(lines or ["%s: not declared by any header opemu ships" % name]))
        return EXIT_FAILED if unknown else 0
    text = support.render()
    if args.write:
        Path(args.write).write_text(text)
    elif args.check:
        if not Path(args.check).is_file() or Path(args.check).read_text() != text:
            print("%s is stale: run `opemu support --write %s`" % (args.check, args.check))
            return EXIT_FAILED
    else:
        sys.stdout.write(text)
    return 0


def command_check(args):
    """Runs the program with the sanitizer on and deferred streams; non-zero when it found anything.
    The program keeps stdout: findings go to stderr, or to --log-file."""
    import tempfile
    if args.print_limit < 0:
        raise CommandError("--print-limit must be 0 (no limit) or more")
    command = program_command(args.command)
    preflight(command, args)
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "findings"
        env = run_environment()
        env.update(OPEMU_STRICT="1", OPEMU_STREAM="deferred", OPEMU_CHECK_REPORT=str(report))
        status = run_child(command, env, args.timeout, name=args.command[0]).returncode
        lines = report.read_text(errors="replace").splitlines() if report.exists() else []
    status = exit_status(status, args.command[0], "check")
    kinds = set().union(*(TOOLS[t] for t in args.tool)) if args.tool else set().union(*TOOLS.values())
    if args.leak_check == "no":
        kinds -= TOOLS["leakcheck"]
    findings = [f for f in map(parse_finding, lines) if f["kind"] in kinds]
    symbolize(findings)
    summary = "opemu check: %d finding(s)%s; the program exited with %d" % (
        len(findings), " (%s)" % ", ".join(sorted({f["kind"] for f in findings})) if findings else "", status)
    # compute-sanitizer's last line, which CI scripts look for
    error_summary = "opemu check: ERROR SUMMARY: %d error%s" % (len(findings), "" if len(findings) == 1 else "s")
    shown = findings if args.print_limit == 0 else findings[:args.print_limit]
    if args.json:
        text = json.dumps({"tools": args.tool or sorted(TOOLS), "exit_status": status, "findings": shown,
                           "errors": len(findings)}, indent=1) + "\n"
    else:
        text = "".join(render_finding(f) + "\n" for f in shown)
        if len(shown) < len(findings):
            text += "opemu check: %d more finding(s) not printed (--print-limit %d)\n" % (
                len(findings) - len(shown), args.print_limit)
        text += summary + "\n" + error_summary + "\n"
    if args.log_file:
        Path(args.log_file).write_text(text)
        sys.stderr.write(summary + "\n" + error_summary + "\n")
    else:
        sys.stderr.write(text)
    if findings:
        return args.error_exitcode
    return status


def command_trace(args):
    from opemu import trace
    try:
        print(trace.render(trace.summarize(args.file)))
    except OSError as error:
        raise CommandError("%s: %s" % (args.file, error.strerror))
    except trace.BadTrace as error:
        raise CommandError(str(error))
    return 0


# ---- the parser ----

def parser():
    top = argparse.ArgumentParser(prog="opemu", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    top.add_argument("--version", action="version", version="opemu %s" % __version__)
    sub = top.add_subparsers(dest="command_name", required=True, metavar="COMMAND")

    def command(name, func, text):
        p = sub.add_parser(name, help=text, description=text)
        p.set_defaults(func=func)
        return p

    def no_preflight(p):
        p.add_argument("--no-preflight", action="store_true",
                       help="do not list the program's not-supported and unresolved calls before running it")

    command("prefix", lambda a: print(paths.prefix()) or 0,
            "print the toolkit-shaped prefix (include/, lib64/, lib/, samples/, set_env.sh)")
    command("env", lambda a: print("\n".join('export %s="%s"' % kv for kv in environment().items())) or 0,
            'print the exports of set_env.sh, for eval "$(opemu env)"')
    run = command("run", command_run, "compile one vendor-style source with the vendor's flags and run it")
    run.add_argument("file", help="the C/C++ source (.cpp, .cc, .cxx, .c)")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the program (after --)")
    run.add_argument("--timeout", type=float, help="stop the program after this many seconds (exit 124)")
    no_preflight(run)
    samples = command("samples", command_samples, "build and run every sample; a pass/fail table with times")
    samples.add_argument("--verbose", "-v", action="store_true", help="print every sample's output, not only failures'")
    samples.add_argument("--timeout", type=float, default=600, help="seconds each sample may run (default 600)")
    samples.add_argument("--filter", "-k", help="only samples whose path contains this text")
    samples.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    samples.add_argument("--junit", metavar="FILE", help="also write the results as JUnit XML to FILE")
    execute = command("exec", command_exec, "run a program built against the real toolkit on opemu's libraries")
    execute.add_argument("--timeout", type=float, help="stop the program after this many seconds (exit 124)")
    execute.add_argument("command", nargs=argparse.REMAINDER, help="-- the command and its arguments")
    no_preflight(execute)
    doctor = command("doctor", command_doctor, "say which of a program's calls opemu implements, which are not "
                     "supported and which would not resolve, without running it (exit 1: it would not load)")
    doctor.add_argument("program", help="an executable or shared library (or a source file, built first)")
    doctor.add_argument("--json", action="store_true", help="the report as JSON")
    doctor.add_argument("--brief", action="store_true", help="leave out the list of implemented calls")
    command("info", command_info, "version, library names, implemented entry points")
    support = command("support", command_support, "print the support matrix (docs/SUPPORT.md), or what opemu does "
                      "with the functions named")
    support.add_argument("names", nargs="*", metavar="NAME",
                         help="a function or operator (aclrtMalloc, aclnnAdd): its status, header, libraries, dtypes")
    support.add_argument("--write", metavar="FILE", help="write the matrix to FILE")
    support.add_argument("--check", metavar="FILE", help="exit 1 when FILE differs from the current matrix")
    check = command("check", command_check, "run a program under the sanitizer (deferred streams) and list what "
                    "it finds; exit non-zero when it finds anything")
    check.add_argument("--tool", action="append", choices=sorted(TOOLS),
                       help="report only this tool's findings (repeatable; default: all): memcheck = bounds, "
                       "frees, handles, memcpy kinds; initcheck = reads of unwritten memory; synccheck = reads "
                       "before synchronisation; leakcheck = memory and handles never released")
    check.add_argument("--error-exitcode", type=int, default=1, metavar="N",
                       help="exit status when anything is found (default 1)")
    check.add_argument("--log-file", metavar="FILE", help="write the findings to FILE (the summary still prints)")
    check.add_argument("--json", action="store_true", help="findings as JSON, with enum and status names")
    check.add_argument("--timeout", type=float, help="stop the program after this many seconds (exit 124)")
    check.add_argument("--leak-check", choices=("full", "no"), default="full",
                       help="report memory and handles never released (default full; compute-sanitizer's option)")
    check.add_argument("--print-limit", type=int, default=100, metavar="N",
                       help="print at most N findings (0: all; default 100); the summary counts every one")
    check.add_argument("command", nargs=argparse.REMAINDER, help="-- the command (or a source file) and its arguments")
    no_preflight(check)
    trace = sub.add_parser("trace", help="read OPEMU_TRACE files", description="read OPEMU_TRACE files")
    summarize = trace.add_subparsers(dest="trace_command", required=True, metavar="ACTION").add_parser(
        "summarize", help="calls, failures (with status names) and time per entry point",
        description="calls, failures (with status names) and time per entry point of an OPEMU_TRACE file")
    summarize.add_argument("file", help="the trace file (JSON lines)")
    summarize.set_defaults(func=command_trace)
    return top


def main(argv=None):
    args = parser().parse_args(argv)
    for name in ("args", "command"):
        if getattr(args, name, None) and getattr(args, name)[0] == "--":
            setattr(args, name, getattr(args, name)[1:])
    try:
        if args.command_name in ("run", "exec", "check", "samples", "doctor"):
            refused = settings.problems()
            if refused:
                raise CommandError("; ".join(refused))
        return args.func(args)
    except CommandError as error:
        sys.stderr.write("opemu %s: %s\n" % (args.command_name, error))
        return error.status
    except FileNotFoundError as error:  # the prefix or an input the command reads
        sys.stderr.write("opemu %s: %s\n" % (args.command_name, error))
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
