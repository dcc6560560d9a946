"""Numeric facts read from the vendor-compatible headers in include/, so that no code, enum value
or status is typed a second time in Python."""
import functools
import re

from opemu.paths import include_dir

_DEFINE = re.compile(r"^\s*#define\s+([A-Z][A-Z0-9_]*)\s+\(?(-?(?:0x[0-9A-Fa-f]+|\d+))[uUlL]*\)?\s*(?://.*|/\*.*)?$", re.M)
_STATIC_CONST = re.compile(r"static\s+const\s+\w+\s+([A-Z][A-Z0-9_]*)\s*=\s*(-?(?:0x[0-9A-Fa-f]+|\d+))[uUlL]*\s*;")
_ENUM = re.compile(r"typedef\s+enum\s*\w*\s*\{(.*?)\}\s*(\w+)\s*;", re.S)


def _read(relative):
    return (include_dir() / relative).read_text()


@functools.lru_cache(maxsize=None)
def constants(*headers):
    """`#define NAME number` and `static const T NAME = number;` of the given headers."""
    values = {}
    for header in headers:
        text = _read(header)
        for pattern in (_DEFINE, _STATIC_CONST):
            for name, number in pattern.findall(text):
                values[name] = int(number, 0)
    return values


@functools.lru_cache(maxsize=None)
def enum(header, type_name):
    """The members of `typedef enum {...} type_name;` with their values (C's counting rules)."""
    for body, name in _ENUM.findall(_read(header)):
        if name != type_name:
            continue
        body = re.sub(r"/\*.*?\*/|//[^\n]*", "", body, flags=re.S)
        members, next_value = {}, 0
        for item in filter(None, (part.strip() for part in body.split(","))):
            member, _, value = (piece.strip() for piece in item.partition("="))
            member = member.split()[0]
            if value:
                value = re.sub(r"(?<=[0-9A-Fa-f])[uU]\b", "", value.split()[-1] if "(" not in value else value)
                next_value = int(value, 0) if re.fullmatch(r"-?(0x[0-9A-Fa-f]+|\d+)", value) else members[value]
            members[member] = next_value
            next_value += 1
        return members
    raise KeyError("%s not found in %s" % (type_name, header))
