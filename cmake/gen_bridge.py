"""Build step: derive the exported surface and the bridge into Python from the headers.

The prototypes in include/ (plus the aclnnop headers generated from cmake/surface, see
surface.py) are the single source. This script preprocesses them, reads every declared function,
asks the compiled C core (through `nm`) which of them C defines, reads the explicit lists of
Python-implemented entry points (python/opemu/implemented.py and the aclnn folders' lists), and writes:

  impl_names.h      (a first pass, before the C core compiles: --impl-names) `#define X
                    opemu_impl_X` for every entry point, force-included into the core, so C
                    implements opemu_impl_X and the exported X is always a generated shim
  bridge.c          the cffi embedding module: cdef of csrc/bridge/bridge_api.h (and the headers it
                    includes: each folder's part of what Python sees), plus one embedded
                    function per Python-implemented entry point
  entry_shims.c     every exported entry point: it records the call when OPEMU_TRACE is set, then
                    calls the C implementation, the generic aclnn launcher (phase 2 of an op
                    Python implements), or Python (after checking that the interpreter started:
                    cffi alone would return 0); every other function answers its family's
                    not-supported status from C, without starting Python. An aclnn phase 1
                    first writes its arguments' plan key and reuses the plan C remembers for
                    it (csrc/aclnn/plan_cache.c): Python sees only signatures not seen before
  exports/<lib>.c   one dummy definition per symbol a vendor library exports (libraries.tsv): the
                    symbol table of the vendor-named filter libraries, whose calls the loader
                    sends to libopemu.so
  entry_points.json what the bridge, `opemu info`, the preflight and docs/SUPPORT.md know about
                    each exported symbol

Aclnn phase-2 functions all share one signature and are routed to C's generic launcher.
"""
import argparse
import json
import os
import re
import subprocess
import sys

import cffi
import pycparser
from pycparser import c_ast, c_generator

import surface
from trace_names import enum_name, name_functions, name_tables, namer

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE_LIBC = os.path.join(HERE, "fake_libc")
STANDARD_TYPEDEFS = {
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
    "size_t", "ptrdiff_t", "uintptr_t", "intptr_t", "bool", "FILE",
}
PUBLIC_HEADER_DIRS = ("acl", "aclnn", "aclnnop", "mcr", "mcdnn", "mcblas", "common", "hccl", "experiment", "runtime")
PUBLIC_TOP_HEADERS = ("mccl.h",)  # headers the vendor installs directly in include/
# What an entry point returns when Python cannot run it: the family's internal-error status.
FAILURE_VALUES = {
    "aclnnStatus": "561000",   # ACLNN_ERR_INNER
    "aclError": "500000",      # ACL_ERROR_INTERNAL_ERROR
    "mcdnnStatus_t": "4",      # MCDNN_STATUS_INTERNAL_ERROR
    "mcError_t": "999",        # mcErrorUnknown
    "mcblasStatus_t": "14",    # MCBLAS_STATUS_INTERNAL_ERROR
    "HcclResult": "4",         # HCCL_E_INTERNAL
    "mcclResult_t": "3",       # mcclInternalError
    "rtError_t": "507000",     # ACL_ERROR_RT_INTERNAL_ERROR
}
# What an entry point opemu does not emulate returns: the family's documented not-supported status.
NOT_SUPPORTED = {
    "aclnnStatus": "ACLNN_ERR_RUNTIME_ERROR",
    "aclError": "ACL_ERROR_API_NOT_SUPPORT",
    "mcdnnStatus_t": "MCDNN_STATUS_NOT_SUPPORTED",
    "mcError_t": "mcErrorNotSupported",
    "mcblasStatus_t": "MCBLAS_STATUS_NOT_SUPPORTED",
    "HcclResult": "HCCL_E_NOT_SUPPORT",
    "mcclResult_t": "mcclInvalidUsage",  # NCCL-style libraries have no not-supported status
    "rtError_t": "ACL_ERROR_RT_FEATURE_NOT_SUPPORT",
}
PHASE2_PARAMS = ["void *", "uint64_t", "aclOpExecutor *", "aclrtStream"]
IMPL_PREFIX = "opemu_impl_"
# What Python sees of the C core, relative to --csrc (it includes each folder's part).
BRIDGE_API = "bridge/bridge_api.h"


def preprocess(cc, include_dirs, csrc_dir, header, markers=False, macros=False):
    """The header as C99 sees it; with `markers`, line markers that tell which file each line is from;
    with `macros`, the #define lines in effect at its end instead."""
    cmd = [cc, "-E", "-std=c99", "-nostdinc", "-I", FAKE_LIBC] + (["-dM"] if macros else [])
    for directory in include_dirs:
        cmd += ["-I", directory]
    cmd += ["-I", csrc_dir, "-D__attribute__(x)=", "-D__extension__=", "-DOPEMU_GENERATOR", header]
    if not markers:
        cmd.insert(2, "-P")
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def public_headers(include_dirs):
    """(root, path relative to it) of every public header; fp16_t.h is C++-only and declares no C entry point,
    and aclnnop/level2/ only forwards to the headers of aclnnop/."""
    for root_dir in include_dirs:
        for name in PUBLIC_TOP_HEADERS:
            if os.path.exists(os.path.join(root_dir, name)):
                yield root_dir, name
        for sub in PUBLIC_HEADER_DIRS:
            for dirpath, dirs, files in os.walk(os.path.join(root_dir, sub)):
                dirs[:] = [d for d in dirs if d != surface.LEVEL2]
                for name in sorted(files):
                    if name.endswith(".h") and "fp16_t" not in name:
                        yield root_dir, os.path.relpath(os.path.join(dirpath, name), root_dir)


def defined_symbols(objects):
    """Entry points the C core implements: opemu_impl_X (or X itself, for variadic ones)."""
    out = subprocess.run(["nm", "--defined-only", "-g", *objects], check=True, capture_output=True, text=True).stdout
    names = {line.split()[-1] for line in out.splitlines() if len(line.split()) == 3}
    return {n[len(IMPL_PREFIX):] if n.startswith(IMPL_PREFIX) else n for n in names}


class Function:
    def __init__(self, decl, header):
        self.decl = decl
        self.name = decl.name
        self.header = header
        gen = c_generator.CGenerator()
        func = decl.type
        self.returns = gen.visit(func.type).replace(decl.name, "").strip()
        params = func.args.params if func.args else []
        if len(params) == 1 and gen.visit(params[0]) == "void":
            params = []
        self.variadic = any(isinstance(p, c_ast.EllipsisParam) for p in params)
        self.params = [(p.name, gen.visit(p)) for p in params if not isinstance(p, c_ast.EllipsisParam)]

    def param_types(self):
        gen = c_generator.CGenerator()
        types = []
        for p in self.decl.type.args.params if self.decl.type.args else []:
            t = gen.visit(p.type).replace(p.name or "", "").replace("const ", "").strip()
            types.append(re.sub(r"\s+", " ", t).replace(" *", " *"))
        return types

    def prototype(self, name):
        """This function's declaration under another name, printed from the header's own AST."""
        gen = c_generator.CGenerator()
        func = self.decl.type
        ret = func.type
        while not isinstance(ret, c_ast.TypeDecl):
            ret = ret.type
        saved = ret.declname
        ret.declname = name
        text = gen.visit(c_ast.Decl(name, [], [], [], [], func, None, None))
        ret.declname = saved
        return text

    def family(self):
        for prefix, family in (("aclnn", "aclnn"), ("mcdnn", "mcdnn"), ("mcblas", "mcblas"), ("mccl", "mccl"),
                               ("mc", "mc"), ("acl", "acl"), ("hccl", "hccl")):
            if self.name.startswith(prefix) or self.name.startswith(prefix.capitalize()):
                return family
        return "other"

    def failure_value(self):
        if self.returns == "void":
            return None
        if "*" in self.returns:
            return "NULL"
        return FAILURE_VALUES.get(self.returns, "0")


def read_functions(ast, header_of):
    functions = {}
    for node in ast.ext:
        if isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.FuncDecl):
            functions[node.name] = Function(node, header_of.get(node.name, ""))
    return functions


def owning_headers(ast, include_dirs):
    """{function: header path relative to include/}, from the line markers of the parse."""
    roots = [os.path.realpath(d) + os.sep for d in include_dirs]
    owner = {}
    for node in ast.ext:
        if isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.FuncDecl) and node.coord:
            path = os.path.realpath(node.coord.file)
            for root_dir in roots:
                if path.startswith(root_dir):
                    owner.setdefault(node.name, path[len(root_dir):])
    return owner


def cdef_text(ast):
    """Types, and the C functions Python calls (opemu_*, not opemu_py_*), for ffi.cdef."""
    gen = c_generator.CGenerator()
    parts = []
    for node in ast.ext:
        if isinstance(node, c_ast.FuncDef) or isinstance(node, c_ast.Typedef) and node.name in STANDARD_TYPEDEFS:
            continue  # inline helpers of the headers (mcblasLtMatrixLayoutInit …) are C's, not Python's
        if isinstance(node, c_ast.Decl):
            if "static" in node.storage:
                continue
            if isinstance(node.type, c_ast.FuncDecl):
                if not node.name.startswith("opemu_") or node.name.startswith("opemu_py_"):
                    continue
        parts.append(gen.visit(node) + ";")
    return "\n".join(parts)


BOOL_PARAMETER = re.compile(r"\b(?:const\s+)?(?:bool|_Bool)(\s+\w+\s*)(?=[,)])")


def python_side(prototype):
    """The prototype Python's entry point is declared with: a bool parameter read as its byte, since a
    caller's bool may hold any byte (a C caller's bool is 0 or 1, a caller through the ABI's may pass 2)
    and cffi refuses to convert one that is not 0 or 1; x86-64 passes both in the same register."""
    head, _, parameters = prototype.partition("(")
    return head + "(" + BOOL_PARAMETER.sub(r"uint8_t\1", parameters)


def is_phase2(fn, functions):
    return (fn.name + "GetWorkspaceSize") in functions and fn.param_types() == PHASE2_PARAMS


def pointer_typedefs(ast):
    """Typedef names that stand for pointers (aclrtStream, mcdnnHandle_t, …)."""
    return {node.name for node in ast.ext if isinstance(node, c_ast.Typedef) and isinstance(node.type, c_ast.PtrDecl)}


POINTER_TYPEDEFS = set()
AGGREGATES = set()  # names of struct/union types passed or returned by value (`struct mcExtent`, dim3 …)


def aggregate_types(ast):
    """Type spellings that denote a struct or union value: typedef names and `struct X` forms."""
    names = set()
    for node in ast.ext:
        if isinstance(node, c_ast.Typedef) and isinstance(node.type, c_ast.TypeDecl):
            inner = node.type.type
            if isinstance(inner, (c_ast.Struct, c_ast.Union)):
                names.add(node.name)
            elif isinstance(inner, c_ast.IdentifierType) and " ".join(inner.names) in names:
                names.add(node.name)
        declared = node.type if isinstance(node, c_ast.Decl) else None
        if isinstance(declared, (c_ast.Struct, c_ast.Union)) and declared.name:
            names.add("%s %s" % ("struct" if isinstance(declared, c_ast.Struct) else "union", declared.name))
    return names
INTEGERS = {"int8_t": "i8", "int16_t": "i16", "int32_t": "i32", "int64_t": "i64", "uint8_t": "u8", "uint16_t": "u16",
            "uint32_t": "u32", "uint64_t": "u64", "size_t": "u64", "int": "i32", "unsigned int": "u32",
            "char": "i8", "long": "i64", "unsigned long": "u64", "_Bool": "bool", "bool": "bool", "float": "f32",
            "double": "f64"}


def abi_class(node, typedefs):
    """How a caller passes one parameter: handle | data | string | function | i8…u64 | bool | f32 | f64.
    A handle is an opaque object pointer (aclTensor *, aclrtStream, mcdnnHandle_t …): the only
    pointers a caller may replace with garbage and still expect an error instead of a crash."""
    if isinstance(node, c_ast.PtrDecl):
        inner = node.type
        if isinstance(inner, c_ast.FuncDecl):
            return "function"
        if isinstance(inner, c_ast.TypeDecl) and isinstance(inner.type, c_ast.IdentifierType):
            name = " ".join(inner.type.names)
            if name == "char":
                return "string"
            target = typedefs.get(name)
            if (isinstance(target, c_ast.TypeDecl) and isinstance(target.type, c_ast.Struct)
                    and target.type.decls is None):
                return "handle"
        return "data"
    if isinstance(node, c_ast.TypeDecl):
        if isinstance(node.type, c_ast.Enum):
            return "i32"
        if isinstance(node.type, c_ast.IdentifierType):
            name = " ".join(node.type.names)
            if name in INTEGERS:
                return INTEGERS[name]
            target = typedefs.get(name)
            if isinstance(target, c_ast.PtrDecl):
                return "function" if isinstance(target.type, c_ast.FuncDecl) else "handle"
            if target is not None:
                return abi_class(target, typedefs)
    return "data"


# A `char *` that is not const, outside the aclnn API (whose attribute strings are inputs declared without const),
# is a buffer the call fills: the trace records it after the call. These are inputs the headers left without const.
INPUT_STRINGS = {("HcclKfcOpArgsSetAlgConfig", "algConfig"), ("aclsysGetVersionNum", "pkgName"),
                 ("aclsysGetVersionStr", "pkgName")}


def is_output_string(fn, name, ctype):
    bare = ctype.replace(name, "").strip()
    return bare == "char *" and not fn.name.startswith("aclnn") and (fn.name, name) not in INPUT_STRINGS


def trace_output(fn, name):
    """Records a buffer the call filled: its text when the call succeeded, else only where it is (an unwritten
    buffer need not hold a terminated string)."""
    if fn.returns in STATUS_TYPES:
        return ("opemu_result == 0 ? opemu_trace_string(&t, \"%s\", %s) : opemu_trace_pointer(&t, \"%s\", %s);"
                % (name, name, name, name))
    return "opemu_trace_string(&t, \"%s\", %s);" % (name, name)


def trace_argument(name, ctype):
    """The opemu_trace_* call recording one argument, chosen by its C type."""
    bare = ctype.replace("const ", "").replace(name, "").strip()
    if bare in POINTER_TYPEDEFS:
        bare += " *"
    if bare in AGGREGATES:
        return "opemu_trace_pointer(&t, \"%s\", (const void *)&%s);" % (name, name)
    if bare in ("aclTensor *",):
        return "opemu_trace_tensor(&t, \"%s\", %s);" % (name, name)
    if bare == "char *":
        return "opemu_trace_string(&t, \"%s\", %s);" % (name, name)
    if "*" in bare:
        return "opemu_trace_pointer(&t, \"%s\", (const void *)%s);" % (name, name)
    if bare in ("float", "double"):
        return "opemu_trace_double(&t, \"%s\", %s);" % (name, name)
    if enum_name(bare) in NAMED_TYPES:
        return "opemu_trace_enum(&t, \"%s\", (long long)%s, %s((long long)%s));" % (name, name,
                                                                                   namer(enum_name(bare)), name)
    return "opemu_trace_integer(&t, \"%s\", (long long)%s);" % (name, name)


def not_supported_status(fn):
    """The status a not-supported function reports: by the type it returns, else by its name's family."""
    if fn.returns in NOT_SUPPORTED:
        return NOT_SUPPORTED[fn.returns]
    for prefix, returns in (("aclnn", "aclnnStatus"), ("mcdnn", "mcdnnStatus_t"), ("mcblas", "mcblasStatus_t"),
                            ("mccl", "mcclResult_t"), ("mc", "mcError_t"), ("acl", "aclError"),
                            ("Hccl", "HcclResult")):
        if fn.name.startswith(prefix):
            return NOT_SUPPORTED[returns]
    return "ACL_ERROR_API_NOT_SUPPORT"


def not_supported_shim(fn):
    """An entry point opemu does not emulate: the family's not-supported status and a message, from C."""
    status = not_supported_status(fn)
    report = 'opemu_not_supported(%s, "%s", "%s", "%s")' % (status, status, fn.name, fn.header)
    lines = ["OPEMU_ENTRY " + fn.prototype(fn.name), "{"]
    if fn.returns in NOT_SUPPORTED:
        lines.append("    return (%s)%s;" % (fn.returns, report))
    elif fn.returns == "void":
        lines.append("    %s;" % report)
    else:
        lines += ["    %s opemu_result;" % fn.returns, "    memset(&opemu_result, 0, sizeof opemu_result);",
                  "    %s;" % report, "    return opemu_result;"]
    return "\n".join(lines + ["}", ""])


# How the phase-1 plan key (csrc/aclnn/plan_cache.c) takes each kind of argument, by the type it is declared with.
PLAN_KEY_PARTS = (("aclTensorList *", "opemu_key_tensor_list(&opemu_key, %s);"),
                  ("aclScalarList *", "opemu_key_scalar_list(&opemu_key, %s);"),
                  ("aclTensor *", "opemu_key_tensor(&opemu_key, %s);"),
                  ("aclScalar *", "opemu_key_scalar(&opemu_key, %s);"),
                  ("aclIntArray *", "opemu_key_array(&opemu_key, %s, OPEMU_KIND_INT_ARRAY);"),
                  ("aclFloatArray *", "opemu_key_array(&opemu_key, %s, OPEMU_KIND_FLOAT_ARRAY);"),
                  ("aclBoolArray *", "opemu_key_array(&opemu_key, %s, OPEMU_KIND_BOOL_ARRAY);"))


def plan_key_part(name, ctype):
    """The statement adding argument `name` to the plan key, or None for a type the key cannot hold."""
    for kind, statement in PLAN_KEY_PARTS:
        if kind in ctype:
            return statement % name
    if "*" in ctype or "[" in ctype:
        return None
    return "opemu_key_value(&opemu_key, &%s, sizeof %s);" % (name, name)


def plan_probe(fn):
    """For an aclnn phase 1 Python implements: a function that reuses the plan of a signature seen before
    without entering Python, else calls Python with the key in place for opemu_plan_remember; None when an
    argument's type cannot be part of the key."""
    if fn.returns != "aclnnStatus" or len(fn.params) < 2 or "aclOpExecutor **" not in fn.params[-1][1]:
        return None
    described = fn.params[:-2]
    parts = [plan_key_part(name, ctype) for name, ctype in described]
    if None in parts:
        return None
    args = ", ".join(name for name, _ in fn.params)
    workspace, executor = (name for name, _ in fn.params[-2:])
    handles = ", ".join("(const void *)%s" % name if "*" in ctype else "NULL" for name, ctype in described)
    return "\n".join(
        ["static opemu_plan_cache *opemu_plans_%s;" % fn.name, "static " + fn.prototype("opemu_phase1_" + fn.name),
         "{", "    opemu_plan_key opemu_key;",
         '    opemu_key_begin(&opemu_key, &opemu_plans_%s, "%s");' % (fn.name, fn.name)]
        + ["    " + part for part in parts]
        + ["    const void *const opemu_arguments[] = {%s};" % (handles or "NULL"),
           "    if (opemu_plan_reuse(&opemu_key, opemu_arguments, %s, %s) == 0)" % (workspace, executor),
           "        return ACLNN_SUCCESS;", "    opemu_key_enter(&opemu_key);",
           "    %s opemu_status = opemu_py_%s(%s);" % (fn.returns, fn.name, args), "    opemu_key_leave(&opemu_key);",
           "    return opemu_status;", "}", ""])


def shim(fn, route):
    """The exported entry point: trace if asked, then the implementation `route` names."""
    if route == "none":
        return not_supported_shim(fn)
    args = ", ".join(name for name, _ in fn.params)
    lines = []
    if route == "c":
        call = "%s%s(%s)" % (IMPL_PREFIX, fn.name, args)
        lines.append(fn.prototype(IMPL_PREFIX + fn.name) + ";")
    elif route == "launch":
        call = "opemu_aclnn_launch(\"%s\", %s)" % (fn.name, args)
    else:
        call = "opemu_py_%s(%s)" % (fn.name, args)
        lines.append(fn.prototype("opemu_py_" + fn.name) + ";")
        probe = plan_probe(fn)
        if probe is not None:
            lines.append(probe)
            call = "opemu_phase1_%s(%s)" % (fn.name, args)
    fail = fn.failure_value()
    lines += ["OPEMU_ENTRY " + fn.prototype(fn.name), "{"]
    if route == "python":
        lines += ["    if (opemu_python_ready(\"%s\") != 0)" % fn.name,
                  "        return%s;" % ("" if fail is None else " " + fail)]
    returns = fn.returns
    lines += ["    if (!opemu_trace_enabled)", "        %s%s;" % ("" if returns == "void" else "return ", call)]
    if returns == "void":
        lines += ["    {"]
    lines += ["    opemu_trace t;", "    opemu_trace_begin(&t, \"%s\");" % fn.name]
    outputs = [name for name, ctype in fn.params if is_output_string(fn, name, ctype)]
    lines += ["    " + trace_argument(name, ctype) for name, ctype in fn.params if name not in outputs]
    if returns == "void":
        lines += ["    %s;" % call] + ["    " + trace_output(fn, name) for name in outputs]
        lines += ["    opemu_trace_end(&t, 0, NULL);", "    }"]
    else:
        lines += ["    %s opemu_result = %s;" % (returns, call)] + ["    " + trace_output(fn, name) for name in outputs]
        # a function returning a value (not a status) has not failed: its record says status 0 and the value
        if returns in AGGREGATES:
            lines += ["    opemu_trace_end(&t, 0, NULL);"]
        elif "*" in returns or returns in POINTER_TYPEDEFS:
            lines += ["    opemu_trace_returned_pointer(&t, (const void *)opemu_result);", "    opemu_trace_end(&t, 0, NULL);"]
        elif returns in ("float", "double"):
            lines += ["    opemu_trace_returned_double(&t, opemu_result);", "    opemu_trace_end(&t, 0, NULL);"]
        elif returns in STATUS_TYPES:
            lines += ["    opemu_trace_end(&t, (long long)opemu_result, %s);"
                      % ("%s((long long)opemu_result)" % namer(returns) if returns in NAMED_TYPES else "NULL")]
        else:
            lines += ["    opemu_trace_returned_integer(&t, (long long)opemu_result);", "    opemu_trace_end(&t, 0, NULL);"]
        lines += ["    return opemu_result;"]
    return "\n".join(lines + ["}", ""])


# The trace's names: {type name: {value: member name}} per enum parameter type and status type (trace_names.py).
STATUS_TYPES = set(FAILURE_VALUES)
NAMED_TYPES = {}  # filled by name_tables()


def python_entry_points(path):
    """The explicit lists (python/opemu/implemented.py, which reads the aclnn vendor folders' lists beside it),
    read as data: the build has no numpy."""
    namespace = {"__file__": os.path.abspath(path)}
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), namespace)
    return namespace["python_entry_points"]()


def routes(functions, in_c, in_python):
    """{name: c | launch | python | none} for every declared function."""
    unknown = sorted(in_python - set(functions))
    if unknown:
        sys.exit("implemented.py or an aclnn folder's list names functions no header declares: %s"
                 % ", ".join(unknown))
    table = {}
    for name, fn in functions.items():
        if name in in_c:
            table[name] = "c"
        elif name in in_python:
            table[name] = "python"
        elif is_phase2(fn, functions) and name + "GetWorkspaceSize" in in_python:
            table[name] = "launch"
        else:
            table[name] = "none"
    return table


def undeclared_shim(name):
    """A vendor export no header declares (an op documented by name only): it takes nothing it reads."""
    return "\n".join(["OPEMU_ENTRY aclnnStatus %s(void)" % name, "{",
                      '    return (aclnnStatus)opemu_not_supported(ACLNN_ERR_RUNTIME_ERROR, "ACLNN_ERR_RUNTIME_ERROR", '
                      '"%s", "");' % name,
                      "}", ""])


INIT_CODE = r'''
import sys
from _opemu_bridge import ffi, lib
try:
    import site
    for _dir in ffi.string(lib.opemu_python_site_dirs()).decode().split(":"):
        if _dir and _dir not in sys.path:
            sys.path.insert(0, _dir)
        if _dir:
            site.addsitedir(_dir)  # runs .pth files, e.g. an editable install's import hook
    from opemu import bridge
    bridge.attach(ffi, lib)
except BaseException as _error:
    import traceback
    lib.opemu_python_failed(("%s: %s" % (type(_error).__name__, _error)).encode()[:1000])
    traceback.print_exc()
    raise
'''


def write_if_changed(path, text):
    """Keeps the timestamps of unchanged outputs, so the build does not recompile them."""
    if os.path.exists(path) and open(path).read() == text:
        return
    with open(path, "w") as f:
        f.write(text)


def export_tables(functions, undeclared, repos):
    """{library: [symbol, …]} and {symbol: [library, …]} from libraries.tsv."""
    table = surface.libraries()
    exports = {library: [] for library, _ in table}
    owners = {}
    named = [(name, fn.header) for name, fn in functions.items()]
    named += [(name, surface.ACLNN_HEADER_DIR + "/(undeclared).h") for name in undeclared]
    named += [(row["symbol"], row["header"]) for row in surface.opdev_symbols()]
    for name, header in sorted(named):
        owners[name] = surface.libraries_of(name, header, repos, table)
        if not owners[name]:
            sys.exit("no library in libraries.tsv exports %s (%s)" % (name, header))
        for library in owners[name]:
            exports[library].append(name)
    return exports, owners


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--include", required=True)
    ap.add_argument("--csrc", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--implemented", required=True, help="python/opemu/implemented.py")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--impl-names", help="write only impl_names.h (the pass before the core compiles)")
    ap.add_argument("objects", nargs="*")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    parser = pycparser.CParser()

    generated_include = os.path.join(args.out, "include")
    undeclared = surface.write_aclnn_headers(generated_include)
    include_dirs = [args.include, generated_include]
    headers = [rel for _, rel in public_headers(include_dirs)]
    umbrella = os.path.join(args.out, "all_public.h")
    write_if_changed(umbrella, "".join('#include "%s"\n' % h for h in headers))
    public_ast = parser.parse(preprocess(args.cc, include_dirs, args.csrc, umbrella, markers=True), "public")
    if args.impl_names:
        write_if_changed(args.impl_names, "/* Generated: C implements every entry point X as opemu_impl_X; X is a shim. */\n"
                         + "".join("#define %s %s%s\n" % (fn.name, IMPL_PREFIX, fn.name)
                                   for fn in read_functions(public_ast, {}).values() if not fn.variadic))
        return
    functions = read_functions(public_ast, owning_headers(public_ast, include_dirs))
    POINTER_TYPEDEFS.update(pointer_typedefs(public_ast))
    AGGREGATES.update(aggregate_types(public_ast))
    typedefs = {node.name: node.type for node in public_ast.ext if isinstance(node, c_ast.Typedef)}
    in_c = defined_symbols(args.objects)
    route = routes(functions, in_c, python_entry_points(args.implemented))
    variadic = sorted(name for name, fn in functions.items() if fn.variadic and route[name] == "python")
    if variadic:
        sys.exit("variadic entry points must be implemented in C: %s" % ", ".join(variadic))
    repos = surface.aclnn_repositories()
    exports, owners = export_tables(functions, undeclared, repos)

    internal_ast = parser.parse(preprocess(args.cc, include_dirs, args.csrc, os.path.join(args.csrc, BRIDGE_API)),
                                BRIDGE_API)
    internal = read_functions(internal_ast, {})
    embedded = [fn.prototype(name) + ";" for name, fn in sorted(internal.items()) if name.startswith("opemu_py_")]
    embedded += [python_side(fn.prototype("opemu_py_" + name)) + ";" for name, fn in sorted(functions.items())
                 if route[name] == "python"]

    entry_points = {
        name: {
            "header": fn.header,
            "family": fn.family(),
            "returns": fn.returns,
            "params": fn.params,
            "abi": [abi_class(p.type, typedefs) for p in (fn.decl.type.args.params if fn.decl.type.args else [])
                    if not isinstance(p, c_ast.EllipsisParam) and fn.params],
            "returns_abi": abi_class(fn.decl.type.type, typedefs),
            "implemented_in": route[name],
            "failure": fn.failure_value(),
            "libraries": owners[name],
        }
        for name, fn in sorted(functions.items())
    }
    for name in undeclared:
        entry_points[name] = {"header": "", "family": "aclnn", "returns": "aclnnStatus", "params": [], "abi": [],
                              "returns_abi": "i32", "implemented_in": "none", "failure": None,
                              "libraries": owners[name], "declared": False}
    for row in surface.opdev_symbols():
        entry_points[row["symbol"]] = {"header": row["header"], "family": "opdev", "returns": "",
                                       "params": [], "abi": [], "returns_abi": "data", "implemented_in": "c",
                                       "failure": None, "libraries": owners[row["symbol"]],
                                       "demangled": row["declaration"]}
    write_if_changed(os.path.join(args.out, "entry_points.json"), json.dumps(entry_points, indent=1, sort_keys=True))

    ffi = cffi.FFI()
    ffi.cdef(cdef_text(internal_ast))
    ffi.embedding_api("\n".join(embedded))
    ffi.set_source("_opemu_bridge", '#include "%s"\n' % BRIDGE_API)
    ffi.embedding_init_code(INIT_CODE)
    bridge_c = os.path.join(args.out, "bridge.c.new")
    ffi.emit_c_code(bridge_c)
    with open(bridge_c) as f:
        bridge_text = f.read() + "\nint opemu_bridge_start(void) { return cffi_start_python(); }\n"
    os.remove(bridge_c)
    write_if_changed(os.path.join(args.out, "bridge.c"), bridge_text)

    macro_dump = preprocess(args.cc, include_dirs, args.csrc, umbrella, macros=True)
    NAMED_TYPES.update(name_tables(public_ast, functions, macro_dump, STATUS_TYPES))
    shims = [shim(fn, route[name]) for name, fn in sorted(functions.items())
             if not (fn.variadic and route[name] == "c")]
    shims += [undeclared_shim(name) for name in undeclared]
    write_if_changed(os.path.join(args.out, "entry_shims.c"), "".join([
        "/* Generated by cmake/gen_bridge.py from the headers in include/. */\n",
        '#include <string.h>\n#include "bridge/shims.h"\n#include "all_public.h"\n\n',
        '#define OPEMU_ENTRY __attribute__((visibility("default")))\n\n', name_functions(NAMED_TYPES), "\n",
        "\n".join(shims)]))

    os.makedirs(os.path.join(args.out, "exports"), exist_ok=True)
    for library, symbols in exports.items():
        write_if_changed(os.path.join(args.out, "exports", library + ".c"),
                         "/* Generated: the symbol table of lib%s.so, a filter library of libopemu.so. */\n" % library
                         + "".join("void %s(void) {}\n" % name for name in symbols))


if __name__ == "__main__":
    main()
