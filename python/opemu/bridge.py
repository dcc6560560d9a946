"""The embedded entry points: thin glue between the C library and the operators.

`attach` runs once, inside the interpreter the library starts. It gives every Python-routed entry
point of the generated table an implementation, made at the entry point's first call (the module
defining an aclnn operator is imported then, not at start): an operator's phase 1 when one is
registered, otherwise the family's "not supported" status. Every exception becomes the family's internal
error with its message retrievable through aclGetRecentErrMsg — never a silent 0.
"""
import functools
import itertools
import json
import os
import re
import sys
import threading
import traceback

import numpy as np

from opemu import bridge_aclop, bridge_mcblas, bridge_mcdnn, collectives, ops
from opemu.core import checks, device, status
from opemu.core.headers import enum
from opemu.core.op import Args, soc
from opemu.core.scalar import Scalar
from opemu.core.tensor import TensorDesc
from opemu.ops.aclnn import declared

PLANS = {}
_plan_ids = itertools.count(1)
# Plans the generated phase-1 shims reuse without Python (csrc/aclnn/plan_cache.c): kept for the process, since
# any number of executors, repeatable ones included, may be made from them.
PINNED = 1 << 62
_pinned_ids = itertools.count(PINNED)
_PHASE1_SUFFIX = "GetWorkspaceSize"


def _release(plan_id):
    """Forgets an executor's plan, unless it is pinned."""
    if plan_id < PINNED:
        PLANS.pop(plan_id, None)


def _not_supported_status(returns):
    """The "not supported" status of the status type an entry point returns."""
    if returns == "aclnnStatus":
        return status.ACLNN["ACLNN_ERR_RUNTIME_ERROR"]
    if returns == "aclError":
        return status.ACL["ACL_ERROR_API_NOT_SUPPORT"]
    if returns == "mcdnnStatus_t":
        return enum("mcdnn/mcdnn_ops_infer.h", "mcdnnStatus_t")["MCDNN_STATUS_NOT_SUPPORTED"]
    if returns == "mcblasStatus_t":
        return enum("mcblas/mcblas.h", "mcblasStatus_t")["MCBLAS_STATUS_NOT_SUPPORTED"]
    if returns == "mcError_t":
        return enum("mcr/mc_runtime_types.h", "mcError_t")["mcErrorNotSupported"]
    return 0


def _report(lib, code, message):
    if message:
        lib.opemu_error_message(code, message.encode("utf-8", "replace")[:1900])


def _on_error(lib, name, code):
    def handler(exc_type, exc_value, tb):
        where = traceback.extract_tb(tb)[-1] if tb else None
        origin = " (%s:%d)" % (os.path.basename(where.filename), where.lineno) if where else ""
        _report(lib, code, "%s: internal error: %s: %s%s" % (name, exc_type.__name__, exc_value, origin))
    return handler


def _prefix(ffi, lib):
    """The prefix of the library that started this interpreter (its tables describe that build)."""
    return os.path.dirname(os.path.dirname(ffi.string(lib.opemu_library_file()).decode()))


def _entry_points(prefix):
    with open(os.path.join(prefix, "share", "opemu", "entry_points.json")) as f:
        return json.load(f)


def _argument_kind(ctype):
    for kind in ("aclTensorList", "aclScalarList", "aclTensor", "aclScalar", "aclIntArray", "aclFloatArray",
                 "aclBoolArray", "aclOpExecutor"):
        if kind + " *" in ctype:
            return kind
    if re.match(r"(const\s+)?char\s*\*\s*\w*$", ctype):
        return "string"
    return "value"


def _string_part(ffi, lib, summary, name, value):
    """A C string attribute (a round mode, a quant mode) by its text: the content, not the pointer, is the key."""
    return ffi.string(value).decode("utf-8", "replace")


def _tensor_part(ffi, lib, summary, name, value):
    n = lib.opemu_tensor_summary(value, summary)
    if n < 0:
        raise status.param_invalid("Argument %s is not a live aclTensor." % name)
    return tuple(ffi.unpack(summary, n))


def _live(lib, name, value, kind):
    if not lib.opemu_handle_is(value, getattr(lib, "OPEMU_KIND_" + kind)):
        raise status.param_invalid("Argument %s is not a live %s." % (name, _KIND_NAMES[kind]))


def _scalar_part(ffi, lib, summary, name, value):
    """A scalar's dtype and value bytes: the value belongs in the cache key (it is an attribute)."""
    _live(lib, name, value, "SCALAR")
    scalar = ffi.cast("aclScalar *", value)
    return scalar.dtype, bytes(ffi.buffer(scalar.value))


def _array_part(ctype, kind):
    def part(ffi, lib, summary, name, value):
        _live(lib, name, value, kind)
        array = ffi.cast(ctype, value)
        return tuple(ffi.unpack(array.data, array.size))
    return part


def _tensor_list_part(ffi, lib, summary, name, value):
    _live(lib, name, value, "TENSOR_LIST")
    items = ffi.cast("aclTensorList *", value)
    return tuple(None if t == ffi.NULL else _tensor_part(ffi, lib, summary, "%s[%d]" % (name, k), t)
                 for k, t in enumerate(items.items[0:items.size]))


def _scalar_list_part(ffi, lib, summary, name, value):
    _live(lib, name, value, "SCALAR_LIST")
    items = ffi.cast("aclScalarList *", value)
    return tuple(None if s == ffi.NULL else _scalar_part(ffi, lib, summary, "%s[%d]" % (name, k), s)
                 for k, s in enumerate(items.items[0:items.size]))


_KIND_NAMES = {"SCALAR": "aclScalar", "INT_ARRAY": "aclIntArray", "FLOAT_ARRAY": "aclFloatArray",
               "BOOL_ARRAY": "aclBoolArray", "TENSOR_LIST": "aclTensorList", "SCALAR_LIST": "aclScalarList"}
_PART_OF = {"aclScalar": _scalar_part, "aclIntArray": _array_part("aclIntArray *", "INT_ARRAY"),
            "aclFloatArray": _array_part("aclFloatArray *", "FLOAT_ARRAY"),
            "aclBoolArray": _array_part("aclBoolArray *", "BOOL_ARRAY"),
            "aclTensorList": _tensor_list_part, "aclScalarList": _scalar_list_part, "string": _string_part}


def _same(part):
    return part


def _scalar_or_none(part):
    return None if part is None else Scalar.from_bytes(*part)


def _desc_or_none(part):
    return None if part is None else TensorDesc.from_summary(part)


# how a signature part becomes what check sees: tensors as TensorDesc, scalars as Scalar, lists
# as tuples of those (None for a null entry), host arrays as tuples of numbers
_DESCRIBE = {"aclTensor": TensorDesc.from_summary, "aclScalar": _scalar_or_none,
             "aclTensorList": lambda part: tuple(map(_desc_or_none, part)),
             "aclScalarList": lambda part: tuple(map(_scalar_or_none, part))}


def _tensors_of(value):
    """(list index or None, TensorDesc) of a tensor argument or a tensor list's non-null items."""
    if value is None:
        return ()
    if isinstance(value, tuple):
        return [(k, t) for k, t in enumerate(value) if t is not None]
    return ((None, value),)


_threads = threading.local()


class _Scratch:
    """A thread's buffers for phase 1: the tensor arguments' pointers and their summaries (one set per
    thread, as cffi lets other threads run during C calls)."""

    def __init__(self, ffi, lib, tensors):
        self.capacity = tensors
        self.pointers = ffi.new("void *[]", max(tensors, 1))
        self.summaries = ffi.new("int64_t[]", max(tensors, 1) * (lib.OPEMU_SUMMARY_MAX + 1))
        self.summary = ffi.new("int64_t[]", lib.OPEMU_SUMMARY_MAX)  # for the arguments summarised one by one


def _scratch(ffi, lib, tensors):
    scratch = getattr(_threads, "scratch", None)
    if scratch is None or scratch.capacity < tensors:
        scratch = _threads.scratch = _Scratch(ffi, lib, max(tensors, 16))
    return scratch


def _summaries(blob, count):
    """The per-tensor summaries (tuples, None for a NULL tensor) packed by opemu_tensor_summaries."""
    ints = memoryview(blob).cast("q") if blob else ()
    parts, at = [], 0
    for _ in range(count):
        n = ints[at]
        parts.append(tuple(ints[at + 1:at + 1 + n]) if n else None)
        at += n + 1
    return parts


class _Phase1:
    """aclnnXxxGetWorkspaceSize: arguments → check → workspace → an executor holding the plan.

    The verdict of check/workspace depends only on the arguments' descriptions (dtypes, shapes,
    strides, attribute values) and the product, never on addresses, so it is cached per signature:
    an app calling the same op in a loop pays for the Python check once. The signature holds every
    tensor argument's summary in one bytes object (one C call for all of them: most arguments are
    tensors), then the other arguments' parts in order."""

    CACHE_SIZE = 512

    def __init__(self, ffi, lib, op, meta, entry):
        self.ffi, self.lib, self.op, self.entry = ffi, lib, op, entry.encode()
        params = meta["params"]
        self.names = [name for name, _ in params[:-2]]
        # a bool arrives as its byte (gen_bridge: any nonzero byte is true, as the kernel's test of it)
        self.kinds = ["flag" if abi == "bool" else _argument_kind(ctype)
                      for (_, ctype), abi in zip(params[:-2], meta["abi"])]
        self.tensor_positions = [i for i, kind in enumerate(self.kinds) if kind == "aclTensor"]
        self.others = [(i, self.names[i], kind) for i, kind in enumerate(self.kinds) if kind != "aclTensor"]
        self.op_name = op.name.encode()
        self.cache = {}
        self.pinned = {}  # signature: the pinned plan id the C shim reuses, or 0 when it keeps no more

    def _signature(self, cargs, scratch):
        ffi, lib = self.ffi, self.lib
        parts = [soc(), b""]
        if self.tensor_positions:
            self._point(cargs, scratch)
            written = lib.opemu_tensor_summaries(scratch.pointers, len(self.tensor_positions), scratch.summaries)
            if written < 0:
                self._refuse_dead_tensor(cargs, scratch, self.tensor_positions[-written - 1])
            parts[1] = ffi.buffer(scratch.summaries, 8 * written)[:]
        null = ffi.NULL
        for i, name, kind in self.others:
            value = cargs[i]
            if kind == "value":
                parts.append(value)
            elif kind == "flag":
                parts.append(value != 0)
            elif value == null:
                parts.append(None)
            else:
                parts.append(_PART_OF[kind](ffi, lib, scratch.summary, name, value))
        return tuple(parts)

    def _point(self, cargs, scratch):
        pointers = scratch.pointers
        for k, i in enumerate(self.tensor_positions):
            pointers[k] = cargs[i]

    def _refuse_dead_tensor(self, cargs, scratch, position):
        """The error for the dead tensor at `position`, unless an argument before it is dead too: the
        arguments are judged in order."""
        for i, name, kind in self.others:
            if i < position and kind in _PART_OF and cargs[i] != self.ffi.NULL:
                _PART_OF[kind](self.ffi, self.lib, scratch.summary, name, cargs[i])  # raises when dead
        raise status.param_invalid("Argument %s is not a live aclTensor." % self.names[position])

    def _plan(self, signature):
        """(args, view layout, workspace bytes, executor slots, the slots as opemu_executor_fill's arrays or
        None) after the op's checks, or the VendorError they raise. A tensor list takes one executor slot per
        non-null tensor."""
        op = self.op
        parts = dict(zip((self.names[i] for i in self.tensor_positions),
                         _summaries(signature[1], len(self.tensor_positions))))
        parts.update((name, part) for (_, name, _), part in zip(self.others, signature[2:]))
        values = {}
        for name, kind in zip(self.names, self.kinds):
            part = parts[name]
            values[name] = part if part is None else _DESCRIBE.get(kind, _same)(part)
        a = Args(values)
        try:
            op.check(a)
            for name in op.inputs + op.outputs:   # as the app described them (a check may narrow a view)
                for k, desc in _tensors_of(values[name]):
                    checks.layout_supported(name if k is None else "%s[%d]" % (name, k), desc)
            nbytes = op.workspace(a)
        except status.VendorError as error:
            return error
        layout, sources, slots, counts = [], [], {}, {}
        for is_output, names in ((False, op.inputs), (True, op.outputs)):
            slot = 0
            for ir_index, name in enumerate(names):
                for k, desc in _tensors_of(getattr(a, name)):
                    if not (is_output and (False, name, k) in slots):  # a Ref's input view serves as its output
                        layout.append((is_output, slot, name, k, device.geometry(desc)))
                    sources.append((is_output, slot, self.names.index(name), k, ir_index))
                    slots[is_output, name, k] = slot
                    slot += 1
            counts[is_output] = slot
        # a Ref parameter (read and updated in place) is an input and an output: its twin slots
        twins = [(i, slots[True, name, k]) for (is_output, name, k), i in slots.items()
                 if not is_output and (True, name, k) in slots]
        return a, layout, nbytes, (counts[False], counts[True], sources, twins), self._fill(sources, twins)

    def _fill(self, sources, twins):
        """opemu_executor_fill's (n, sources, n_twins, twins) when every slot is a tensor argument, else None."""
        index = {position: k for k, position in enumerate(self.tensor_positions)}
        if any(k is not None or position not in index for _, _, position, k, _ in sources):
            return None
        flat = [v for is_output, slot, position, _, _ in sources for v in (int(is_output), slot, index[position])]
        ffi = self.ffi
        return (len(sources), ffi.new("int64_t[]", flat or [0]), len(twins),
                ffi.new("int64_t[]", [v for pair in twins for v in pair] or [0]))

    def __call__(self, *cargs):
        ffi, lib, op = self.ffi, self.lib, self.op
        scratch = _scratch(ffi, lib, len(self.tensor_positions))
        try:
            if lib.opemu_fault_at(self.entry):
                raise RuntimeError("fault injected by OPEMU_FAULT")
            signature = self._signature(cargs, scratch)
            plan = self.cache.get(signature)
            if plan is None:
                if len(self.cache) >= self.CACHE_SIZE:
                    self.cache.clear()
                    self.pinned.clear()
                plan = self.cache[signature] = self._plan(signature)
                self._point(cargs, scratch)  # the checks may have run other calls on this thread
            if isinstance(plan, status.VendorError):
                # a fresh error per call: re-raising the cached one grew its traceback (and the process) each time
                raise status.VendorError(plan.code, str(plan))
            workspace_out, executor_out = cargs[-2], cargs[-1]
            if workspace_out == ffi.NULL or executor_out == ffi.NULL:
                raise status.param_nullptr("workspaceSize and executor must not be nullptr.")
        except status.VendorError as error:
            _report(lib, error.code, str(error))
            return error.code
        n_inputs, n_outputs, sources, twins = plan[3]
        executor = lib.opemu_executor_create(self.op_name, n_inputs, n_outputs)
        fill = plan[4]
        if fill is not None:
            n, slots, n_twins, pairs = fill
            lib.opemu_executor_fill(executor, n, slots, scratch.pointers, n_twins, pairs)
        else:
            setters = (lib.opemu_executor_set_input, lib.opemu_executor_set_output)
            for is_output, slot, position, k, ir_index in sources:
                if k is None:
                    pointer = cargs[position]
                else:
                    pointer = ffi.cast("aclTensorList *", cargs[position]).items[k]
                    lib.opemu_executor_set_list_item(executor, is_output, slot, ir_index, k, len(op.inputs))
                setters[is_output](executor, slot, pointer)
            for i, j in twins:
                lib.opemu_executor_set_ref(executor, i, j)
        if op.restyles:
            for name, (code, dims) in plan[0].restyle.items():
                lib.opemu_tensor_restyle(cargs[self.names.index(name)], code, ffi.new("int64_t[]", list(dims) or [0]),
                                         len(dims))
        plan_id = next(_plan_ids)
        # the app's aclTensors of the outputs whose shape the data decides: their shapes are set after the kernel
        targets = {name: cargs[self.names.index(name)] for name in op.shape_outputs} if op.shape_outputs else None
        PLANS[plan_id] = (op,) + plan + (targets,)
        executor.plan_id = plan_id
        executor.workspace_size = workspace_out[0] = plan[2]
        executor_out[0] = executor
        if self.pinned.get(signature) != 0 and not op.shape_outputs and not op.restyles:
            self._pin(signature, plan)
        return 0

    def _pin(self, signature, plan):
        """Hands the plan's executor layout to the C shim, which makes this signature's next executors without
        Python. Reached only when the shim did not know the key, so a signature pinned already (a key Python
        calls equal and C does not, as -0.0 and 0.0) files the same plan under the new key."""
        ffi, op = self.ffi, self.op
        pinned = self.pinned.get(signature)
        plan_id = pinned or next(_pinned_ids)
        if not pinned:
            PLANS[plan_id] = (op,) + plan  # before the shim can hand it out
        n_inputs, n_outputs, sources, twins = plan[3]
        flat = [v for is_output, slot, position, k, ir_index in sources
                for v in (int(is_output), slot, position, -1 if k is None else k, ir_index)]
        kept = self.lib.opemu_plan_remember(plan_id, self.op_name, plan[2], n_inputs, n_outputs, len(op.inputs),
                                            len(sources), ffi.new("int64_t[]", flat or [0]), len(twins),
                                            ffi.new("int64_t[]", [v for pair in twins for v in pair] or [0]))
        if kept != 0 and not pinned:
            PLANS.pop(plan_id)
        self.pinned[signature] = plan_id if kept == 0 else 0


def _not_supported(lib, name, meta):
    code = _not_supported_status(meta["returns"])
    value = None if meta["failure"] in (None, "NULL") else code

    def entry(*_):
        _report(lib, code, "%s is not implemented by opemu." % name)
        return value
    return entry


_NO_WORKSPACE = np.empty(0, np.uint8)  # what a kernel without workspace gets: empty, so shared by every call
_UNPREPARED = object()  # a kept views entry whose op.prepare this thread has not asked yet


def _execute_entry(ffi, lib):
    addresses = threading.local()  # per thread: the launch's data addresses, the key of its views

    def make_views(a, layout, inputs, outputs, kept):
        views, make = {}, device.Views.view
        for is_output, i, name, k, geometry in layout:
            view = make(kept, (outputs if is_output else inputs)[i].data, geometry)
            if k is None:
                views[name] = view
            else:
                views.setdefault(name, [None] * len(getattr(a, name)))[k] = view
        return views

    def kept_views(plan, inputs, outputs, kept):
        """[layout, views, {thread: prepared}] of a launch whose tensors have the addresses of an earlier one of
        the same plan: that launch's views dict again (compute reads it, never changes it) and the calls
        op.prepare made for it, one per thread (a call may hold its thread's scratch), while no device memory
        went away."""
        _, a, layout, _, (n_inputs, n_outputs, _, _) = plan[:5]
        n = n_inputs + n_outputs
        buffer = getattr(addresses, "buffer", None)
        if buffer is None or len(buffer) < n:
            buffer = addresses.buffer = ffi.new("uint64_t[]", max(n, 16))
        lib.opemu_tensor_addresses(inputs, n_inputs, outputs, n_outputs, buffer)
        key = (id(layout), ffi.buffer(buffer, 8 * n)[:])
        entry = kept.get(key)
        if entry is None or entry[0] is not layout:
            if len(kept) >= device.Views.LIMIT:
                kept.clear()
            entry = kept[key] = [layout, make_views(a, layout, inputs, outputs, kept), {}]
        return entry

    def execute(executor, inputs, outputs, workspace):
        plan_id = executor.plan_id
        plan = PLANS[plan_id]
        op, a, layout = plan[:3]
        try:
            if lib.opemu_fault_at(executor.op):
                raise RuntimeError("fault injected by OPEMU_FAULT")
            size = executor.workspace_size
            kept = device.VIEWS.session()
            if op.shape_outputs:
                shapes = op.compute(a, make_views(a, layout, inputs, outputs, kept),
                                    device.workspace_view(workspace, size) if size else _NO_WORKSPACE)
                _set_shapes(ffi, lib, plan[-1], shapes or {})
                return 0
            if kept is None:
                op.compute(a, make_views(a, layout, inputs, outputs, kept),
                           device.workspace_view(workspace, size) if size else _NO_WORKSPACE)
                return 0
            entry = kept_views(plan, inputs, outputs, kept)
            if size:
                op.compute(a, entry[1], device.workspace_view(workspace, size))
                return 0
            thread = threading.get_ident()
            prepared = entry[2].get(thread, _UNPREPARED)
            if prepared is _UNPREPARED:
                prepared = entry[2][thread] = op.prepare(a, entry[1])
            if prepared is None:
                op.compute(a, entry[1], _NO_WORKSPACE)
            else:
                prepared()
            return 0
        except status.VendorError as error:
            _report(lib, error.code, str(error))
            return error.code
        except MemoryError as error:   # the kernel's temporaries did not fit the host: an allocation failure
            code = status.ACL["ACL_ERROR_RT_MEMORY_ALLOCATION"]
            _report(lib, code, "%s: host memory exhausted while running the kernel: %s" % (op.name, error))
            return code
        finally:
            if not executor.repeatable:
                _release(plan_id)
                executor.plan_id = 0
    return execute


def _set_shapes(ffi, lib, targets, shapes):
    """The shapes a kernel left its data-dependent outputs in, on the app's aclTensors that are still live (view
    shape and contiguous strides; storage and offset unchanged)."""
    for name, shape in shapes.items():
        pointer = targets.get(name)
        if pointer is None or not lib.opemu_handle_is(pointer, lib.OPEMU_KIND_TENSOR):
            continue
        tensor = ffi.cast("aclTensor *", pointer)
        tensor.ndim = len(shape)
        stride = 1
        for i in range(len(shape) - 1, -1, -1):
            tensor.dims[i] = shape[i]
            tensor.strides[i] = stride
            stride *= max(shape[i], 1)


class _FirstCall:
    """An entry point until its first call, which makes its implementation (`make()`, importing what defines it:
    an aclnn operator's own module, a mcDNN or mcBLAS routine's family) and binds that in cffi's table in this
    stand-in's place (`bind`): a process imports only what it calls, and later calls go straight to it."""

    def __init__(self, make, bind):
        self.make, self.bind = make, bind

    def __call__(self, *cargs):
        entry = self.make()
        self.bind(entry)
        return entry(*cargs)


def _implementation(ffi, lib, name, meta):
    """What entry point `name` runs: an aclnn operator's phase 1, a mcDNN or mcBLAS routine, else the family's
    not-supported status."""
    if name.endswith(_PHASE1_SUFFIX) and meta["family"] == "aclnn":
        op = ops.aclnn_operator(name[:-len(_PHASE1_SUFFIX)])
        return _Phase1(ffi, lib, op, meta, name) if op else _not_supported(lib, name, meta)
    if meta["family"] in ("mcdnn", "mcblas"):
        ops.load_family(meta["family"])
    return bridge_mcdnn.entry(ffi, lib, name, meta) or bridge_mcblas.entry(ffi, lib, name, meta) \
        or bridge_aclop.entry(ffi, lib, name, meta) or _not_supported(lib, name, meta)


# How often CPython makes a thread holding the GIL hand it to one waiting for it (default 5 ms). A framework
# runs phase 2 on a thread of its own (torch_npu's task queue) while its Python thread holds the GIL and
# waits in C for that queue (a synchronize): each kernel then waited for the interval to expire. A tiny
# torch_npu op with synchronize measured 2.9 ms a call at 5 ms, 0.26 ms at 0.2 ms; only threads that
# contend for the GIL see the difference.
SWITCH_INTERVAL = 2e-4


def attach(ffi, lib):
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
    device.attach(ffi, lib)
    prefix = _prefix(ffi, lib)
    declared.use_prefix(prefix)
    inner = status.ACLNN["ACLNN_ERR_INNER"]
    entry_points = _entry_points(prefix)
    for name, meta in entry_points.items():
        if meta["implemented_in"] != "python":
            continue
        failure = meta["failure"]
        error = {} if failure in (None, "NULL") else {"error": int(failure)}
        on_error = _on_error(lib, name, inner if failure in (None, "NULL") else int(failure))
        bind = ffi.def_extern(name="opemu_py_" + name, onerror=on_error, **error)
        bind(_FirstCall(functools.partial(_implementation, ffi, lib, name, meta), bind))
    ffi.def_extern(name="opemu_py_execute", error=inner, onerror=_on_error(lib, "aclnn kernel", inner))(
        _execute_entry(ffi, lib))
    bridge_mcdnn.attach(ffi, lib)
    bridge_mcblas.attach(ffi, lib)
    bridge_aclop.attach(ffi, lib, entry_points)
    collectives.attach(ffi, lib)
    ffi.def_extern(name="opemu_py_release_plan", onerror=_on_error(lib, "aclDestroyAclOpExecutor", inner))(
        _release)
