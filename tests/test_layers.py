"""csrc/ is a one-way stack of folders: core/ below everything, the observers (trace/, sanitizer/)
above it, one folder per vendor library above them, the bridge on top; kernels/ stands alone.

How the stack is checked:
  - STANDS_ON below declares, for every folder, the folders it is built on; a folder may use what
    those stand on in turn (the transitive closure). The declaration itself must be acyclic: a
    topological sort of it must succeed.
  - Includes: every `#include "…"` line under csrc/ is resolved as the compiler resolves it (the
    including file's folder, then include/, then csrc/). Every edge from a file in folder A to a
    header in folder B must be declared (B in A's closure), and the folder graph they form must have
    no cycle (depth-first search). A folder's *_internal.h is included from that folder only.
  - Calls: `nm` on the objects of the build tree (build/<tag>/CMakeFiles/*/csrc/…) maps every
    function a file calls to the file that defines it. Every call between folders must be declared,
    no object file may take part in a cycle of calls, even within a folder (Tarjan's strongly
    connected components over the file graph), and every opemu_* symbol an object needs and csrc/
    does not define is a function the bridge generates (a cffi embedded function, opemu_py_*, Python
    fills in, or the cffi module's start).
What a lower layer needs from above it is given at load time through hooks (core/hooks.h,
trace/trace.h), so none of these checks needs an exception."""
import re
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CSRC = ROOT / "csrc"
INCLUDE = ROOT / "include"

STANDS_ON = {
    "kernels": (),
    "core": (),
    "trace": ("core",),
    "sanitizer": ("trace",),
    "acl": ("sanitizer",),
    "mc": ("sanitizer",),
    "aclnn": ("acl",),
    "mcdnn": ("mc",),
    "mcblas": ("mc",),
    "securec": (),  # libc_sec: bounds-checked C functions, a library of their own
    "hccl": ("acl", "mc"),  # the collectives: HCCL on AscendCL's runtime, MCCL on MACA's
    "bridge": ("aclnn", "mcdnn", "mcblas", "hccl", "kernels"),
}
INCLUDE_LINE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCES = (".c", ".cpp")
# What csrc/ calls and the generated bridge defines: Python's functions (cffi embedded functions) and
# the cffi module's start-up.
GENERATED = re.compile(r"^opemu_py_\w+$|^opemu_bridge_start$")


def folder_of(path):
    return path.relative_to(CSRC).parts[0]


def allowed():
    """{folder: every folder it may use}, the transitive closure of STANDS_ON."""
    def below(folder, seen=()):
        assert folder not in seen, "STANDS_ON has a cycle through %s" % " -> ".join(seen + (folder,))
        out = set()
        for lower in STANDS_ON[folder]:
            out |= {lower} | below(lower, seen + (folder,))
        return out
    return {folder: below(folder) for folder in STANDS_ON}


def csrc_files(*suffixes):
    return sorted(p for p in CSRC.rglob("*") if p.suffix in suffixes and p.is_file())


def resolve(including, name):
    """The csrc/ file `#include "name"` in `including` reads, or None for a public or generated header."""
    for base in (including.parent, INCLUDE, CSRC):
        candidate = base / name
        if candidate.is_file():
            return candidate if CSRC in candidate.resolve().parents else None
    return None


def include_edges():
    """[(including file, included csrc file)] of every quoted include under csrc/."""
    edges = []
    for path in csrc_files(".h", *SOURCES):
        for name in INCLUDE_LINE.findall(path.read_text()):
            target = resolve(path, name)
            if target is not None:
                edges.append((path, target))
    return edges


def cycles(graph):
    """The strongly connected components of more than one node (Tarjan), or a node that reaches itself."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                found.append(sorted(component))

    for node in list(graph):
        if node not in index:
            visit(node)
    return found


def test_every_folder_has_a_declared_place_in_the_stack():
    folders = {p.name for p in CSRC.iterdir() if p.is_dir()}
    assert folders <= set(STANDS_ON), "declare the place of %s in STANDS_ON" % sorted(folders - set(STANDS_ON))
    assert not [p.name for p in CSRC.iterdir() if p.is_file()], "every file of csrc/ lives in a layer's folder"
    allowed()  # the declaration is acyclic


def test_no_csrc_header_shares_a_path_with_a_public_header():
    """Includes name headers by their path below csrc/ or include/: one path, one header."""
    shared = [str(p.relative_to(CSRC)) for p in csrc_files(".h") if (INCLUDE / p.relative_to(CSRC)).exists()]
    assert shared == []


def test_includes_go_down_the_declared_stack_without_a_cycle():
    may_use = allowed()
    folder_graph = defaultdict(set)
    wrong = []
    for including, included in include_edges():
        a, b = folder_of(including), folder_of(included)
        if a != b:
            folder_graph[a].add(b)
            if b not in may_use[a]:
                wrong.append("%s includes %s" % (including.relative_to(CSRC), included.relative_to(CSRC)))
    assert wrong == [], "includes against the declared stack"
    assert cycles(folder_graph) == []


def test_a_folders_internal_header_is_included_from_that_folder_only():
    outside = ["%s includes %s" % (a.relative_to(CSRC), b.relative_to(CSRC)) for a, b in include_edges()
               if b.name.endswith("_internal.h") and folder_of(a) != folder_of(b)]
    assert outside == []


def build_objects():
    """{csrc source: its object} from the newest build tree holding a current object of every source."""
    sources = csrc_files(*SOURCES)
    best = None
    for build in sorted((ROOT / "build").glob("*/CMakeFiles")):
        objects = {}
        for obj in build.glob("*.dir/csrc/**/*.o"):  # <target>.dir/csrc/<folder>/<file>.c.o
            source = CSRC.joinpath(*obj.relative_to(build).parts[2:]).with_suffix("")
            if source in sources and obj.stat().st_mtime >= source.stat().st_mtime:
                objects[source] = obj
        if len(objects) == len(sources) and (best is None or build.stat().st_mtime > best[0]):
            best = (build.stat().st_mtime, objects)
    if best is None:
        pytest.skip("no build tree with current objects of every csrc/ source: pip install -e . --no-deps")
    return best[1]


def symbols(obj):
    """(defined global symbols, undefined symbols) of an object file."""
    out = subprocess.run(["nm", str(obj)], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0] == "U":
            undefined.add(fields[1])
        elif len(fields) == 3 and fields[1] in "TDBRCVW":
            defined.add(fields[2])
    return defined, undefined


@pytest.fixture(scope="module")
def calls():
    """{caller source: {callee source: [symbols]}} from the build tree's objects, and the symbols each
    source needs that no csrc/ file defines."""
    table = {source: symbols(obj) for source, obj in build_objects().items()}
    owner = {name: source for source, (defined, _) in table.items() for name in defined}
    graph, foreign = defaultdict(lambda: defaultdict(list)), {}
    for source, (_, undefined) in table.items():
        for name in sorted(undefined):
            if name in owner and owner[name] != source:
                graph[source][owner[name]].append(name)
        foreign[source] = {name for name in undefined if name not in owner}
    return graph, foreign


def test_no_object_calls_a_function_of_a_folder_it_does_not_stand_on(calls):
    graph, _ = calls
    may_use = allowed()
    upward = ["%s -> %s: %s" % (a.relative_to(CSRC), b.relative_to(CSRC), " ".join(names))
              for a, callees in graph.items() for b, names in callees.items()
              if folder_of(a) != folder_of(b) and folder_of(b) not in may_use[folder_of(a)]]
    assert upward == []


def test_no_files_call_each_other_in_a_circle(calls):
    graph, _ = calls
    circles = cycles({a: set(callees) for a, callees in graph.items()})
    assert [[str(p.relative_to(CSRC)) for p in circle] for circle in circles] == []


def test_what_csrc_calls_and_does_not_define_is_generated_by_the_bridge(calls):
    _, foreign = calls
    missing = {str(source.relative_to(CSRC)): sorted(n for n in names if n.startswith("opemu_") and not GENERATED.match(n))
               for source, names in foreign.items()}
    assert {source: names for source, names in missing.items() if names} == {}
