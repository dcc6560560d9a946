"""mcDNN entry points: raw cffi arguments → converted arguments → op.check → a task on the handle's
stream that runs op.compute on views of device memory.

Conversion is by the parameter's declared type (entry_points.json): the handle and descriptors must be
live C objects (else MCDNN_STATUS_BAD_PARAM; NULL descriptors arrive as None for the op to judge),
descriptors are read once, here, as the library reads them at the call; everything else stays raw."""
import itertools
import traceback

from opemu.core import device, mcdnn
from opemu.core.op import Args
from opemu.core.status import VendorError
from opemu.ops.mcdnn import adv_descriptors as _adv_descriptors
from opemu.ops.mcdnn import descriptors as _descriptors

TASKS = {}
_task_ids = itertools.count(1)
ILLEGAL_ADDRESS = 700   # mcErrorIllegalAddress: a kernel touched memory outside live device allocations
LAUNCH_FAILURE = 719    # mcErrorLaunchFailure


def _kinds(lib):
    """{declared type: (handle kind, converter, whether its snapshots may be shared)}. Shared snapshots are
    those whose converter reads nothing but the C struct's own fields and whose result no routine changes."""
    return {
        "mcdnnHandle_t": (lib.OPEMU_KIND_MCDNN_HANDLE, None, False),
        "mcdnnTensorDescriptor_t": (lib.OPEMU_KIND_MCDNN_TENSOR, _tensor, True),
        "mcdnnActivationDescriptor_t": (lib.OPEMU_KIND_MCDNN_ACTIVATION, _activation, True),
        "mcdnnPoolingDescriptor_t": (lib.OPEMU_KIND_MCDNN_POOLING, _pooling, True),
        "mcdnnLRNDescriptor_t": (lib.OPEMU_KIND_MCDNN_LRN, _lrn, True),
        "mcdnnDropoutDescriptor_t": (lib.OPEMU_KIND_MCDNN_DROPOUT, _dropout, False),
        "mcdnnSpatialTransformerDescriptor_t": (lib.OPEMU_KIND_MCDNN_SPATIAL_TF, _spatial_transformer, True),
        **{name: kind + (False,) for name, kind in _descriptors.kinds(lib).items()},
        **{name: kind + (False,) for name, kind in _adv_descriptors.kinds(lib).items()},
    }


_SNAPSHOTS = {}          # (handle kind, the C struct's bytes) → its conversion, for the shared kinds
_SNAPSHOTS_LIMIT = 4096  # distinct descriptor states kept before the cache starts over


def _shared_snapshot(ffi, code, convert, name, value):
    """The conversion of descriptor `value`, made once per distinct content of its C struct: apps set a
    descriptor once and pass it to many calls, and equal bytes convert to equal snapshots."""
    key = (code, ffi.buffer(value)[:])
    snapshot = _SNAPSHOTS.get(key)
    if snapshot is None:
        snapshot = convert(name, value)  # raises for a descriptor never set: nothing is kept
        if len(_SNAPSHOTS) >= _SNAPSHOTS_LIMIT:
            _SNAPSHOTS.clear()
        _SNAPSHOTS[key] = snapshot
    return snapshot


def _tensor(name, d):
    if not d.is_set:
        raise mcdnn.bad_param("%s was created but never set" % name)
    return mcdnn.Tensor.from_c(d)


def _activation(name, d):
    if not d.is_set:
        raise mcdnn.bad_param("%s was created but never set" % name)
    return mcdnn.Struct(mode=d.mode, nan=d.reluNanOpt, coef=d.coef, swish_beta=d.swishBeta)


def _pooling(name, d):
    if not d.is_set:
        raise mcdnn.bad_param("%s was created but never set" % name)
    n = d.nbDims
    unpack = device.ffi.unpack
    return mcdnn.Struct(mode=d.mode, nan=d.maxpoolingNanOpt, nbDims=n, window=tuple(unpack(d.windowDimA, n)),
                        padding=tuple(unpack(d.paddingA, n)), stride=tuple(unpack(d.strideA, n)))


def _lrn(name, d):
    return mcdnn.Struct(n=d.lrnN, alpha=d.lrnAlpha, beta=d.lrnBeta, k=d.lrnK)


def _dropout(name, d):
    """Read at the call; `raw` lets mcdnnSetDropoutDescriptor record its fields in the C object."""
    return mcdnn.Struct(raw=d, is_set=d.is_set, has_states=d.has_states, dropout=d.dropout, states=d.states,
                        state_bytes=d.stateSizeInBytes, seed=d.seed)


def _spatial_transformer(name, d):
    if not d.is_set:
        raise mcdnn.bad_param("%s was created but never set" % name)
    return mcdnn.Struct(sampler=d.samplerType, dtype_code=d.dataType,
                        dims=tuple(device.ffi.unpack(d.dimA, d.nbDims)))


def _report(lib, code, message):
    lib.opemu_error_message(code, message.encode("utf-8", "replace")[:1900])


class _Entry:
    def __init__(self, ffi, lib, op, meta):
        self.ffi, self.lib, self.op = ffi, lib, op
        self.name_bytes = op.name.encode()
        self.tensor_pairs = tuple(op.tensors.items())
        kinds = _kinds(lib)
        self.params = []
        for name, declaration in meta["params"]:
            ctype = declaration.replace("const ", "").strip()
            kind = next((k for k in kinds if ctype.startswith(k + " ")), None)
            if kind and name in op.raw:   # a descriptor the routine fills or reads field by field
                self.params.append((name, (kinds[kind][0], _adv_descriptors.RAW, False)))
                continue
            self.params.append((name, kinds[kind] if kind else None))
        # routines without a handle (mcdnnBackendFinalize) run on the host at the call
        self.handle_index = next((i for i, (name, kind) in enumerate(self.params) if kind and kind[1] is None), None)
        self.positions = {name: i for i, (name, _) in enumerate(self.params)}
        self.names = [name for name, _ in self.params]
        self.typed = [(i, name) + kind for i, (name, kind) in enumerate(self.params) if kind]  # handle, descriptors

    def _convert(self, cargs):
        """Args by parameter name: raw values as they came, the handle and descriptors validated and converted."""
        lib, ffi = self.lib, self.ffi
        a = Args(zip(self.names, cargs))
        values = a.__dict__
        for i, name, code, convert, shared in self.typed:
            value = cargs[i]
            if not value:  # a null pointer (cffi's truth test, cheaper than comparing with ffi.NULL)
                if convert is None:
                    raise mcdnn.bad_param("%s: handle is null" % self.op.name)
                values[name] = None
                continue
            if not lib.opemu_handle_is(value, code):
                raise mcdnn.bad_param("%s: %s (%s) is not a live object of its type (destroyed or never created)"
                                      % (self.op.name, name, value))
            if convert is not None:  # the handle stays as it came
                values[name] = _shared_snapshot(ffi, code, convert, name, value) if shared else convert(name, value)
        return a

    def __call__(self, *cargs):
        lib, op = self.lib, self.op
        try:
            if lib.opemu_fault_at(self.name_bytes):
                raise RuntimeError("fault injected by OPEMU_FAULT")
            a = self._convert(cargs)
            op.check(a)
            values = a.__dict__
            layout = []
            for name, desc_name in self.tensor_pairs:
                pointer, desc = values[name], values[desc_name]
                if desc is not None and pointer:  # not null
                    vector = op.vector_types and getattr(desc, "dtype_code", None) in mcdnn.VECTOR
                    if getattr(desc, "dtype", True) is None and not vector:   # a type the checks left unjudged
                        raise mcdnn.bad_param("%s: %s is not a data type of this routine's tensors"
                                              % (desc_name, mcdnn.type_name(desc.dtype_code)))
                    layout.append((name, pointer, desc.geometry()))
        except VendorError as error:
            _report(lib, error.code, "%s: %s" % (op.name, error))
            return error.code
        if op.host_only:  # a query answered at the call (sizes), no device work
            op.compute(a, None)
            return 0
        task_id = next(_task_ids)
        written = [pointer for name, pointer, _ in layout if name in op.outputs] if device.strict else []
        TASKS[task_id] = (op, a, layout, written)
        pending(lib, written, +1)   # the outputs wait on the stream until the task has run (opemu check)
        rc = lib.opemu_mcdnn_submit(cargs[self.handle_index], task_id)
        if rc == 0:
            return 0
        return mcdnn.BAD_PARAM if rc < 0 else mcdnn.EXECUTION_FAILED


def pending(lib, pointers, delta):
    """Marks (+1) or clears (-1) what a queued task will write, for opemu check's stale-read finding;
    `pointers` is empty unless OPEMU_STRICT is set."""
    for pointer in pointers:
        if pointer != device.ffi.NULL:
            lib.opemu_sanitize_pending(pointer, delta)


def drop(lib, tasks, task_id):
    """A task its stream discards without running: its outputs are no longer pending (the last item of
    its entry)."""
    entry = tasks.pop(task_id, None)
    if entry is not None:
        pending(lib, entry[-1], -1)


def _run(lib):
    def run(task_id):
        op, a, layout, written = TASKS.pop(task_id)
        pending(lib, written, -1)
        try:
            views = dict.fromkeys(op.tensors)
            strict = device.strict
            kept, make = device.VIEWS.session(), device.Views.view
            for name, pointer, geometry in layout:
                if strict:  # what the routine reads and writes, against what the app allocated, before it faults
                    lib.opemu_sanitize_access(pointer, geometry[-1], int(name in op.outputs),
                                              ("%s: %s" % (op.name, name)).encode())
                views[name] = make(kept, pointer, geometry)
            op.compute(a, views)
            return 0
        except device.DeviceFault as fault:
            _report(lib, ILLEGAL_ADDRESS, "%s: an illegal memory access: %s" % (op.name, fault))
            return ILLEGAL_ADDRESS
        except VendorError as error:
            _report(lib, LAUNCH_FAILURE, "%s: %s" % (op.name, error))
            return LAUNCH_FAILURE
    return run


def entry(ffi, lib, name, meta):
    """The implementation of entry point `name`, or None when no mcDNN op declares it."""
    op = mcdnn.OPS.get(name)
    return _Entry(ffi, lib, op, meta) if op else None


def attach(ffi, lib):
    def on_error(exc_type, exc_value, tb):
        where = traceback.extract_tb(tb)[-1] if tb else None
        origin = " (%s:%d)" % (where.filename.rsplit("/", 1)[-1], where.lineno) if where else ""
        _report(lib, LAUNCH_FAILURE, "mcDNN kernel: internal error: %s: %s%s" % (exc_type.__name__, exc_value, origin))

    ffi.def_extern(name="opemu_py_mcdnn_run", error=LAUNCH_FAILURE, onerror=on_error)(_run(lib))
    ffi.def_extern(name="opemu_py_mcdnn_drop", onerror=on_error)(lambda task_id: drop(lib, TASKS, task_id))
