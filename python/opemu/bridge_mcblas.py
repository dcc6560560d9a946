"""mcBLAS entry points: raw cffi arguments → a Call (handle checked, modes read) → the routine's checks
→ its task queued on the handle's stream (opemu_mcblas_submit), run there on views of device memory.

The routine tables live in opemu.ops.mcblas; this module only converts and routes, as bridge_mcdnn
does for mcDNN (whose fault and message conventions it shares)."""
import itertools
import traceback

from opemu import bridge_mcdnn
from opemu.core import device, mcblas
from opemu.core.status import VendorError
from opemu.ops.mcblas import ROUTINES

TASKS = {}
_task_ids = itertools.count(1)
_report = bridge_mcdnn._report


class _Entry:
    def __init__(self, ffi, lib, name, routine, meta):
        self.ffi, self.lib, self.name, self.routine = ffi, lib, name, routine
        self.encoded = name.encode()
        self.names = [param for param, _ in meta["params"]]
        self.has_handle = bool(meta["params"]) and meta["params"][0][1].startswith("mcblasHandle_t")
        # what a routine may write: its non-const pointers (C, y, x in place, a device-mode result)
        self.written = [i for i, (_, ctype) in enumerate(meta["params"])
                        if "*" in ctype and not ctype.startswith("const") and "[]" not in ctype]

    def __call__(self, *cargs):
        lib, ffi = self.lib, self.ffi
        try:
            if lib.opemu_fault_at(self.encoded):
                raise RuntimeError("fault injected by OPEMU_FAULT")
            handle = None
            if self.has_handle:
                handle = cargs[0]
                if handle == ffi.NULL or not lib.opemu_handle_is(handle, lib.OPEMU_KIND_MCBLAS_HANDLE):
                    raise VendorError(mcblas.NOT_INITIALIZED, "%s is not a live mcblasHandle_t (destroyed or never "
                                      "created)" % handle)
            call = mcblas.Call(self.name, handle, dict(zip(self.names, cargs)))
            task = self.routine(call)
        except VendorError as error:
            _report(lib, error.code, "%s: %s" % (self.name, error))
            return error.code
        if task is None:  # a quick return: nothing to compute
            return 0
        task_id = next(_task_ids)
        written = [cargs[i] for i in self.written] if device.strict else []
        TASKS[task_id] = (self.name, task, written)
        bridge_mcdnn.pending(lib, written, +1)   # the outputs wait on the stream until the task has run
        stream = getattr(call, "stream", ffi.NULL)
        rc = lib.opemu_mcblas_submit(handle if handle is not None else ffi.NULL, stream, task_id, call.wait)
        if rc == 0:
            return 0
        return mcblas.INVALID_VALUE if rc < 0 else mcblas.EXECUTION_FAILED


def _run(lib):
    def run(task_id):
        name, task, written = TASKS.pop(task_id)
        bridge_mcdnn.pending(lib, written, -1)
        try:
            task()
            return 0
        except device.DeviceFault as fault:
            _report(lib, bridge_mcdnn.ILLEGAL_ADDRESS, "%s: an illegal memory access: %s" % (name, fault))
            return bridge_mcdnn.ILLEGAL_ADDRESS
        except VendorError as error:
            _report(lib, bridge_mcdnn.LAUNCH_FAILURE, "%s: %s" % (name, error))
            return bridge_mcdnn.LAUNCH_FAILURE
    return run


def entry(ffi, lib, name, meta):
    """The implementation of entry point `name`, or None when no mcBLAS routine declares it."""
    routine = ROUTINES.get(name)
    return _Entry(ffi, lib, name, routine, meta) if routine else None


def attach(ffi, lib):
    def on_error(exc_type, exc_value, tb):
        where = traceback.extract_tb(tb)[-1] if tb else None
        origin = " (%s:%d)" % (where.filename.rsplit("/", 1)[-1], where.lineno) if where else ""
        _report(lib, bridge_mcdnn.LAUNCH_FAILURE, "mcBLAS kernel: internal error: %s: %s%s"
                % (exc_type.__name__, exc_value, origin))

    ffi.def_extern(name="opemu_py_mcblas_run", error=bridge_mcdnn.LAUNCH_FAILURE, onerror=on_error)(_run(lib))
    ffi.def_extern(name="opemu_py_mcblas_drop", onerror=on_error)(
        lambda task_id: bridge_mcdnn.drop(lib, TASKS, task_id))
