"""The child process of the fuzz suite (tests/test_fuzz.py): reads one case per line (JSON) on stdin,
makes the C calls it describes through the vendor ABI, and answers one JSON line: the statuses and
the violations its oracles saw. A crash or a hang kills only this process; the parent sees it.

Oracles, for every case:
  - no internal error for input the vendor's checks judge (a message saying "internal error");
  - no false success (a call that returns 0 for what it must refuse);
  - no change to the app's memory outside what the call may write (device allocations other than
    the call's outputs, output bytes outside the outputs' views, host canaries)."""
import ctypes
import json
import os
import random
import re
import sys
from ctypes import POINTER, byref, c_double, c_float, c_int, c_int64, c_size_t, c_uint, c_uint64, c_void_p

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import acl  # noqa: E402  (tests/acl.py: the library, loaded once)
from opemu import ops, preflight  # noqa: E402
from opemu.core import dtypes  # noqa: E402
from opemu.core.mcdnn import OPS as MCDNN_OPS  # noqa: E402
from opemu.core.op import OPS  # noqa: E402

LIB = acl.lib()
LIB.aclrtMemcpy2d.argtypes = [c_void_p, c_size_t, c_void_p, c_size_t, c_size_t, c_size_t, c_int]
LIB.aclrtMemset.argtypes = [c_void_p, c_size_t, c_int, c_size_t]
LIB.aclrtMalloc.argtypes = [POINTER(c_void_p), c_size_t, c_int]
LIB.aclrtMallocHost.argtypes = [POINTER(c_void_p), c_size_t]
LIB.aclrtFreeHost.argtypes = [c_void_p]
LIB.aclDestroyAclOpExecutor.argtypes = [c_void_p]
LIB.mcMalloc.argtypes = [POINTER(c_void_p), c_size_t]
LIB.mcMallocHost.argtypes = [POINTER(c_void_p), c_size_t]
LIB.mcFree.argtypes = LIB.mcFreeHost.argtypes = [c_void_p]
LIB.mcMemcpy.argtypes = [c_void_p, c_void_p, c_size_t, c_int]
LIB.mcMemset.argtypes = [c_void_p, c_int, c_size_t]
LIB.aclGetRecentErrMsg.restype = ctypes.c_char_p
TABLE = preflight.entry_points()
ops.load_all()
HOST_BYTES, CANARY_BYTES, SLACK = 8192, 4096, 1024  # SLACK: more than any allocator rounding of these sizes
MAX_BUFFER = 1 << 20


def message():
    text = LIB.aclGetRecentErrMsg()
    return text.decode(errors="replace") if text else ""


class Memory:
    """The app's memory in one case: device allocations (with what the call may write) and a host
    buffer followed by a canary."""

    def __init__(self, alloc="aclrtMalloc"):
        self.blocks, self.alloc = [], alloc
        self.host = (ctypes.c_uint8 * (HOST_BYTES + CANARY_BYTES))()
        ctypes.memset(self.host, 0xA5, HOST_BYTES + CANARY_BYTES)

    def device(self, nbytes, fill=0x5A):
        address = c_void_p()
        rc = (LIB.aclrtMalloc(byref(address), nbytes, 0) if self.alloc == "aclrtMalloc"
              else LIB.mcMalloc(byref(address), nbytes))
        if rc != 0:
            return None
        ctypes.memset(address, fill, nbytes)
        self.blocks.append([address.value, nbytes, []])  # writable ranges, added by the case
        return address.value

    def writable(self, address, start, end):
        for block in self.blocks:
            if block[0] == address:
                block[2].append((start, end))

    def writable_span(self, start, nbytes):
        """[start, start + nbytes) by address: an offset past one allocation may land in another."""
        for block in self.blocks:
            low, high = max(start, block[0]), min(start + nbytes, block[0] + block[1])
            if low < high:
                block[2].append((low - block[0], high - block[0]))

    def snapshot(self):
        return [ctypes.string_at(b[0], b[1]) for b in self.blocks], ctypes.string_at(self.host, HOST_BYTES + CANARY_BYTES)

    def changes(self, before):
        """Violations: bytes changed outside the writable ranges."""
        found = []
        devices, host = before
        for (address, nbytes, ranges), old in zip(self.blocks, devices):
            new = ctypes.string_at(address, nbytes)
            if new != old:
                changed = [i for i in range(nbytes) if new[i] != old[i]]
                stray = [i for i in changed if not any(s <= i < e for s, e in ranges)]
                if stray:
                    found.append("write outside what the call may write: %d byte(s) of a %d-byte allocation, "
                                 "first at offset %d (writable %s)" % (len(stray), nbytes, stray[0], ranges))
        if ctypes.string_at(ctypes.addressof(self.host) + HOST_BYTES, CANARY_BYTES) != host[HOST_BYTES:]:
            found.append("write past the host buffer into its canary")
        return found

    def free(self):
        for address, _, _ in self.blocks:
            (LIB.aclrtFree if self.alloc == "aclrtMalloc" else LIB.mcFree)(c_void_p(address))


def internal_error(violations, where):
    text = message()
    if "internal error" in text:
        violations.append("internal error in %s: %s" % (where, text[-300:]))
    return text


# ---- aclnn phase 1 and 2 ----

# Kernels that scatter out[n, target] without checking the target (the A2/A3 NLLLoss backward, as
# the device does): the bytes a target outside the classes reaches, in any allocation, are the
# call's to write too.
SCATTERS_BY_TARGET = {"aclnnNLLLossBackward", "aclnnNLLLoss2dBackward"}


def _stray_scatter_writable(memory, out, target):
    """Marks out's span shifted by the target's class (every target element holds its fill byte)."""
    (arg, address), dtype = out, dtypes.NUMPY_OF.get(target["dtype"])
    if dtype is None or dtype.kind not in "iu" or not arg["shape"]:
        return
    cls = int(np.frombuffer(bytes([target["fill"]]) * dtype.itemsize, dtype)[0])
    item = _itemsize(arg["dtype"])
    class_stride = arg["strides"][1 if len(arg["shape"]) > 1 else 0]
    start = address + (arg["offset"] + cls * class_stride) * item
    memory.writable_span(start, _span(arg["shape"], arg["strides"], arg["offset"]) * item)


def _itemsize(code):
    dtype = dtypes.NUMPY_OF.get(code)
    return dtype.itemsize if dtype is not None else 4


def _span(shape, strides, offset):
    if 0 in shape:
        return 0
    return offset + sum((d - 1) * s for d, s in zip(shape, strides)) + 1


def _contiguous(shape):
    strides, s = [], 1
    for d in reversed(shape):
        strides.insert(0, s)
        s *= max(d, 1)
    return strides


def _judgeable(t):
    """What phase 1 must refuse whatever the op: an unknown dtype, a negative layout, a span
    beyond int64 bytes."""
    if t["dtype"] not in dtypes.NUMPY_OF:
        return "dtype %d" % t["dtype"]
    if min(t["shape"] + t["strides"] + [t["offset"]], default=0) < 0:
        return "a negative dim, stride or offset"
    span = max(_span(t["shape"], t["strides"], t["offset"]), 1) * _itemsize(t["dtype"])
    if span > 2 ** 63 - 1:
        return "a span of %d bytes" % span
    return None


def run_aclnn(case):
    name, op = case["op"], OPS[case["op"]]
    params = TABLE[name + "GetWorkspaceSize"]["params"][:-2]
    memory, violations, handles, args, tensors = Memory(), [], [], [], {}
    handles_of_kind = []   # (destroy function, handle) of scalars and int arrays
    try:
        for (pname, ctype), arg in zip(params, case["args"]):
            if "aclTensor" in ctype:
                if arg is None:
                    args.append(c_void_p(None))
                    continue
                arg["strides"] = arg["strides"] if arg["strides"] is not None else _contiguous(arg["shape"])
                arg["strides"] = arg["strides"][:len(arg["shape"])] + [1] * (len(arg["shape"]) - len(arg["strides"]))
                span = _span(arg["shape"], arg["strides"], arg["offset"])
                nbytes = span * _itemsize(arg["dtype"]) if span > 0 else 0
                size = nbytes if arg["alloc"] == "fit" else max(nbytes // 2, 1)
                address = memory.device(size if 0 < size <= MAX_BUFFER else 64, arg["fill"])
                storage = [max(span, 1)] if span < 2 ** 62 else [1]
                handle = LIB.aclCreateTensor(acl._int64s(arg["shape"]), len(arg["shape"]), arg["dtype"],
                                             acl._int64s(arg["strides"]), arg["offset"], arg["format"],
                                             acl._int64s(storage), 1, address)
                if handle:
                    handles.append(handle)
                    tensors[pname] = (arg, address)
                args.append(c_void_p(handle))
            elif "aclScalar" in ctype or "aclIntArray" in ctype:
                args.append(c_void_p(_meta_object(ctype, arg, handles_of_kind)))
            elif ctype.startswith("double"):
                args.append(c_double(arg))
            elif ctype.startswith("float"):
                args.append(c_float(arg))
            elif ctype.startswith("bool"):
                args.append(ctypes.c_bool(bool(arg)))
            elif ctype.startswith("uint64_t"):
                args.append(c_uint64(arg % 2 ** 64))
            elif re.match(r"(const\s+)?char\s*\*", ctype):   # a mode name: a C string or null, never garbage
                args.append(ctypes.c_char_p(None if arg is None else str(arg).encode()))
            else:
                args.append(c_int64(max(min(arg, 2 ** 63 - 1), -2 ** 63)))
        workspace_size, executor = c_uint64(), c_void_p()
        phase1 = getattr(LIB, name + "GetWorkspaceSize")
        status = phase1(*args, byref(workspace_size), byref(executor))
        internal_error(violations, "phase 1")
        result = {"phase1": status}
        if status == 0:
            for pname, (arg, _) in tensors.items():  # a tensor the kernel never touches is the op's to ignore
                reason = _judgeable(arg) if pname in op.inputs + op.outputs else None
                if reason:
                    violations.append("false success: phase 1 accepted tensor %s with %s" % (pname, reason))
            if workspace_size.value > MAX_BUFFER * 64:
                LIB.aclDestroyAclOpExecutor(executor)
                return result, violations
            workspace = memory.device(max(workspace_size.value, 1)) if workspace_size.value else None
            if workspace:
                memory.writable(workspace, 0, workspace_size.value)
            for pname in op.outputs:
                if pname in tensors:
                    arg, address = tensors[pname]
                    item = _itemsize(arg["dtype"])
                    memory.writable(address, arg["offset"] * item,
                                    _span(arg["shape"], arg["strides"], arg["offset"]) * item)
            if name in SCATTERS_BY_TARGET and "out" in tensors and "target" in tensors:
                _stray_scatter_writable(memory, tensors["out"], tensors["target"][0])
            before = memory.snapshot()
            phase2 = getattr(LIB, name)
            phase2.argtypes = [c_void_p, c_uint64, c_void_p, c_void_p]
            result["phase2"] = phase2(workspace, workspace_size.value, executor, None)
            internal_error(violations, "phase 2")
            result["sync"] = LIB.aclrtSynchronizeStream(None)
            internal_error(violations, "phase 2's synchronisation")
            violations += memory.changes(before)
        return result, violations
    finally:
        for handle in handles:
            LIB.aclDestroyTensor(c_void_p(handle))
        for destroy, handle in handles_of_kind:
            destroy(c_void_p(handle))
        memory.free()


SCALAR_CTYPES = {0: c_float, 1: ctypes.c_uint16, 2: ctypes.c_int8, 3: ctypes.c_int32, 4: ctypes.c_uint8,
                 6: ctypes.c_int16, 9: c_int64, 11: c_double, 12: ctypes.c_bool, 27: ctypes.c_uint16}


def _meta_object(ctype, spec, made):
    """An aclScalar ({"scalar": value, "dtype": code}) or aclIntArray ({"ints": [...]}), or NULL."""
    if spec is None:
        return None
    if "aclIntArray" in ctype:
        values = [max(min(v, 2 ** 63 - 1), -2 ** 63) for v in spec["ints"]]
        LIB.aclCreateIntArray.restype = c_void_p
        handle = LIB.aclCreateIntArray(acl._int64s(values) if values else None, c_uint64(len(values)))
        made.append((LIB.aclDestroyIntArray, handle))
        return handle
    kind = SCALAR_CTYPES.get(spec["dtype"], c_double)   # a code with no C type: 8 readable bytes
    value = spec["scalar"]
    cell = kind(value if kind in (c_float, c_double) else (int(value) if value == value and abs(value) < 2 ** 62 else 0))
    LIB.aclCreateScalar.restype = c_void_p
    handle = LIB.aclCreateScalar(ctypes.cast(ctypes.pointer(cell), c_void_p), spec["dtype"])
    made.append((LIB.aclDestroyScalar, handle))
    return handle


# ---- the runtimes' memory calls ----

def _side(memory, side, devices, offset):
    """A pointer for a copy's side: one of the two device allocations or the host buffer, at an offset."""
    if side == "null":
        return None, None
    if side == "host":
        return ctypes.addressof(memory.host) + offset, None
    base = devices[int(side[-1])]
    return (base + offset) % 2 ** 64 if base else None, base


def run_memory(case):
    """aclrtMalloc/Memcpy/Memcpy2d/Memset or mcMalloc/Memcpy/Memset with hostile sizes."""
    runtime = case["runtime"]
    memory, violations = Memory("aclrtMalloc" if runtime == "acl" else "mcMalloc"), []
    try:
        call = case["call"]
        if call in ("malloc", "mallocHost"):
            address = c_void_p()
            size = case["size"] % 2 ** 64
            if runtime == "acl":
                status = (LIB.aclrtMalloc(byref(address), size, case["policy"]) if call == "malloc"
                          else LIB.aclrtMallocHost(byref(address), size))
            else:
                status = LIB.mcMalloc(byref(address), size) if call == "malloc" else LIB.mcMallocHost(byref(address), size)
            internal_error(violations, call)
            if status == 0 and size > 2 ** 40:
                violations.append("false success: %s of %d bytes" % (call, size))
            if status == 0 and address.value:
                ctypes.memset(address, 0, min(size, 64))  # the memory must be there
                free = {("acl", "malloc"): LIB.aclrtFree, ("acl", "mallocHost"): LIB.aclrtFreeHost,
                        ("mc", "malloc"): LIB.mcFree, ("mc", "mallocHost"): LIB.mcFreeHost}[runtime, call]
                free(address)
            return {"status": status}, violations
        devices = [memory.device(n) for n in case["sizes"]]
        dst, dst_base = _side(memory, case["dst"], devices, case["dst_offset"])
        src, src_base = _side(memory, case["src"], devices, case["src_offset"])
        count = case["count"] % 2 ** 64
        if call == "memcpy2d":
            width, height = case["width"] % 2 ** 64, case["height"] % 2 ** 64
            # a width or height of 0 copies nothing: the runtime returns before looking at the pitches
            dst_span = case["dpitch"] * (height - 1) + width if height and width else 0
            src_span = case["spitch"] * (height - 1) + width if height and width else 0
        else:
            dst_span = src_span = count
        host_sides = {"memset": ()}.get(call, {0: (0, 1), 1: (1,), 2: (0,)}.get(case["kind"], ()))
        for n, (side, offset, span) in enumerate(((case["dst"], case["dst_offset"], dst_span),
                                                  (case["src"], case["src_offset"], src_span))):
            if side == "host" and offset + span > HOST_BYTES:
                return {"status": None, "skipped": "the app's host buffer is too small"}, violations
            if n in host_sides and side.startswith("dev") and offset + span > case["sizes"][int(side[-1])]:
                # the kind makes it host memory the app vouches for: a wild one faults on hardware too
                return {"status": None, "skipped": "a host side the app claims is no memory of its own"}, violations
            start = (devices[int(side[-1])] + offset) % 2 ** 64 if side.startswith("dev") and devices[int(side[-1])] \
                else None
            if call != "memset" and case["kind"] == 4 and start is not None and span and not any(
                    b <= start < b + size for b, size, _ in memory.blocks):
                # DEFAULT takes the kind from the pointer: outside device memory it is the app's host memory
                return {"status": None, "skipped": "a DEFAULT side outside device memory is the app's host memory"}, \
                    violations
        if dst_base is not None:
            memory.writable_span(dst, dst_span)
        before = memory.snapshot()
        if call == "memset":
            status = (LIB.aclrtMemset(dst, case["dest_max"] % 2 ** 64, case["value"], count) if runtime == "acl"
                      else LIB.mcMemset(dst, case["value"], count))
        elif call == "memcpy2d":
            status = LIB.aclrtMemcpy2d(dst, case["dpitch"] % 2 ** 64, src, case["spitch"] % 2 ** 64,
                                       case["width"] % 2 ** 64, case["height"] % 2 ** 64, case["kind"])
        elif runtime == "acl":
            status = LIB.aclrtMemcpy(c_void_p(dst), case["dest_max"] % 2 ** 64, c_void_p(src), count, case["kind"])
        else:
            status = LIB.mcMemcpy(dst, src, count, case["kind"])
        internal_error(violations, call)
        violations += memory.changes(before)
        if status == 0 and dst_span:
            # the sides the call takes as device memory (by kind; a memset's destination): outside its
            # allocation the call must fail. A side the kind calls host memory is the app's claim.
            device_sides = {"memset": (0,)}.get(call, {1: (0,), 2: (1,), 3: (0, 1)}.get(case["kind"], ()))
            for side, base, offset, span, n in ((case["dst"], dst_base, case["dst_offset"], dst_span, 0),
                                                (case["src"], src_base, case["src_offset"], src_span, 1)):
                if n not in device_sides:
                    continue
                # inside any of the case's allocations is device memory (an offset may land in the other one)
                start = (base + offset) % 2 ** 64 if base else None
                inside = start is not None and any(b <= start and start + span <= b + size + SLACK
                                                   for b, size, _ in memory.blocks)
                if side.startswith("dev") and base and not inside:
                    violations.append("false success: %s's %s range [%d, %d) lies outside its %d-byte allocation"
                                      % (call, "destination" if n == 0 else "source", offset, offset + span,
                                         case["sizes"][int(side[-1])]))
        return {"status": status}, violations
    finally:
        memory.free()


# ---- mcDNN descriptors and routines ----

def _descriptor(kind, spec, created):
    """A descriptor of `kind` set from `spec` (None: created, never set); set failures leave it unset."""
    handle = c_void_p()
    create = getattr(LIB, "mcdnnCreate%sDescriptor" % kind)
    if create(byref(handle)) != 0:
        return None
    created.append((kind, handle))
    if spec is None:
        return handle
    if kind == "Tensor":
        n = len(spec["dims"])
        ints = lambda values: (c_int * max(n, 1))(*values)  # noqa: E731
        strides = spec["strides"] if spec["strides"] is not None else _contiguous(spec["dims"])
        spec["set_status"] = LIB.mcdnnSetTensorNdDescriptor(handle, spec["dtype"], n, ints(spec["dims"]),
                                                            ints(strides[:n] + [1] * (n - len(strides))))
    elif kind == "Activation":
        LIB.mcdnnSetActivationDescriptor.argtypes = [c_void_p, c_int, c_int, c_double]
        LIB.mcdnnSetActivationDescriptor(handle, spec["mode"], spec["nan"], spec["coef"])
    elif kind == "Pooling":
        LIB.mcdnnSetPooling2dDescriptor(handle, spec["mode"], spec["nan"], *spec["window"])
    elif kind == "LRN":
        LIB.mcdnnSetLRNDescriptor.argtypes = [c_void_p, c_uint, c_double, c_double, c_double]
        LIB.mcdnnSetLRNDescriptor(handle, spec["n"] % 2 ** 32, spec["alpha"], spec["beta"], spec["k"])
    elif kind == "Filter":
        n = len(spec["dims"])
        spec["set_status"] = LIB.mcdnnSetFilterNdDescriptor(handle, spec["dtype"], spec["format"], n,
                                                            (c_int * max(n, 1))(*spec["dims"]))
    elif kind == "Convolution":
        n = len(spec["pad"])
        ints = lambda values: (c_int * max(n, 1))(*(v % 2 ** 32 - (2 ** 32 if v % 2 ** 32 >= 2 ** 31 else 0)
                                                    for v in values))  # noqa: E731
        LIB.mcdnnSetConvolutionNdDescriptor(handle, n, ints(spec["pad"]), ints(spec["stride"]), ints(spec["dilation"]),
                                            spec["mode"], spec["compute"])
        LIB.mcdnnSetConvolutionGroupCount(handle, spec["groups"])
    return handle


DESCRIPTOR_KINDS = {"mcdnnTensorDescriptor_t": "Tensor", "mcdnnActivationDescriptor_t": "Activation",
                    "mcdnnPoolingDescriptor_t": "Pooling", "mcdnnLRNDescriptor_t": "LRN",
                    "mcdnnFilterDescriptor_t": "Filter", "mcdnnConvolutionDescriptor_t": "Convolution"}


def _descriptor_bytes(spec):
    if spec is None or spec.get("set_status") != 0:
        return 256
    dims = spec["dims"]
    strides = spec.get("strides") if spec.get("strides") is not None else _contiguous(dims)   # a filter is dense
    item = {0: 4, 1: 8, 2: 2, 9: 2}.get(spec["dtype"], 4)
    span = _span(dims, strides[:len(dims)] + [1] * (len(dims) - len(strides)), 0)
    return span * item


def run_mcdnn(case):
    name, op = case["routine"], MCDNN_OPS[case["routine"]]
    params = TABLE[name]["params"]
    memory, violations, created = Memory("mcMalloc"), [], []
    handle = c_void_p()
    try:
        if LIB.mcdnnCreate(byref(handle)) != 0:
            return {"status": None}, ["mcdnnCreate failed: %s" % message()]
        specs, args, argtypes = case["descriptors"], [], []
        pointers = {v: k for k, v in op.tensors.items()}  # descriptor name -> data pointer name
        descriptors = {}
        for pname, ctype in params:
            base = ctype.replace("const ", "").split()[0]
            if base == "mcdnnHandle_t":
                args.append(handle), argtypes.append(c_void_p)
            elif base in DESCRIPTOR_KINDS:
                spec = specs.get(pname, "null")
                descriptors[pname] = spec
                value = None if spec == "null" else _descriptor(DESCRIPTOR_KINDS[base], spec, created)
                args.append(value), argtypes.append(c_void_p)
            elif "*" in ctype and pname in ("alpha", "beta", "alpha1", "alpha2", "alphaDataDiff", "betaDataDiff",
                                             "alphaParamDiff", "betaParamDiff"):
                scalar = ctypes.create_string_buffer(16)  # read as float or double (by the data type): room for both
                value = case["scalars"].get(pname, 1.0)
                ctypes.memmove(scalar, byref(c_double(value) if case["double_scalars"] else c_float(value)), 8 if case["double_scalars"] else 4)
                args.append(ctypes.addressof(scalar)), argtypes.append(c_void_p)
                descriptors.setdefault("_keep", []).append(scalar)
            elif "*" in ctype:
                args.append(None), argtypes.append(c_void_p)  # filled below, once descriptors are known
            elif base in ("double",):
                args.append(case["values"].get(pname, 1e-5)), argtypes.append(c_double)
            elif base in ("float",):
                args.append(case["values"].get(pname, 0.5)), argtypes.append(c_float)
            elif base in ("size_t", "uint64_t"):
                args.append(case["values"].get(pname, 0) % 2 ** 64), argtypes.append(c_size_t)
            else:  # enums and ints
                args.append(c_int(case["values"].get(pname, 0) % 2 ** 32).value), argtypes.append(c_int)
        outputs = set(op.outputs)
        for i, (pname, ctype) in enumerate(params):
            if args[i] is not None or "*" not in ctype or argtypes[i] is not c_void_p:
                continue
            desc_name = op.tensors.get(pname)
            if desc_name is not None:
                spec = descriptors.get(desc_name)
                nbytes = _descriptor_bytes(None if spec in (None, "null") else spec)
                choice = case["alloc"].get(pname, "fit")
                if choice == "null":
                    continue
                size = nbytes if choice == "fit" else max(nbytes // 2, 1)
                address = memory.device(size if 0 < size <= MAX_BUFFER else 64, 0)
                if pname in outputs and address:
                    memory.writable(address, 0, size)
                args[i] = address
            elif ctype.replace("const ", "").startswith(("size_t *", "void *")) and "Size" not in pname:
                address = memory.device(4096, 0)  # workspace, reserve space, states: the routine may write
                if address:
                    memory.writable(address, 0, 4096)
                args[i] = address
            else:
                out = ctypes.create_string_buffer(64)
                descriptors.setdefault("_keep", []).append(out)
                args[i] = ctypes.addressof(out)
        fn = getattr(LIB, name)
        fn.argtypes = argtypes
        before = memory.snapshot()
        status = fn(*args)
        internal_error(violations, name)
        sync = LIB.mcDeviceSynchronize()
        internal_error(violations, name + " on the stream")
        if status == 4:  # MCDNN_STATUS_INTERNAL_ERROR
            violations.append("MCDNN_STATUS_INTERNAL_ERROR from %s: %s" % (name, message()[-300:]))
        violations += memory.changes(before)
        return {"status": status, "sync": sync}, violations
    finally:
        for kind, h in created:
            getattr(LIB, "mcdnnDestroy%sDescriptor" % kind)(h)
        LIB.mcdnnDestroy(handle)
        memory.free()


# ---- mcBLAS routines ----

BLAS = ctypes.CDLL(str(acl.conftest.toolkit() / "lib" / "libmcblas.so"), mode=ctypes.RTLD_GLOBAL)
BLAS_BUFFER = 4096
SCALAR_NAMES = ("alpha", "beta", "c", "s")


def run_mcblas(case):
    """A routine called with a fresh handle: every integer and enum as the case gives it, scalars on the
    host, every other pointer a device buffer of BLAS_BUFFER bytes (pointer arrays: device arrays of
    such buffers, as cuBLAS takes them). Oracles: no internal error, no MCBLAS_STATUS_INTERNAL_ERROR."""
    name, violations = case["routine"], []
    memory, handle, keep = Memory("mcMalloc"), c_void_p(), []
    try:
        if BLAS.mcblasCreate(byref(handle)) != 0:
            return {"status": None}, ["mcblasCreate failed: %s" % message()]
        args, argtypes = [], []
        for pname, ctype in TABLE[name]["params"]:
            base = ctype.replace("const ", "").split()[0]
            if base == "mcblasHandle_t":
                args.append(handle), argtypes.append(c_void_p)
            elif "[]" in ctype:
                table = memory.device(BLAS_BUFFER, 0)
                pointers = (c_uint64 * (BLAS_BUFFER // 8))(*[memory.device(BLAS_BUFFER, 0) or 0 for _ in range(4)])
                LIB.mcMemcpy(table, pointers, BLAS_BUFFER, 1)
                args.append(table), argtypes.append(c_void_p)
            elif "*" in ctype:
                if pname in SCALAR_NAMES or pname == "result":
                    scalar = (c_double * 4)(1.0, 0.0, 1.0, 0.0)   # room for any type, a complex double included
                    keep.append(scalar)
                    args.append(ctypes.addressof(scalar))
                else:
                    args.append(memory.device(BLAS_BUFFER, 0))
                argtypes.append(c_void_p)
            elif base == "long":
                args.append(case["ints"].get(pname, 0)), argtypes.append(ctypes.c_longlong)
            else:  # int and the enums
                args.append(c_int(case["ints"].get(pname, 0) % 2 ** 32).value), argtypes.append(c_int)
        fn = getattr(BLAS, name)
        fn.argtypes = argtypes
        status = fn(*args)
        internal_error(violations, name)
        LIB.mcDeviceSynchronize()
        internal_error(violations, name + " on the stream")
        if status == 14:  # MCBLAS_STATUS_INTERNAL_ERROR
            violations.append("MCBLAS_STATUS_INTERNAL_ERROR from %s: %s" % (name, message()[-300:]))
        return {"status": status}, violations
    finally:
        if handle:
            BLAS.mcblasDestroy(handle)
        memory.free()


def run_selftest(case):
    """The harness's own check: a case that crashes or stalls the process."""
    if case["action"] == "crash":
        os.abort()
    import time
    time.sleep(3600)


RUNNERS = {"aclnn": run_aclnn, "memory": run_memory, "mcdnn": run_mcdnn, "mcblas": run_mcblas,
           "selftest": run_selftest}


def main():
    random.seed(0)
    sys.stdout.write("ready\n")  # the imports are done: the parent's clock for a case starts now
    sys.stdout.flush()
    for line in sys.stdin:
        case = json.loads(line)
        try:
            result, violations = RUNNERS[case["family"]](case)
        except Exception as error:  # the harness's own mistake, told apart from the library's crashes
            result, violations = {}, ["fuzz worker error: %s: %s" % (type(error).__name__, error)]
        result["violations"] = violations
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
