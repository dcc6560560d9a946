"""The single-operator API (aclopCompileAndExecute(V2), aclopExecute(V2)): operators named by their GE
type string, operands as aclTensorDesc + aclDataBuffer, attributes by name (aclopAttr).

The call is checked in the runtime's order (the type, counts and arrays, each description and buffer
live, then the operator's own checks), the GE type is looked up in the one table (opemu.aclop_table)
and the aclnn operator it names checks the operands as its phase 1 would; its kernel is then queued
on the app's stream and runs on views of the buffers. Statuses are the runtime's: a type the table
does not hold is ACL_ERROR_OP_NOT_FOUND naming it, operand counts that do not fit the type's IR are
ACL_ERROR_OP_INPUT/OUTPUT_NOT_MATCH, a missing attribute ACL_ERROR_OP_ATTR_NOT_MATCH, a storage format
opemu does not lay out ACL_ERROR_FORMAT_NOT_MATCH, what the aclnn operator's check refuses
ACL_ERROR_INVALID_PARAM with its message. The compile-only arguments (engine type, compile flag, op
path) are accepted and not used: nothing is compiled."""
import itertools

import numpy as np

from opemu import aclop_table, ops
from opemu.core import checks, device, dtypes
from opemu.core.op import Args
from opemu.core.status import ACL, VendorError
from opemu.core.tensor import TensorDesc

TASKS = {}
PARAMETERS = {}  # aclnn operator: the names of its phase-1 parameters (from entry_points.json)
_task_ids = itertools.count(1)
ENTRY_POINTS = ("aclopCompileAndExecute", "aclopCompileAndExecuteV2", "aclopExecute", "aclopExecuteV2")
_PLAIN_FORMATS = {dtypes.ACL_FORMAT[name] for name in ("ACL_FORMAT_ND", "ACL_FORMAT_NCHW", "ACL_FORMAT_NHWC",
                                                        "ACL_FORMAT_NCDHW", "ACL_FORMAT_NDHWC", "ACL_FORMAT_NC",
                                                        "ACL_FORMAT_NCL", "ACL_FORMAT_HWCN")}
_HOST_PLACEMENTS = (1, 2)  # ACL_MEMTYPE_HOST, ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT


def _error(name, message):
    return VendorError(ACL[name], message)


class Operand:
    """One input or output: what the operator's check sees (`desc`), where the data is, and whether it is
    host memory (a value the operator reads at compile time)."""
    __slots__ = ("desc", "address", "size", "host")

    def __init__(self, desc, address, size, host):
        self.desc, self.address, self.size, self.host = desc, address, size, host

    def transposed(self):
        d = self.desc
        if d.ndim < 2:
            return self
        swap = lambda t: t[:-2] + (t[-1], t[-2])
        return Operand(TensorDesc(d.dtype, swap(d.shape), swap(d.strides), d.offset, d.format, d.storage_shape),
                       self.address, self.size, self.host)

    def view(self):
        shape, dtype, offset, strides, span = device.geometry(self.desc)
        if not self.host:
            return device.view_at(self.address, (shape, dtype, offset, strides, span))
        if span > self.size:
            raise _error("ACL_ERROR_INVALID_PARAM", "a host input of %d bytes holds less than its description's %d"
                         % (self.size, span))
        return np.ndarray(shape, dtype, device.ffi.buffer(self.address, span), offset, strides)

    def values(self):
        """The operand's elements, flat: a small input the operator reads as data (axes, a fill value)."""
        return self.view().reshape(-1).copy()


class Io:
    """The operands of one call by their IR names, and its attributes."""

    def __init__(self, ge_type, operands, attrs):
        self.ge_type = ge_type
        self.__dict__.update(operands)
        self._attrs = attrs

    def attr(self, name, default=aclop_table.REQUIRED):
        if name in self._attrs:
            return self._attrs[name]
        if default is aclop_table.REQUIRED:
            raise _error("ACL_ERROR_OP_ATTR_NOT_MATCH", "%s: the required attribute %s is not set" % (self.ge_type, name))
        return default

    def unsupported(self, what):
        return _error("ACL_ERROR_OP_NOT_FOUND", "%s with %s is not supported by opemu" % (self.ge_type, what))


def _attrs(ffi, lib, attr):
    """{name: value} of an aclopAttr: bool, int, float, str, a data type code, lists of them, lists of int lists."""
    if attr == ffi.NULL:
        return {}
    if not lib.opemu_handle_is(attr, lib.OPEMU_KIND_OP_ATTR):
        raise _error("ACL_ERROR_INVALID_PARAM", "attr %s is not a live aclopAttr" % attr)
    a = ffi.cast("aclopAttr *", attr)
    values = {}
    for item in a.items[0:a.count]:
        kind, n = item.kind, item.count
        if kind in (lib.OPEMU_ATTR_BOOL, lib.OPEMU_ATTR_LIST_BOOL):
            value = [bool(v) for v in ffi.unpack(item.ints, n)]
        elif kind in (lib.OPEMU_ATTR_INT, lib.OPEMU_ATTR_LIST_INT, lib.OPEMU_ATTR_DATA_TYPE,
                      lib.OPEMU_ATTR_LIST_DATA_TYPE):
            value = ffi.unpack(item.ints, n)
        elif kind in (lib.OPEMU_ATTR_FLOAT, lib.OPEMU_ATTR_LIST_FLOAT):
            value = ffi.unpack(item.floats, n)
        elif kind in (lib.OPEMU_ATTR_STRING, lib.OPEMU_ATTR_LIST_STRING):
            value = [ffi.string(s).decode() for s in item.strings[0:n]]
        else:  # a list of int lists
            flat, lengths, value, at = ffi.unpack(item.ints, sum(item.lengths[0:n])), item.lengths[0:n], [], 0
            for length in lengths:
                value.append(flat[at:at + length])
                at += length
        scalar = kind in (lib.OPEMU_ATTR_BOOL, lib.OPEMU_ATTR_INT, lib.OPEMU_ATTR_FLOAT, lib.OPEMU_ATTR_STRING,
                          lib.OPEMU_ATTR_DATA_TYPE)
        values[ffi.string(item.name).decode()] = value[0] if scalar else tuple(value)
    return values


def _operand(ffi, lib, ge_type, role, index, desc, buffer):
    if desc == ffi.NULL or buffer == ffi.NULL:
        raise _error("ACL_ERROR_INVALID_PARAM", "%s: %s %d has a null %s" % (
            ge_type, role, index, "description" if desc == ffi.NULL else "data buffer"))
    if not lib.opemu_handle_is(desc, lib.OPEMU_KIND_TENSOR_DESC):
        raise _error("ACL_ERROR_INVALID_PARAM", "%s: %s description %d is not a live aclTensorDesc" % (ge_type, role, index))
    size = ffi.new("uint64_t *")
    address = lib.opemu_data_buffer(buffer, size)
    if address == ffi.NULL and not lib.opemu_handle_is(buffer, lib.OPEMU_KIND_DATA_BUFFER):
        raise _error("ACL_ERROR_INVALID_PARAM", "%s: %s buffer %d is not a live aclDataBuffer" % (ge_type, role, index))
    d = ffi.cast("struct aclTensorDesc *", desc)
    shape = tuple(d.shape.dims[0:d.shape.ndim])
    storage = tuple(d.storage_shape.dims[0:d.storage_shape.ndim])
    if min(shape + storage, default=0) < 0:
        raise _error("ACL_ERROR_INVALID_PARAM", "%s: %s %d has an unknown dimension %s: execution needs a static "
                     "shape" % (ge_type, role, index, checks.shape_text(shape)))
    if d.storage_format not in _PLAIN_FORMATS:
        raise _error("ACL_ERROR_FORMAT_NOT_MATCH", "%s: %s %d is stored in format %d; opemu lays out ND, NCHW, NHWC, "
                     "NCDHW, NDHWC, NC, NCL and HWCN only" % (ge_type, role, index, d.storage_format))
    numel = int(np.prod(shape, dtype=object))
    if numel != int(np.prod(storage, dtype=object)):
        raise _error("ACL_ERROR_INVALID_PARAM", "%s: %s %d: shape %s and storage shape %s hold different numbers of "
                     "elements" % (ge_type, role, index, checks.shape_text(shape), checks.shape_text(storage)))
    strides, step = [0] * len(shape), 1
    for k in range(len(shape) - 1, -1, -1):
        strides[k] = step
        step *= shape[k]
    return Operand(TensorDesc(d.dtype, shape, tuple(strides), 0, d.format, shape), address, size[0],
                   d.placement in _HOST_PLACEMENTS)


def _operands(ffi, lib, row, role, names, count, descs, buffers):
    required = [n for n in names if not n.endswith("?")]
    if count < len(required) or count > len(names):
        code = "ACL_ERROR_OP_INPUT_NOT_MATCH" if role == "input" else "ACL_ERROR_OP_OUTPUT_NOT_MATCH"
        raise _error(code, "%s takes %s %s (%s), not %d" % (row.ge_type, len(required) if len(required) == len(names)
                     else "%d to %d" % (len(required), len(names)), role + "s", ", ".join(names), count))
    if count and (descs == ffi.NULL or buffers == ffi.NULL):
        raise _error("ACL_ERROR_INVALID_PARAM", "[Check][%s]param must not be null." % (
            role + ("Desc" if descs == ffi.NULL else "s")))
    found = {name.rstrip("?"): None for name in names}
    for k in range(count):
        found[names[k].rstrip("?")] = _operand(ffi, lib, row.ge_type, role, k, descs[k], buffers[k])
    return found


def _plan(ffi, lib, args):
    op_type, n_in, in_descs, in_bufs, n_out, out_descs, out_bufs, attr = args[:8]
    if op_type == ffi.NULL:
        raise _error("ACL_ERROR_INVALID_PARAM", "[Check][opType]param must not be null.")
    ge_type = ffi.string(op_type).decode("utf-8", "replace")
    row = aclop_table.ROWS.get(ge_type)
    if n_in < 0 or n_out < 0:
        raise _error("ACL_ERROR_INVALID_PARAM", "%s: numInputs %d and numOutputs %d must not be negative"
                     % (ge_type, n_in, n_out))
    attrs = _attrs(ffi, lib, attr)
    stream = args[-1]
    if stream != ffi.NULL and not lib.opemu_handle_is(stream, lib.OPEMU_KIND_STREAM):
        raise _error("ACL_ERROR_RT_PARAM_INVALID", "%s: stream %s is not a live stream (destroyed or never created)"
                     % (ge_type, stream))
    if row is None:
        raise _error("ACL_ERROR_OP_NOT_FOUND", "op type %s is not supported by opemu: its single-operator table "
                     "runs %s" % (ge_type, ", ".join(sorted(aclop_table.ROWS))))
    operands = _operands(ffi, lib, row, "input", row.inputs, n_in, in_descs, in_bufs)
    operands.update(_operands(ffi, lib, row, "output", row.outputs, n_out, out_descs, out_bufs))
    io = Io(ge_type, operands, attrs)
    op = ops.aclnn_operator(row.op_name)
    values = row.bind(io)
    expected = PARAMETERS.get(row.op_name)
    if expected is not None and set(values) != expected:  # a row that does not name the header's parameters
        raise RuntimeError("the %s row binds %s, the header declares %s" % (ge_type, sorted(values), sorted(expected)))
    tensors = {name: values[name] for name in op.inputs + op.outputs if values.get(name) is not None}
    a = Args({name: (value.desc if name in tensors else value) for name, value in values.items()})
    for name in op.inputs + op.outputs:
        a.__dict__.setdefault(name, None)
    try:
        op.check(a)
        for name, operand in tensors.items():
            checks.layout_supported(name, operand.desc)
        workspace = op.workspace(a)
    except VendorError as error:
        raise _error("ACL_ERROR_INVALID_PARAM", "%s (%s): %s" % (ge_type, op.name, error)) from None
    return ge_type, op, a, tensors, workspace


def _entry(ffi, lib, name):
    stream_index = -1

    def execute(*args):
        try:
            plan = _plan(ffi, lib, args)
        except VendorError as error:
            lib.opemu_error_message(error.code, str(error).encode("utf-8", "replace")[:1900])
            return error.code
        task_id = next(_task_ids)
        TASKS[task_id] = plan
        return lib.opemu_aclop_submit(args[stream_index], task_id)
    return execute


def _run(lib):
    def run(task_id):
        ge_type, op, a, tensors, workspace = TASKS.pop(task_id)
        try:
            views = {name: operand.view() for name, operand in tensors.items()}
            op.compute(a, views, np.empty(workspace, np.uint8))
            return 0
        except device.DeviceFault as fault:
            code = ACL["ACL_ERROR_RT_AICORE_EXCEPTION"]
            lib.opemu_error_message(code, ("%s: an access outside device memory %s" % (ge_type, fault)).encode())
            return code
        except VendorError as error:
            lib.opemu_error_message(error.code, ("%s: %s" % (ge_type, error)).encode("utf-8", "replace")[:1900])
            return error.code
    return run


def entry(ffi, lib, name, meta):
    """The implementation of entry point `name`, or None when it is not one of the single-operator API's."""
    return _entry(ffi, lib, name) if name in ENTRY_POINTS else None


def attach(ffi, lib, entry_points):
    for row in aclop_table.ROWS.values():
        meta = entry_points.get(row.op_name + "GetWorkspaceSize")
        if meta is not None:
            PARAMETERS[row.op_name] = {name for name, _ in meta["params"][:-2]}
    inner = ACL["ACL_ERROR_INTERNAL_ERROR"]

    def on_error(exc_type, exc_value, tb):
        lib.opemu_error_message(inner, ("aclop kernel: internal error: %s: %s" % (exc_type.__name__, exc_value))
                                .encode("utf-8", "replace")[:1900])

    ffi.def_extern(name="opemu_py_aclop_run", error=inner, onerror=on_error)(_run(lib))
    ffi.def_extern(name="opemu_py_aclop_drop", onerror=on_error)(lambda task_id: TASKS.pop(task_id, None))
