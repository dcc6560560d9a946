"""The embedded entry points: thin glue between the C library and the operators.

`attach` runs once, inside the interpreter the library starts. It gives every Python-routed entry
point of the generated table an implementation: an operator's phase 1 when one is registered,
otherwise the family's "not supported" status. Every exception becomes the family's internal
error with its message retrievable through aclGetRecentErrMsg — never a silent 0.
"""
import itertools
import json
import os
import traceback

from opemu import bridge_mcblas, bridge_mcdnn, ops
from opemu.core import checks, device, status
from opemu.core.headers import enum
from opemu.core.op import OPS, Args, soc
from opemu.core.tensor import TensorDesc

PLANS = {}
_plan_ids = itertools.count(1)
_PHASE1_SUFFIX = "GetWorkspaceSize"


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


def _entry_points(ffi, lib):
    library = ffi.string(lib.opemu_library_file()).decode()
    prefix = os.path.dirname(os.path.dirname(library))
    with open(os.path.join(prefix, "share", "opemu", "entry_points.json")) as f:
        return json.load(f)


def _argument_kind(ctype):
    for kind in ("aclTensorList", "aclScalarList", "aclTensor", "aclScalar", "aclIntArray", "aclFloatArray",
                 "aclBoolArray", "aclOpExecutor"):
        if kind + " *" in ctype:
            return kind
    return "value"


class _Phase1:
    """aclnnXxxGetWorkspaceSize: arguments → check → workspace → an executor holding the plan.

    The verdict of check/workspace depends only on the arguments' descriptions (dtypes, shapes,
    strides, attribute values) and the product, never on addresses, so it is cached per signature:
    an app calling the same op in a loop pays for the Python check once."""

    CACHE_SIZE = 512

    def __init__(self, ffi, lib, op, meta, entry):
        self.ffi, self.lib, self.op, self.entry = ffi, lib, op, entry.encode()
        params = meta["params"]
        self.names = [name for name, _ in params[:-2]]
        self.kinds = [_argument_kind(ctype) for _, ctype in params[:-2]]
        self.op_name = op.name.encode()
        self.positions = [(set_input, i, self.names.index(name))
                          for set_input, names in ((lib.opemu_executor_set_input, op.inputs),
                                                   (lib.opemu_executor_set_output, op.outputs))
                          for i, name in enumerate(names)]
        # a Ref parameter (read and updated in place) is an input and an output: its twin slots
        # (a library built before opemu_executor_set_ref leaves them apart)
        self.twins = [(i, op.outputs.index(name)) for i, name in enumerate(op.inputs)
                      if name in op.outputs and hasattr(lib, "opemu_executor_set_ref")]
        self.cache = {}

    def _signature(self, cargs):
        ffi, lib = self.ffi, self.lib
        summary = ffi.new("int64_t[]", lib.OPEMU_SUMMARY_MAX)  # per call: cffi lets other threads run during C calls
        parts = [soc()]
        for name, kind, value in zip(self.names, self.kinds, cargs):
            if kind == "value":
                parts.append(value)
            elif value == ffi.NULL:
                parts.append(None)
            elif kind == "aclTensor":
                n = lib.opemu_tensor_summary(value, summary)
                if n < 0:
                    raise status.param_invalid("Argument %s is not a live aclTensor." % name)
                parts.append(tuple(ffi.unpack(summary, n)))
            else:
                raise status.param_invalid("Argument %s of type %s is not supported yet." % (name, kind))
        return tuple(parts)

    def _plan(self, signature):
        """(args, view layout, workspace bytes) after the op's checks, or the VendorError they raise."""
        op = self.op
        values = {}
        for name, kind, part in zip(self.names, self.kinds, signature[1:]):
            values[name] = TensorDesc.from_summary(part) if kind == "aclTensor" and part is not None else part
        a = Args(values)
        try:
            op.check(a)
            for name in op.inputs + op.outputs:
                if getattr(a, name) is not None:
                    checks.layout_supported(name, getattr(a, name))
            nbytes = op.workspace(a)
        except status.VendorError as error:
            return error
        layout = [(False, i, name, device.geometry(getattr(a, name)))
                  for i, name in enumerate(op.inputs) if getattr(a, name) is not None]
        layout += [(True, i, name, device.geometry(getattr(a, name)))
                   for i, name in enumerate(op.outputs) if getattr(a, name) is not None]
        return a, layout, nbytes

    def __call__(self, *cargs):
        ffi, lib, op = self.ffi, self.lib, self.op
        try:
            if lib.opemu_fault_at(self.entry):
                raise RuntimeError("fault injected by OPEMU_FAULT")
            signature = self._signature(cargs)
            plan = self.cache.get(signature)
            if plan is None:
                if len(self.cache) >= self.CACHE_SIZE:
                    self.cache.clear()
                plan = self.cache[signature] = self._plan(signature)
            if isinstance(plan, status.VendorError):
                # a fresh error per call: re-raising the cached one grew its traceback (and the process) each time
                raise status.VendorError(plan.code, str(plan))
            workspace_out, executor_out = cargs[-2], cargs[-1]
            if workspace_out == ffi.NULL or executor_out == ffi.NULL:
                raise status.param_nullptr("workspaceSize and executor must not be nullptr.")
        except status.VendorError as error:
            _report(lib, error.code, str(error))
            return error.code
        executor = lib.opemu_executor_create(self.op_name, len(op.inputs), len(op.outputs))
        for set_tensor, i, position in self.positions:
            set_tensor(executor, i, cargs[position])
        for i, j in self.twins:
            lib.opemu_executor_set_ref(executor, i, j)
        plan_id = next(_plan_ids)
        PLANS[plan_id] = (op,) + plan
        executor.plan_id = plan_id
        executor.workspace_size = workspace_out[0] = plan[2]
        executor_out[0] = executor
        return 0


def _not_supported(lib, name, meta):
    code = _not_supported_status(meta["returns"])
    value = None if meta["failure"] in (None, "NULL") else code

    def entry(*_):
        _report(lib, code, "%s is not implemented by opemu." % name)
        return value
    return entry


def _execute_entry(ffi, lib):
    def execute(executor, inputs, outputs, workspace):
        plan_id = executor.plan_id
        op, a, layout, _ = PLANS[plan_id]
        try:
            if lib.opemu_fault_at(executor.op):
                raise RuntimeError("fault injected by OPEMU_FAULT")
            views = {name: device.view_at((outputs if is_output else inputs)[i].data, geometry)
                     for is_output, i, name, geometry in layout}
            op.compute(a, views, device.workspace_view(workspace, executor.workspace_size))
            return 0
        except status.VendorError as error:
            _report(lib, error.code, str(error))
            return error.code
        finally:
            if not executor.repeatable:
                PLANS.pop(plan_id, None)
                executor.plan_id = 0
    return execute


def attach(ffi, lib):
    device.attach(ffi, lib)
    ops.load_all()
    inner = status.ACLNN["ACLNN_ERR_INNER"]
    for name, meta in _entry_points(ffi, lib).items():
        if meta["implemented_in"] != "python":
            continue
        op = OPS.get(name[:-len(_PHASE1_SUFFIX)]) if name.endswith(_PHASE1_SUFFIX) else None
        entry = _Phase1(ffi, lib, op, meta, name) if op else (bridge_mcdnn.entry(ffi, lib, name, meta)
                                                             or bridge_mcblas.entry(ffi, lib, name, meta)
                                                             or _not_supported(lib, name, meta))
        failure = meta["failure"]
        error = {} if failure in (None, "NULL") else {"error": int(failure)}
        on_error = _on_error(lib, name, inner if failure in (None, "NULL") else int(failure))
        ffi.def_extern(name="opemu_py_" + name, onerror=on_error, **error)(entry)
    ffi.def_extern(name="opemu_py_execute", error=inner, onerror=_on_error(lib, "aclnn kernel", inner))(
        _execute_entry(ffi, lib))
    bridge_mcdnn.attach(ffi, lib)
    bridge_mcblas.attach(ffi, lib)
    ffi.def_extern(name="opemu_py_release_plan", onerror=_on_error(lib, "aclDestroyAclOpExecutor", inner))(
        lambda plan_id: PLANS.pop(plan_id, None) and None)
