#!/usr/bin/env python3
"""Build and run an operator repository's own per-operator examples against opemu's prefix.

The acceptance sweep for operator breadth: every `examples/test_aclnn_*.cpp` of a checkout of hicann/ops-math,
ops-nn, ops-transformer or ops-cv (a work tree, or a bare git directory whose HEAD is read), compiled with the
line that repository's own build script uses (its includes and libraries, against $ASCEND_HOME_PATH), run with
the prefix's set_env.sh environment, and sorted into one verdict each:

  pass           exit 0, and no call answered "not supported"
  not-supported  some call answered opemu's not-supported status (the first such function is named)
  failed         the program exited non-zero (its last output line is kept)
  crashed        killed by a signal
  timeout        still running after --timeout seconds
  no-build       the compiler refused it (its first error is kept)

Nothing of the vendor's is copied into the repository: the examples are read from the checkout given, built
in a scratch directory and deleted with it. Usage:

  python tools/sweep_vendor_examples.py /path/to/ops-nn [-k softmax] [--jobs 2] [--tsv results.tsv]
"""
import argparse
import collections
import concurrent.futures
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

# Each repository's example line (its build.sh / scripts/build_example.sh): include directories under the
# prefix and the libraries, in the order the vendor writes them; include/aclnnop added everywhere, as ops-nn's
# line has it, for the examples that include an op header by its bare name.
LINES = {
    "ops-math": (("include", "include/aclnn", "include/aclnnop"), ("opapi_math", "ascendcl", "nnopbase")),
    "ops-nn": (("include", "include/aclnnop", "include/aclnn"), ("opapi_nn", "opapi_math", "ascendcl", "nnopbase")),
    "ops-transformer": (("include", "include/aclnn", "opp/include/aclnnop", "include/aclnnop"),
                        ("opapi", "opapi_transformer", "ascendcl", "nnopbase", "pthread", "hccl", "c_sec")),
    "ops-cv": (("include", "include/aclnn", "include/aclnnop"), ("opapi_cv", "ascendcl", "nnopbase")),
}
LIBRARY_DIRS = ("opp/lib64", "lib64")
# Examples kept under examples/arch35/ are the 950 line's: they run with OPEMU_SOC naming such a product.
SOC_950 = "Ascend950"
NOT_SUPPORTED = re.compile(r"(\w+) \([^)]*\) is not supported by opemu")
EXAMPLE = re.compile(r"(^|/)examples/(.*/)?test_aclnn_[^/]*\.cpp$")
HEADER_BESIDE = re.compile(r"(^|/)(op_api|examples)/(.*/)?[^/]*\.h$")


def repository_kind(checkout):
    """Which operator repository a checkout is, from its path (ops-math, hicann+ops-nn, …)."""
    for kind in sorted(LINES, key=len, reverse=True):
        if kind in str(checkout.resolve()):
            return kind
    raise SystemExit("cannot tell which operator repository %s is: pass --kind" % checkout)


def examples(checkout, scratch, pattern):
    """(name, path) of every example matching `pattern`; a bare git directory's HEAD is unpacked to scratch."""
    if (checkout / "HEAD").is_file() and (checkout / "objects").is_dir():
        listing = subprocess.run(["git", "-C", str(checkout), "ls-tree", "-r", "--name-only", "HEAD"],
                                 capture_output=True, text=True, check=True).stdout.split()
        wanted = [p for p in listing if EXAMPLE.search(p) and not p.startswith("experimental/")]
        # The headers examples include by a relative path (../op_host/op_api/aclnn_x.h, a sibling
        # example header), as a work tree has them.
        beside = [p for p in listing if HEADER_BESIDE.search(p) and not p.startswith("experimental/")]
        root = scratch / "tree"
        root.mkdir()
        archive = subprocess.run(["git", "-C", str(checkout), "archive", "HEAD", *wanted, *beside],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
        paths = [root / p for p in wanted]
    else:
        root = checkout
        paths = [p for p in checkout.rglob("test_aclnn_*.cpp")
                 if EXAMPLE.search(p.relative_to(checkout).as_posix())
                 and not p.relative_to(checkout).as_posix().startswith("experimental/")]
    return sorted((p.relative_to(root).as_posix(), p) for p in paths if pattern is None or pattern in p.as_posix())


def environment(prefix):
    script = Path(prefix) / "set_env.sh"
    dump = subprocess.run(["bash", "-c", 'source "$1" >/dev/null && env -0', "set_env", str(script)],
                          capture_output=True, check=True).stdout
    return dict(item.decode().split("=", 1) for item in dump.split(b"\0") if b"=" in item)


def sweep_one(name, source, kind, prefix, env, scratch, timeout):
    """(name, verdict, detail) of one example."""
    includes, libraries = LINES[kind]
    binary = scratch / ("bin_" + name.replace("/", "_"))
    if "/arch35/" in name:
        env = dict(env, OPEMU_SOC=SOC_950)
    command = ["g++", str(source), *("-I%s/%s" % (prefix, d) for d in includes),
               *("-L%s/%s" % (prefix, d) for d in LIBRARY_DIRS), *("-l" + lib for lib in libraries), "-o", str(binary)]
    built = subprocess.run(command, capture_output=True, text=True, env=env)
    if built.returncode != 0:
        errors = [line for line in built.stderr.splitlines() if "error" in line]
        return name, "no-build", (errors[0] if errors else built.stderr.strip()[-200:])
    try:
        ran = subprocess.run([str(binary)], capture_output=True, text=True, env=env, timeout=timeout,
                             cwd=str(source.parent), errors="replace")
    except subprocess.TimeoutExpired:
        return name, "timeout", "%d s" % timeout
    finally:
        binary.unlink(missing_ok=True)
    output = ran.stdout + ran.stderr
    unsupported = NOT_SUPPORTED.search(output)
    if unsupported:
        return name, "not-supported", unsupported.group(1)
    if ran.returncode < 0:
        return name, "crashed", signal.Signals(-ran.returncode).name
    if ran.returncode != 0:
        lines = [line for line in output.splitlines() if line.strip()]
        return name, "failed", "exit %d: %s" % (ran.returncode, lines[-1][:200] if lines else "")
    return name, "pass", ""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="a checkout (or bare git directory) of an operator repository")
    parser.add_argument("--kind", choices=sorted(LINES), help="which repository (default: from the path)")
    parser.add_argument("--prefix", help="the toolkit prefix (default: opemu's)")
    parser.add_argument("-k", dest="pattern", help="only examples whose path contains this text")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=int, default=120, help="seconds per example run")
    parser.add_argument("--tsv", type=Path, help="write one line per example: name, verdict, detail")
    parser.add_argument("--quiet", action="store_true", help="print only the summary")
    args = parser.parse_args(argv)
    kind = args.kind or repository_kind(args.checkout)
    if args.prefix is None:
        from opemu import paths
        args.prefix = str(paths.prefix())
    env = environment(args.prefix)
    scratch = Path(tempfile.mkdtemp(prefix="opemu-sweep-"))
    try:
        found = examples(args.checkout, scratch, args.pattern)
        results = []
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            futures = [pool.submit(sweep_one, name, path, kind, args.prefix, env, scratch, args.timeout)
                       for name, path in found]
            for future in concurrent.futures.as_completed(futures):
                results.append(future.result())
                if not args.quiet:
                    print("%-14s %-64s %s" % (results[-1][1], results[-1][0], results[-1][2]), flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    results.sort()
    if args.tsv:
        args.tsv.write_text("".join("%s\t%s\t%s\n" % r for r in results))
    verdicts = collections.Counter(verdict for _, verdict, _ in results)
    print("%s: %d examples, %s" % (kind, len(results), ", ".join("%s %d" % kv for kv in verdicts.most_common())))
    blocking = collections.Counter(detail for _, verdict, detail in results if verdict == "not-supported")
    if blocking:
        print("not supported, most examples first: " + ", ".join("%s %d" % kv for kv in blocking.most_common(20)))
    return 0 if verdicts["pass"] == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
