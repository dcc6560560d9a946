"""opemu's own environment variables and the values each accepts: the CLI refuses an invalid one
before it runs anything (one line, exit status 2); the library refuses it with a line on stderr
and goes on with the default."""
import os
import re

_INTEGER = r"[0-9]+"
# name: (pattern the value must match in full, what to tell the user)
VARIABLES = {
    "OPEMU_STREAM": (r"eager|deferred", "eager or deferred"),
    "OPEMU_STRICT": (r"[01]", "0 or 1"),
    "OPEMU_SOC": (r"Ascend[0-9A-Za-z_]+", "an Ascend product name such as Ascend910B1"),
    "OPEMU_DEVICE_COUNT": (_INTEGER, "an integer from 1 to 1024"),
    "OPEMU_DEVICE_MEMORY_MB": (_INTEGER, "a positive number of MiB"),
    "OPEMU_THREADS": (_INTEGER, "a positive number of worker threads"),
    "OPEMU_FAULT": (r"[A-Za-z0-9_]+(,[A-Za-z0-9_]+)*", "a comma-separated list of entry-point names"),
    "OPEMU_ISA": (r"portable|baseline|avx512|avx512bf16", "portable, baseline, avx512 or avx512bf16"),
}
_RANGES = {"OPEMU_DEVICE_COUNT": (1, 1024), "OPEMU_DEVICE_MEMORY_MB": (1, 1 << 30), "OPEMU_THREADS": (1, 4096)}


def problem(name, value):
    """Why `value` is refused for `name`, or None when it is valid (empty means unset)."""
    if name not in VARIABLES or value == "":
        return None
    pattern, expected = VARIABLES[name]
    valid = re.fullmatch(pattern, value) is not None
    if valid and name in _RANGES:
        low, high = _RANGES[name]
        valid = low <= int(value) <= high
    return None if valid else "%s=%s is refused: expected %s" % (name, value, expected)


def problems(environ=None):
    environ = os.environ if environ is None else environ
    return [p for p in (problem(name, environ.get(name, "")) for name in sorted(VARIABLES)) if p]


def env_int(name, default):
    """An integer setting, the default (with a line on stderr) when its value is refused."""
    value = os.environ.get(name, "")
    reason = problem(name, value)
    if reason:
        import sys
        sys.stderr.write("opemu: %s; using %s\n" % (reason, default))
    return int(value) if value and not reason else default


def env_choice(name, default):
    """A setting's value, the default (with a line on stderr) when it is refused, and the default when unset."""
    value = os.environ.get(name, "")
    reason = problem(name, value)
    if reason:
        import sys
        sys.stderr.write("opemu: %s; using %s\n" % (reason, default))
    return value if value and not reason else default
