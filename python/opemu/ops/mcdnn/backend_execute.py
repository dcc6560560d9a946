"""mcdnnBackendExecute: an execution plan's graph run on the variant pack's buffers, on the handle's stream.

Each operation runs on NumPy arrays: the program's tensors are views of device memory (a by-value tensor
is the host scalar its pointer gives), virtual tensors host arrays of the math type, rounded through their
declared type when it is narrower. Convolutions run the legacy routines' kernels (convolution.py:
forward, backward_data, backward_filter), so both APIs give the same bits; out = alpha * op + beta * out,
out not read when beta is 0. Matmuls multiply in their compute type (batch dims broadcast), pointwise and
reduction operations as backend_pointwise.py says.

BAD_PARAM: a plan or variant pack not finalized or of another type, a tensor of the graph the pack has no
(non-NULL) pointer for, a workspace smaller than the plan's."""
import ml_dtypes
import numpy as np

from opemu.core import device, mcdnn
from opemu.ops.mcdnn import convolution
from opemu.ops.mcdnn.backend_graph import graph_of_plan
from opemu.ops.mcdnn.backend_pointwise import pointwise, reduction
from opemu.ops.mcdnn.backend_store import KIND, Desc

_DOUBLE = mcdnn.DATA["MCDNN_DATA_DOUBLE"]
_F32, _F64, _BF16 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(ml_dtypes.bfloat16)


def math_type(code):
    return _F64 if code == _DOUBLE else _F32


def conv_struct(node):
    """The convolution descriptor of a backend convolution as the legacy kernels take it."""
    c = node.conv
    pre, post = c.values("CONVOLUTION_PRE_PADDINGS"), c.values("CONVOLUTION_POST_PADDINGS")
    if pre != post:
        raise mcdnn.not_supported("asymmetric padding (pre %s, post %s) is not emulated" % (pre, post))
    tensors = {**node.inputs, **node.outputs}
    feature = tensors.get("x", tensors.get("dx"))
    filt = tensors.get("w", tensors.get("dw"))
    groups = feature.shape[1] // filt.shape[1] if filt.shape[1] else 0
    return mcdnn.Struct(mode=c.need("CONVOLUTION_CONV_MODE"), compute=c.need("CONVOLUTION_COMP_TYPE"),
                        math=0, groups=max(groups, 1), reorder=0, pad=tuple(pre),
                        stride=tuple(c.values("CONVOLUTION_FILTER_STRIDES")),
                        dilation=tuple(c.values("CONVOLUTION_DILATIONS")))


def conv_geometry(node):
    """(geometry, compute dtype, conv struct) by the legacy routines' configuration checks (a virtual output
    takes the inputs' data type there: it holds the compute type's result)."""
    conv = conv_struct(node)
    t = {**node.inputs, **node.outputs}
    if node.kind == "conv_forward":
        x, w, y = t["x"], t["w"], t["y"]
    elif node.kind == "conv_backward_data":
        x, w, y = t["dx"], t["w"], t["dy"]
    else:
        x, w, y = t["x"], t["dw"], t["dy"]
    data = x if not x.virtual else y
    same = [mcdnn.Tensor(data.dtype_code, s.shape, s.strides) for s in (x, w, y)]
    geometry, ct = convolution.configuration(*same, conv)
    return geometry, ct, conv, data.dtype_code


def _store(values, tensor, result):
    """Puts a result of the math type where `tensor` lives: a virtual tensor's array (rounded through its
    type), or the program's buffer (rounded into its type)."""
    if tensor.virtual:
        dtype = tensor.dtype
        if dtype is not None and dtype != result.dtype and (dtype.kind == "f" or dtype == _BF16):
            result = result.astype(dtype).astype(result.dtype)
        values[tensor.uid] = result
    else:
        target = values[tensor.uid]
        target[...] = result


def run_conv(node, values):
    geometry, ct, conv, code = conv_geometry(node)
    scratch = convolution.FORWARD.scratch(geometry, ct, None)
    t = {**node.inputs, **node.outputs}
    alpha, beta = float(node.alpha), float(node.beta)
    out_role = next(iter(node.outputs))
    out = node.outputs[out_role]
    target = values[out.uid] if not out.virtual else np.zeros(out.shape, ct)
    if out.virtual:
        beta = 0.0
    if node.kind == "conv_forward":
        convolution.forward(values[t["x"].uid], values[t["w"].uid], target, geometry, ct, conv, code, scratch,
                            lambda chunk, acc, lo: mcdnn.write_split(chunk, acc, alpha, beta),
                            plain=alpha == 1 and beta == 0)
    elif node.kind == "conv_backward_data":
        convolution.backward_data(values[t["w"].uid], values[t["dy"].uid], target, geometry, ct, conv, code,
                                  convolution.BACKWARD_DATA.scratch(geometry, ct, None), alpha, beta)
    else:
        convolution.backward_filter(values[t["x"].uid], values[t["dy"].uid], target, geometry, ct, conv, code,
                                    convolution.BACKWARD_FILTER.scratch(geometry, ct, None), alpha, beta)
    if out.virtual:
        _store(values, out, target)


def run_graph(graph, values):
    """Runs every node in order; `values` maps the program's tensors' ids to arrays and gains the virtual ones."""
    for node in graph.nodes:
        if node.kind.startswith("conv"):
            run_conv(node, values)
        elif node.kind == "matmul":
            ct = math_type(node.comp)
            a, b = (values[node.inputs[r].uid].astype(ct) for r in ("a", "b"))
            _store(values, node.outputs["c"], np.matmul(a, b))
        elif node.kind == "pointwise":
            _store(values, next(iter(node.outputs.values())), pointwise(node, values, math_type(node.math)))
        else:
            _store(values, node.outputs["y"], reduction(node, values, math_type(node.comp)))


def _descriptor(pointer, kind, name):
    if pointer is None:
        raise mcdnn.bad_param("%s is NULL" % name)
    d = Desc(pointer)
    if d.type != KIND[kind]:
        raise mcdnn.bad_param("%s is a %s, not a %s" % (name, d.kind_name, kind))
    if not d.finalized:
        raise mcdnn.bad_param("%s was not finalized" % name)
    return d


class BackendExecute(mcdnn.McdnnOp):
    name = "mcdnnBackendExecute"
    raw = ("executionPlan", "variantPack")

    def check(self, a):
        plan = _descriptor(a.executionPlan, "MCDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR", "executionPlan")
        pack = _descriptor(a.variantPack, "MCDNN_BACKEND_VARIANT_PACK_DESCRIPTOR", "variantPack")
        a._graph, _ = graph_of_plan(plan)
        uids, pointers = pack.values("VARIANT_PACK_UNIQUE_IDS"), pack.values("VARIANT_PACK_DATA_POINTERS")
        given = dict(zip(uids, pointers))
        a._buffers = []
        for t in a._graph.real():
            pointer = given.get(t.uid)
            if pointer is None or pointer == device.ffi.NULL:
                raise mcdnn.bad_param("the variant pack has no data pointer for tensor %d" % t.uid)
            if t.dtype is None:
                raise mcdnn.not_supported("tensor %d has data type %s" % (t.uid, mcdnn.type_name(t.dtype_code)))
            a._buffers.append((t, pointer, _host_scalar(t, pointer) if t.by_value else None))

    def compute(self, a, v):
        values = {}
        written = {u for n in a._graph.nodes for u in (t.uid for t in n.outputs.values())}
        for t, pointer, scalar in a._buffers:
            if scalar is not None:
                values[t.uid] = scalar
                continue
            geometry = t.geometry()
            if device.strict:
                device.lib.opemu_sanitize_access(pointer, geometry[-1], int(t.uid in written),
                                                 b"mcdnnBackendExecute: a variant pack tensor")
            values[t.uid] = device.view_at(pointer, geometry)
        run_graph(a._graph, values)


def _host_scalar(t, pointer):
    """A by-value tensor: the value at its host pointer, read at the call, broadcast over its dims."""
    data = np.frombuffer(device.ffi.buffer(device.ffi.cast("char *", pointer), t.dtype.itemsize), t.dtype)
    return np.broadcast_to(data.reshape((1,) * len(t.shape)), t.shape)
