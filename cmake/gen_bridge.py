"""Build step: derive the bridge between the C library and Python from the headers.

The prototypes in include/ are the single source. This script preprocesses them, reads every
declared function, asks the compiled C core (through `nm`) which of them C defines, and writes:

  impl_names.h      (a first pass, before the C core compiles: --impl-names) `#define X
                    opemu_impl_X` for every entry point, force-included into the core, so C
                    implements opemu_impl_X and the exported X is always a generated shim
  bridge.c          the cffi embedding module: cdef of csrc/bridge_api.h, plus one embedded
                    (Python-implemented) function per entry point that C does not define
  entry_shims.c     every exported entry point: it records the call when OPEMU_TRACE is set, then
                    calls the C implementation, the generic aclnn launcher (phase 2), or Python
                    (after checking that the interpreter started: cffi alone would return 0)
  exports.c         one dummy definition per public symbol: the symbol table of the vendor-named
                    filter libraries (libascendcl.so …), whose calls the loader sends to libopemu.so
  entry_points.json what the bridge, `opemu info` and docs/SUPPORT.md know about each entry point

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

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE_LIBC = os.path.join(HERE, "fake_libc")
STANDARD_TYPEDEFS = {
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
    "size_t", "ptrdiff_t", "uintptr_t", "intptr_t", "bool",
}
PUBLIC_HEADER_DIRS = ("acl", "aclnn", "aclnnop", "mcr", "mcdnn")
# What an entry point returns when Python cannot run it: the family's internal-error status.
FAILURE_VALUES = {
    "aclnnStatus": "561000",   # ACLNN_ERR_INNER
    "aclError": "500000",      # ACL_ERROR_INTERNAL_ERROR
    "mcdnnStatus_t": "4",      # MCDNN_STATUS_INTERNAL_ERROR
    "mcError_t": "999",        # mcErrorUnknown
}
PHASE2_PARAMS = ["void *", "uint64_t", "aclOpExecutor *", "aclrtStream"]
IMPL_PREFIX = "opemu_impl_"


def preprocess(cc, include_dir, csrc_dir, header):
    cmd = [cc, "-E", "-P", "-std=c99", "-nostdinc", "-I", FAKE_LIBC, "-I", include_dir, "-I", csrc_dir,
           "-D__attribute__(x)=", "-D__extension__=", "-DOPEMU_GENERATOR", header]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def public_headers(include_dir):
    for sub in PUBLIC_HEADER_DIRS:
        root = os.path.join(include_dir, sub)
        for dirpath, _, files in os.walk(root):
            for name in sorted(files):
                path = os.path.join(dirpath, name)
                if name.endswith(".h") and "fp16_t" not in name:  # fp16_t.h is C++-only and declares no entry point
                    yield os.path.relpath(path, include_dir)


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
        for prefix, family in (("aclnn", "aclnn"), ("mcdnn", "mcdnn"), ("mc", "mc"), ("acl", "acl")):
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


def header_of_each_function(cc, include_dir, csrc_dir, headers, parser):
    owner = {}
    for rel in headers:
        text = preprocess(cc, include_dir, csrc_dir, os.path.join(include_dir, rel))
        for node in parser.parse(text, rel).ext:
            if isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.FuncDecl):
                owner.setdefault(node.name, rel)
    return owner


def cdef_text(ast):
    """Types, and the C functions Python calls (opemu_*, not opemu_py_*), for ffi.cdef."""
    gen = c_generator.CGenerator()
    parts = []
    for node in ast.ext:
        if isinstance(node, c_ast.Typedef) and node.name in STANDARD_TYPEDEFS:
            continue
        if isinstance(node, c_ast.Decl):
            if "static" in node.storage:
                continue
            if isinstance(node.type, c_ast.FuncDecl):
                if not node.name.startswith("opemu_") or node.name.startswith("opemu_py_"):
                    continue
        parts.append(gen.visit(node) + ";")
    return "\n".join(parts)


def is_phase2(fn, functions):
    return (fn.name + "GetWorkspaceSize") in functions and fn.param_types() == PHASE2_PARAMS


def pointer_typedefs(ast):
    """Typedef names that stand for pointers (aclrtStream, mcdnnHandle_t, …)."""
    return {node.name for node in ast.ext if isinstance(node, c_ast.Typedef) and isinstance(node.type, c_ast.PtrDecl)}


POINTER_TYPEDEFS = set()
STRUCT_TYPEDEFS = set()  # passed by value (mcdnnAlgorithm_t): traced by address


def struct_typedefs(ast):
    return {node.name for node in ast.ext if isinstance(node, c_ast.Typedef) and isinstance(node.type, c_ast.TypeDecl)
            and isinstance(node.type.type, (c_ast.Struct, c_ast.Union))}


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


def trace_argument(name, ctype):
    """The opemu_trace_* call recording one argument, chosen by its C type."""
    bare = ctype.replace("const ", "").replace(name, "").strip()
    if bare in POINTER_TYPEDEFS:
        bare += " *"
    if bare in STRUCT_TYPEDEFS:
        return "opemu_trace_pointer(&t, \"%s\", (const void *)&%s);" % (name, name)
    if bare in ("aclTensor *",):
        return "opemu_trace_tensor(&t, \"%s\", %s);" % (name, name)
    if bare == "char *":
        return "opemu_trace_string(&t, \"%s\", %s);" % (name, name)
    if "*" in bare:
        return "opemu_trace_pointer(&t, \"%s\", (const void *)%s);" % (name, name)
    if bare in ("float", "double"):
        return "opemu_trace_double(&t, \"%s\", %s);" % (name, name)
    return "opemu_trace_integer(&t, \"%s\", (long long)%s);" % (name, name)


def shim(fn, functions, in_c):
    """The exported entry point: trace if asked, then the implementation."""
    args = ", ".join(name for name, _ in fn.params)
    lines = []
    if fn.name in in_c:
        call = "%s%s(%s)" % (IMPL_PREFIX, fn.name, args)
        lines.append(fn.prototype(IMPL_PREFIX + fn.name) + ";")
    elif is_phase2(fn, functions):
        call = "opemu_aclnn_launch(\"%s\", %s)" % (fn.name, args)
    else:
        call = "opemu_py_%s(%s)" % (fn.name, args)
        lines.append(fn.prototype("opemu_py_" + fn.name) + ";")
    fail = fn.failure_value()
    lines += ["OPEMU_ENTRY " + fn.prototype(fn.name), "{"]
    if fn.name not in in_c and not is_phase2(fn, functions):
        lines += ["    if (opemu_python_ready(\"%s\") != 0)" % fn.name,
                  "        return%s;" % ("" if fail is None else " " + fail)]
    returns = fn.returns
    lines += ["    if (!opemu_trace_enabled)", "        %s%s;" % ("" if returns == "void" else "return ", call)]
    if returns == "void":
        lines += ["    {"]
    lines += ["    opemu_trace t;", "    opemu_trace_begin(&t, \"%s\");" % fn.name]
    lines += ["    " + trace_argument(name, ctype) for name, ctype in fn.params]
    if returns == "void":
        lines += ["    %s;" % call, "    opemu_trace_end(&t, 0, NULL);", "    }"]
    else:
        lines += ["    %s result = %s;" % (returns, call)]
        if "*" in returns or returns in POINTER_TYPEDEFS:
            lines += ["    opemu_trace_end(&t, 0, (const void *)result);"]
        elif returns in ("float", "double"):
            lines += ["    opemu_trace_end(&t, (long long)(result != result), NULL);"]
        else:
            lines += ["    opemu_trace_end(&t, (long long)result, NULL);"]
        lines += ["    return result;"]
    return "\n".join(lines + ["}", ""])


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--include", required=True)
    ap.add_argument("--csrc", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--impl-names", help="write only impl_names.h (the pass before the core compiles)")
    ap.add_argument("objects", nargs="*")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    parser = pycparser.CParser()

    headers = list(public_headers(args.include))
    umbrella = os.path.join(args.out, "all_public.h")
    with open(umbrella, "w") as f:
        f.write("".join('#include "%s"\n' % h for h in headers))
    public_ast = parser.parse(preprocess(args.cc, args.include, args.csrc, umbrella), "public")
    if args.impl_names:
        with open(args.impl_names, "w") as f:
            f.write("/* Generated: C implements every entry point X as opemu_impl_X; X is a shim. */\n")
            f.write("".join("#define %s %s%s\n" % (fn.name, IMPL_PREFIX, fn.name)
                            for fn in read_functions(public_ast, {}).values() if not fn.variadic))
        return
    owner = header_of_each_function(args.cc, args.include, args.csrc, headers, parser)
    functions = read_functions(public_ast, owner)
    POINTER_TYPEDEFS.update(pointer_typedefs(public_ast))
    STRUCT_TYPEDEFS.update(struct_typedefs(public_ast))
    typedefs = {node.name: node.type for node in public_ast.ext if isinstance(node, c_ast.Typedef)}
    in_c = defined_symbols(args.objects)
    routed = [fn for name, fn in sorted(functions.items()) if name not in in_c]
    variadic = [fn.name for fn in routed if fn.variadic]
    if variadic:
        sys.exit("variadic entry points must be implemented in C: %s" % ", ".join(variadic))

    internal_ast = parser.parse(preprocess(args.cc, args.include, args.csrc, os.path.join(args.csrc, "bridge_api.h")),
                                "bridge_api.h")
    internal = read_functions(internal_ast, {})
    to_python = [fn for fn in routed if not is_phase2(fn, functions)]
    embedded = [fn.prototype(name) + ";" for name, fn in sorted(internal.items()) if name.startswith("opemu_py_")]
    embedded += [fn.prototype("opemu_py_" + fn.name) + ";" for fn in to_python]

    entry_points = {
        name: {
            "header": fn.header,
            "family": fn.family(),
            "returns": fn.returns,
            "params": fn.params,
            "abi": [abi_class(p.type, typedefs) for p in (fn.decl.type.args.params if fn.decl.type.args else [])
                    if not isinstance(p, c_ast.EllipsisParam) and fn.params],
            "returns_abi": abi_class(fn.decl.type.type, typedefs),
            "implemented_in": "c" if name in in_c else ("launch" if is_phase2(fn, functions) else "python"),
            "failure": fn.failure_value(),
        }
        for name, fn in sorted(functions.items())
    }
    with open(os.path.join(args.out, "entry_points.json"), "w") as f:
        json.dump(entry_points, f, indent=1, sort_keys=True)

    ffi = cffi.FFI()
    ffi.cdef(cdef_text(internal_ast))
    ffi.embedding_api("\n".join(embedded))
    ffi.set_source("_opemu_bridge", '#include "internal.h"\n')
    ffi.embedding_init_code(INIT_CODE)
    bridge_c = os.path.join(args.out, "bridge.c")
    ffi.emit_c_code(bridge_c)
    with open(bridge_c, "a") as f:
        f.write("\nint opemu_bridge_start(void) { return cffi_start_python(); }\n")

    with open(os.path.join(args.out, "entry_shims.c"), "w") as f:
        f.write("/* Generated by cmake/gen_bridge.py from the headers in include/. */\n")
        f.write('#include "internal.h"\n#include "all_public.h"\n\n')
        f.write('#define OPEMU_ENTRY __attribute__((visibility("default")))\n\n')
        f.write("\n".join(shim(fn, functions, in_c) for name, fn in sorted(functions.items()) if not fn.variadic))

    with open(os.path.join(args.out, "exports.c"), "w") as f:
        f.write("/* Generated: the symbol table of the vendor-named filter libraries. */\n")
        f.write("".join("void %s(void) {}\n" % name for name in sorted(functions)))


if __name__ == "__main__":
    main()
