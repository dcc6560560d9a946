"""What a program will meet on opemu, read from its ELF file before it runs (`opemu doctor`).

The program's undefined dynamic symbols (`nm -D --undefined-only`) are sorted against the entry-point
table the build generated (share/opemu/entry_points.json):
  - implemented: opemu emulates the call;
  - not supported: declared by a vendor header and exported, but the call returns the family's
    not-supported status (and names itself in the error message);
  - unresolved: nothing the program loads exports it (no vendor header declares it, or only a
    vendor library the program does not link does): the dynamic loader stops the program with
    "symbol lookup error" (at start with BIND_NOW, else at the first call).
Symbols other libraries provide (libc, libstdc++, the app's own) are not opemu's business and are
only counted. The libraries the program loads come from the loader itself (`ldd`, with opemu's
library path), so NEEDED libraries opemu does not provide show up as missing.
"""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from opemu import paths

IMPLEMENTED_IN = ("c", "python", "launch")


class PreflightError(Exception):
    """The program cannot be read (not a file, not a dynamic ELF, binutils missing)."""


def _tool(name):
    path = shutil.which(name)
    if path is None:
        raise PreflightError("%s is not installed (binutils): it reads the program's dynamic symbols" % name)
    return path


def _run(command, env=None):
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise PreflightError((result.stderr.strip() or "%s failed" % command[0]).splitlines()[-1])
    return result.stdout


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def needed(program):
    """DT_NEEDED entries, in order."""
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", _run([_tool("readelf"), "-d", str(program)]))


def undefined_symbols(program):
    """{name: weak?} of the program's undefined dynamic symbols (version suffixes dropped)."""
    symbols = {}
    for line in _run([_tool("nm"), "-D", "--undefined-only", str(program)]).splitlines():
        fields = line.split()
        if len(fields) >= 2:
            symbols[fields[-1].split("@")[0]] = fields[-2] in ("w", "v")
    return symbols


def defined_symbols(library):
    names = set()
    for line in _run([_tool("nm"), "-D", "--defined-only", str(library)]).splitlines():
        fields = line.split()
        if len(fields) >= 3:
            names.add(fields[-1].split("@")[0])
    return names


def loaded_libraries(program, env):
    """{soname: path or None (not found)} as the loader resolves them, with `env`'s library path."""
    result = subprocess.run([_tool("ldd"), str(program)], capture_output=True, text=True, env=env)
    libraries = {}
    for line in result.stdout.splitlines():
        match = re.match(r"\s*(\S+) => (not found|(\S+) \(0x)", line)
        if match:
            libraries[match.group(1)] = match.group(3)
    return libraries


def demangled(names):
    """C++ names readable (fp16_t members); plain C names as they are."""
    mangled = [n for n in names if n.startswith("_Z")]
    if not mangled or shutil.which("c++filt") is None:
        return {n: n for n in names}
    readable = subprocess.run(["c++filt"], input="\n".join(mangled), capture_output=True, text=True).stdout.split("\n")
    table = {n: n for n in names}
    table.update(zip(mangled, readable))
    return table


def entry_points(prefix=None):
    with open(Path(prefix or paths.prefix()) / "share" / "opemu" / "entry_points.json") as f:
        return json.load(f)


def is_implemented(name, meta):
    """The generated table says where each entry point is implemented; a table from before
    not-supported shims moved to C marks those "python" too, so the registries decide there."""
    where = meta["implemented_in"]
    if where not in IMPLEMENTED_IN:
        return False
    if where != "python" or "libraries" in meta:
        return True
    from opemu import ops, support
    ops.load_all()
    return not support.status_of(name, meta).startswith("not")


def library_name(soname):
    """libascendcl.so(.N) -> ascendcl"""
    base = soname.split(".so")[0]
    return base[3:] if base.startswith("lib") else base


def inspect(program, env):
    """The preflight report of one program, as a dict (JSON-ready)."""
    program = Path(program)
    if not program.is_file():
        raise PreflightError("%s: no such file" % program)
    if not is_elf(program):
        raise PreflightError("%s is not an ELF executable or library" % program)
    table = entry_points()
    symbols = undefined_symbols(program)
    libraries = loaded_libraries(program, env)
    exported = {}
    for soname, path in libraries.items():
        if path:
            for name in defined_symbols(path):
                exported.setdefault(name, soname)
    report = {"program": str(program), "needed": needed(program),
              "missing_libraries": sorted(s for s, p in libraries.items() if p is None),
              "implemented": [], "not_supported": [], "unresolved": [], "other": 0}
    readable = demangled(list(symbols))
    for name, weak in sorted(symbols.items()):
        meta = table.get(name)
        if meta is None and (name in exported or weak):  # weak: the toolchain's optional hooks (__gmon_start__)
            report["other"] += 1
            continue
        entry = {"symbol": name, "name": readable[name]}
        if meta is not None:
            entry.update(header=meta["header"], family=meta["family"])
            entry["libraries"] = meta.get("libraries")
        if name not in exported:
            entry["weak"] = weak
            entry["reason"] = _unresolved_reason(meta, libraries)
            report["unresolved"].append(entry)
        elif is_implemented(name, meta):
            entry["implemented_in"] = meta["implemented_in"]
            report["implemented"].append(entry)
        else:
            report["not_supported"].append(entry)
    report["loads"] = not report["missing_libraries"] and not any(not e["weak"] for e in report["unresolved"])
    return report


def _unresolved_reason(meta, libraries):
    if meta is None:
        return "no vendor header opemu knows declares it"
    owners = meta.get("libraries") or []
    if owners:
        return "exported by %s, which the program does not load" % ", ".join("lib%s.so" % o for o in owners)
    return "declared in %s but exported by none of the libraries the program loads" % meta["header"]


def render(report, verbose=True):
    """Lines for a person: counts first, then the calls that will fail and why."""
    implemented, unsupported, unresolved = report["implemented"], report["not_supported"], report["unresolved"]
    lines = ["opemu preflight: %s: %d vendor call(s): %d implemented, %d not supported, %d unresolved"
             % (report["program"], len(implemented) + len(unsupported) + len(unresolved), len(implemented),
                len(unsupported), len(unresolved))]
    for soname in report["missing_libraries"]:
        lines.append("  missing library: %s (NEEDED, not found on opemu's library path: the load fails)" % soname)
    if verbose:
        lines += ["  implemented:   %s (%s)" % (e["name"], e["header"]) for e in implemented]
    lines += ["  not supported: %s (%s): the call returns the not-supported status" % (e["name"], e["header"])
              for e in unsupported]
    lines += ["  unresolved:    %s: %s%s" % (e["name"], e["reason"], " (weak: the program may test for it)"
                                             if e["weak"] else "") for e in unresolved]
    if report["missing_libraries"]:
        verdict = "the program would not load (missing libraries)"
    elif not report["loads"]:
        verdict = ("the program would stop with 'symbol lookup error' at the first unresolved call "
                   "(at load when bound now)")
    else:
        verdict = "the program loads and every call resolves"
    lines.append("opemu preflight: " + verdict)
    return lines


def executable_of(command):
    """The ELF file a command line starts, or None (a script, a shell builtin, not found)."""
    path = command if os.sep in command else shutil.which(command)
    return path if path and is_elf(path) else None
