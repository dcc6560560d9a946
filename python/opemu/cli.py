"""The `opemu` command.

  opemu prefix                 the toolkit-shaped prefix (include/, lib64/, lib/, set_env.sh)
  opemu env                    the exports of set_env.sh, for `eval "$(opemu env)"`
  opemu run FILE.cpp [-- ARGS] build one vendor-style source with the vendor's flags and run it
  opemu samples                build and run every sample, print a pass/fail table
  opemu exec -- CMD [ARGS]     run a program built against the real toolkit on opemu's libraries
  opemu info                   version, library names, implemented entry points
  opemu support [--write F | --check F]   the support matrix (docs/SUPPORT.md)
  opemu trace summarize FILE   counts, failures and time per entry point of an OPEMU_TRACE file
  opemu check -- CMD [ARGS]    run a program under the sanitizer; list what it finds
"""
import argparse
import hashlib
import os
import subprocess
import sys
from pathlib import Path

from opemu import __version__, paths

# The ops-nn example line (reference §6) and the MACA one, together: unused names cost nothing.
INCLUDE_DIRS = ("include", "include/aclnnop", "include/aclnn", "include/mcr")
LIBRARY_DIRS = ("lib64", "lib")
LIBRARIES = ("opapi_nn", "opapi_math", "opapi", "ascendcl", "nnopbase", "mcdnn", "mcblas", "mcruntime")


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
    source = Path(source).resolve()
    prefix = paths.prefix()
    digest = hashlib.sha256(source.read_bytes() + str(prefix).encode() + __version__.encode()).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "opemu" / "run" / digest
    executable = cache / source.stem
    if not executable.exists():
        cache.mkdir(parents=True, exist_ok=True)
        result = subprocess.run(compile_command(source, executable, prefix), capture_output=True, text=True)
        if result.returncode != 0:
            if not quiet:
                sys.stderr.write(result.stdout + result.stderr)
            raise RuntimeError("compiling %s failed" % source)
    return executable


def run_environment():
    env = dict(os.environ)
    env.update(environment())
    return env


def samples_dir():
    for candidate in (paths.prefix() / "samples", Path(__file__).resolve().parents[2] / "samples"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("no samples directory found")


def command_run(args):
    executable = build(args.file)
    return subprocess.call([str(executable), *args.args], env=run_environment())


def command_samples(args):
    rows, failed = [], 0
    for source in sorted(samples_dir().rglob("*.cpp")):
        name = str(source.relative_to(samples_dir()))
        try:
            executable = build(source, quiet=True)
        except RuntimeError:
            rows.append((name, "build failed"))
            failed += 1
            continue
        result = subprocess.run([str(executable)], env=run_environment(), capture_output=True, text=True,
                                timeout=args.timeout)
        ok = result.returncode == 0
        failed += not ok
        rows.append((name, "pass" if ok else "FAIL (exit %d)" % result.returncode))
        if args.verbose or not ok:
            sys.stdout.write(result.stdout + result.stderr)
    width = max(len(r[0]) for r in rows) if rows else 10
    print("%-*s  %s" % (width, "sample", "result"))
    for name, outcome in rows:
        print("%-*s  %s" % (width, name, outcome))
    print("%d passed, %d failed" % (len(rows) - failed, failed))
    return 1 if failed else 0


def command_exec(args):
    if not args.command:
        sys.exit("opemu exec: give a command after --")
    os.execvpe(args.command[0], args.command, run_environment())


def command_info(args):
    from opemu import support
    prefix = paths.prefix()
    table = support.entry_points()
    implemented = [n for n, m in sorted(table.items()) if not support.status_of(n, m).startswith("not")]
    print("opemu %s" % __version__)
    print("prefix: %s" % prefix)
    print("libraries: %s" % ", ".join(sorted(p.name for p in (prefix / "lib64").glob("lib*.so"))))
    print("entry points: %d declared, %d implemented" % (len(table), len(implemented)))
    for name in implemented:
        print("  " + name)
    return 0


def command_support(args):
    from opemu import support
    text = support.render()
    if args.write:
        Path(args.write).write_text(text)
    elif args.check:
        if Path(args.check).read_text() != text:
            print("%s is stale: run `opemu support --write %s`" % (args.check, args.check))
            return 1
    else:
        sys.stdout.write(text)
    return 0


def command_check(args):
    """Runs the program with the sanitizer on and deferred streams; non-zero when it found anything."""
    import tempfile
    if not args.command:
        sys.exit("opemu check: give a command after --")
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "findings"
        env = run_environment()
        env.update(OPEMU_STRICT="1", OPEMU_STREAM="deferred", OPEMU_CHECK_REPORT=str(report))
        status = subprocess.call(args.command, env=env)
        findings = report.read_text().splitlines() if report.exists() else []
    for line in findings:
        print(line)
    kinds = sorted({line.split("]")[0].split("[")[-1] for line in findings})
    print("opemu check: %d finding(s)%s; the program exited with %d"
          % (len(findings), " (%s)" % ", ".join(kinds) if kinds else "", status))
    return 1 if findings else status


def command_trace(args):
    from opemu import trace
    print(trace.render(trace.summarize(args.file)))
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="opemu", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command_name", required=True)
    sub.add_parser("prefix").set_defaults(func=lambda a: print(paths.prefix()) or 0)
    sub.add_parser("env").set_defaults(
        func=lambda a: print("\n".join('export %s="%s"' % kv for kv in environment().items())) or 0)
    run = sub.add_parser("run")
    run.add_argument("file")
    run.add_argument("args", nargs=argparse.REMAINDER)
    run.set_defaults(func=command_run)
    samples = sub.add_parser("samples")
    samples.add_argument("--verbose", "-v", action="store_true")
    samples.add_argument("--timeout", type=float, default=600)
    samples.set_defaults(func=command_samples)
    execute = sub.add_parser("exec")
    execute.add_argument("command", nargs=argparse.REMAINDER)
    execute.set_defaults(func=command_exec)
    sub.add_parser("info").set_defaults(func=command_info)
    support = sub.add_parser("support")
    support.add_argument("--write")
    support.add_argument("--check")
    support.set_defaults(func=command_support)
    check = sub.add_parser("check")
    check.add_argument("command", nargs=argparse.REMAINDER)
    check.set_defaults(func=command_check)
    trace = sub.add_parser("trace").add_subparsers(dest="trace_command", required=True).add_parser("summarize")
    trace.add_argument("file")
    trace.set_defaults(func=command_trace)
    args = parser.parse_args(argv)
    if getattr(args, "args", None) and args.args[0] == "--":
        args.args = args.args[1:]
    if getattr(args, "command", None) and args.command[0] == "--":
        args.command = args.command[1:]
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
