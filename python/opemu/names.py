"""Names for the numbers a trace record or a sanitizer finding carries: statuses by the type the
entry point returns, enum arguments by their parameter's type. All read from the headers."""
import functools
import re

from opemu import preflight
from opemu.core import headers
from opemu.paths import include_dir

_ENUM_DIRS = ("acl", "aclnn", "mcdnn", "mcr", "mcblas")
# the headers that may define the status constants (whichever exist: the runtime's headers moved them)
_STATUS_CONSTANTS = {
    "aclError": ("ACL_", ("acl/acl_base_rt.h", "acl/acl_base.h", "acl/error_codes/rt_error_codes.h",
                          "acl/error_codes/ge_error_codes.h")),
    "aclnnStatus": ("ACLNN_", ("aclnn/opdev/op_errno.h",)),
}


@functools.lru_cache(maxsize=None)
def _enum_headers():
    """{enum type name: header} for every `typedef enum {...} T;` of the runtime/library headers."""
    found = {}
    root = include_dir()
    for directory in _ENUM_DIRS:
        for path in sorted((root / directory).rglob("*.h")):
            for type_name in re.findall(r"typedef\s+enum\s*\w*\s*\{.*?\}\s*(\w+)\s*;", path.read_text(), re.S):
                found.setdefault(type_name, str(path.relative_to(root)))
    return found


@functools.lru_cache(maxsize=None)
def members(type_name):
    """{value: member name} of an enum or status type; {} for other types."""
    if type_name in _STATUS_CONSTANTS:
        prefix, files = _STATUS_CONSTANTS[type_name]
        present = tuple(f for f in files if (include_dir() / f).is_file())
        table = {}
        for name, value in headers.constants(*present).items():
            if name.startswith(prefix):
                table.setdefault(value, name)
        return table
    header = _enum_headers().get(type_name)
    if header is None:
        return {}
    table = {}
    for name, value in headers.enum(header, type_name).items():
        table.setdefault(value, name)
    return table


def _type_of(ctype):
    """'aclrtMemcpyKind kind' -> 'aclrtMemcpyKind' (None for pointers)."""
    if "*" in ctype:
        return None
    words = [w for w in ctype.replace("const ", "").split() if w not in ("enum", "struct")]
    return words[0] if len(words) >= 2 else None


@functools.lru_cache(maxsize=1)
def _table():
    try:
        return preflight.entry_points()
    except OSError:
        return {}


def status_name(function, code):
    """'ACL_ERROR_RT_PARAM_INVALID' for (aclrtFree, 107000); None when unknown."""
    meta = _table().get(function)
    return members(meta["returns"]).get(code) if meta and code is not None else None


def argument_names(function, args):
    """{argument: member name} for the enum-typed integer arguments of a call."""
    meta = _table().get(function)
    named = {}
    for name, ctype in (meta or {}).get("params", []):
        value = args.get(name)
        type_name = _type_of(ctype)
        if isinstance(value, int) and type_name:
            member = members(type_name).get(value)
            if member:
                named[name] = member
    return named


def describe(record):
    """A trace record with "status_name" and "arg_names" added where the headers name them and the
    record does not already (the trace writes both; a finding's record so far has neither)."""
    function = record.get("function")
    name = record.get("status_name") or status_name(function, record.get("status"))
    if name:
        record["status_name"] = name
    named = dict(argument_names(function, record.get("args", {})), **record.get("arg_names", {}))
    if named:
        record["arg_names"] = named
    return record
