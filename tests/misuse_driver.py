"""Child process of the misuse suite (tests/test_misuse.py): calls every exported entry point with
generated arguments and prints each call before making it and its status after, so the parent can
tell a crash or hang, and where, from a normal end.

    python misuse_driver.py SEED EXAMPLES START
"""
import ctypes
import json
import sys

import numpy as np

import opemu
from opemu import support

ARGUMENT = {"i8": ctypes.c_int8, "i16": ctypes.c_int16, "i32": ctypes.c_int32, "i64": ctypes.c_int64,
            "u8": ctypes.c_uint8, "u16": ctypes.c_uint16, "u32": ctypes.c_uint32, "u64": ctypes.c_uint64,
            "bool": ctypes.c_bool, "f32": ctypes.c_float, "f64": ctypes.c_double, "handle": ctypes.c_void_p,
            "data": ctypes.c_void_p, "string": ctypes.c_char_p, "function": ctypes.c_void_p}
POINTERS = ("handle", "data", "string", "function")
# Sizes stay within the 64 KiB buffers handed over as data: host memory cannot be validated by
# anyone (the vendor's library reads and writes it as told), so only handles get garbage.
SMALL = {"signed": [-1, 0, 1, 3, 64], "unsigned": [0, 1, 3, 64, 4096], "float": [0.0, -1.0, 0.5, float("nan")]}
BUFFER = 1 << 16
SIZE_PARAMETERS = ("count", "N", "width", "height")


class StructReturned(ctypes.Structure):
    """A struct returned by value (mcCreateChannelDesc's 20 bytes): past 16 bytes the x86-64 ABI returns
    it through a caller buffer, so any buffer at least that large calls it right."""
    _fields_ = [("bytes", ctypes.c_char * 64)]


def number(kind, rng):
    if kind in ("f32", "f64"):
        return float(rng.choice(SMALL["float"]))
    if kind == "bool":
        return bool(rng.integers(0, 2))
    values = SMALL["signed"] if kind.startswith("i") else SMALL["unsigned"]
    return int(rng.choice(values))


def garbage_handle(rng, buffers):
    """An address that is no live object: small, misaligned, random, or real memory of another kind."""
    choice = int(rng.integers(0, 4))
    if choice == 0:
        return 0x10
    if choice == 1:
        return 0xDEADBEEF
    if choice == 2:
        return int(rng.integers(1 << 20, 1 << 46)) & ~7
    return ctypes.addressof(buffers[-1])


def scenarios(abi, rng, examples, buffers):
    """(name, arguments, garbage?) for one entry point."""
    def arguments(fill_data, garbage):
        args = []
        for i, kind in enumerate(abi):
            if kind == "handle":
                args.append(garbage_handle(rng, buffers) if i in garbage else None)
            elif kind == "data":
                args.append(ctypes.addressof(buffers[i % (len(buffers) - 1)]) if fill_data else None)
            elif kind == "string":
                args.append(b"" if fill_data else None)
            elif kind == "function":
                args.append(None)
            else:
                args.append(number(kind, rng) if fill_data else 0)
        return args
    yield "null", arguments(False, ()), False
    handles = [i for i, kind in enumerate(abi) if kind == "handle"]
    for example in range(examples):
        yield "buffers", arguments(True, ()), False
        for k in handles:
            yield "garbage-handle-%d" % k, arguments(True, (k,)), True
        if len(handles) > 1:
            yield "garbage-handles", arguments(True, handles), True


def main(seed, examples, start):
    lib = ctypes.CDLL(str(opemu.prefix() / "lib64" / "libopemu.so"))
    table = support.c_entry_points()
    names = sorted(table)
    rng = np.random.default_rng(seed)
    buffers = [ctypes.create_string_buffer(BUFFER) for _ in range(9)]
    for index in range(start, len(names)):
        name, meta = names[index], table[names[index]]
        function = getattr(lib, name)
        function.argtypes = [ARGUMENT[kind] for kind in meta["abi"]]
        returns = meta["returns_abi"]
        by_value = meta["returns"].startswith("struct ")
        function.restype = (None if meta["returns"] == "void" else StructReturned if by_value
                            else ARGUMENT.get(returns, ctypes.c_void_p))
        for scenario, args, garbage in scenarios(meta["abi"], rng, examples, buffers):
            for b in buffers:
                ctypes.memset(b, 0, BUFFER)
            lib.aclrtSetDevice(0)
            print("begin %d %s %s" % (index, name, scenario), flush=True)
            result = function(*args)
            if by_value:
                result = "struct"
            elif returns in POINTERS or meta["returns"] == "void":
                result = None if not result else "non-null"
            # the transfer size: a zero anywhere (a 2D copy's width or height, a 32-bit set's N) is none
            counts = [a for (param, _), a in zip(meta["params"], args) if param in SIZE_PARAMETERS]
            print("result %d %s %s %s %s %s" % (index, name, scenario, json.dumps(result), int(garbage),
                                                 min(counts) if counts else "-"), flush=True)
    print("done", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
