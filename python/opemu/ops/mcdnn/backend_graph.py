"""An operation graph of the backend API as Python objects: its tensors (by unique id) and operations
(convolution forward / backward data / backward filter, matmul, pointwise, reduction), checked as
cuDNN's finalize checks them, ordered so each operation follows those whose virtual outputs it reads,
and judged for an engine.

opemu's engine (global index 0) runs any graph with at most one convolution or matmul, which reads only
tensors the program gives (not virtual ones), followed by any pointwise and reduction operations on its
result and the program's tensors; or pointwise and reduction operations alone — the fusions
cudnn-frontend builds most (convolution + bias + activation, matmul + bias + activation,
scale-bias-ReLU, a gradient's drelu and bias sum). Other graphs have no engine: MCDNN_STATUS_NOT_SUPPORTED
with the reason, where cuDNN refuses them (heuristics, engine finalize)."""
import numpy as np

from opemu.core import mcdnn
from opemu.ops.mcdnn.backend_store import KIND, POINTWISE, Desc

_DATA = mcdnn.DATA
GRAPH_TYPES = {_DATA[n] for n in ("MCDNN_DATA_FLOAT", "MCDNN_DATA_HALF", "MCDNN_DATA_BFLOAT16", "MCDNN_DATA_DOUBLE",
                                  "MCDNN_DATA_BOOLEAN", "MCDNN_DATA_INT32", "MCDNN_DATA_INT64", "MCDNN_DATA_INT8",
                                  "MCDNN_DATA_UINT8")}
HEAVY = {"conv_forward", "conv_backward_data", "conv_backward_filter", "matmul"}
_OPERATIONS = {KIND["MCDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR"]: "conv_forward",
               KIND["MCDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR"]: "conv_backward_data",
               KIND["MCDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR"]: "conv_backward_filter",
               KIND["MCDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR"]: "matmul",
               KIND["MCDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR"]: "pointwise",
               KIND["MCDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR"]: "reduction"}
# (inputs, outputs) by attribute name, per operation
_ROLES = {
    "conv_forward": ({"x": "OPERATION_CONVOLUTION_FORWARD_X", "w": "OPERATION_CONVOLUTION_FORWARD_W"},
                     {"y": "OPERATION_CONVOLUTION_FORWARD_Y"}),
    "conv_backward_data": ({"w": "OPERATION_CONVOLUTION_BWD_DATA_W", "dy": "OPERATION_CONVOLUTION_BWD_DATA_DY"},
                           {"dx": "OPERATION_CONVOLUTION_BWD_DATA_DX"}),
    "conv_backward_filter": ({"x": "OPERATION_CONVOLUTION_BWD_FILTER_X", "dy": "OPERATION_CONVOLUTION_BWD_FILTER_DY"},
                             {"dw": "OPERATION_CONVOLUTION_BWD_FILTER_DW"}),
    "matmul": ({"a": "OPERATION_MATMUL_ADESC", "b": "OPERATION_MATMUL_BDESC"}, {"c": "OPERATION_MATMUL_CDESC"}),
    "reduction": ({"x": "OPERATION_REDUCTION_XDESC"}, {"y": "OPERATION_REDUCTION_YDESC"}),
}
_PREFIX = {"conv_forward": "OPERATION_CONVOLUTION_FORWARD_", "conv_backward_data": "OPERATION_CONVOLUTION_BWD_DATA_",
           "conv_backward_filter": "OPERATION_CONVOLUTION_BWD_FILTER_"}
BACKWARD_POINTWISE = {POINTWISE[n] for n in POINTWISE if n.endswith("_BWD")}
UNARY = {POINTWISE[n] for n in ("MCDNN_POINTWISE_ABS", "MCDNN_POINTWISE_CEIL", "MCDNN_POINTWISE_COS",
                                "MCDNN_POINTWISE_EXP", "MCDNN_POINTWISE_FLOOR", "MCDNN_POINTWISE_LOG",
                                "MCDNN_POINTWISE_NEG", "MCDNN_POINTWISE_RSQRT", "MCDNN_POINTWISE_SIN",
                                "MCDNN_POINTWISE_SQRT", "MCDNN_POINTWISE_TAN", "MCDNN_POINTWISE_ERF",
                                "MCDNN_POINTWISE_IDENTITY", "MCDNN_POINTWISE_RECIPROCAL", "MCDNN_POINTWISE_LOGICAL_NOT",
                                "MCDNN_POINTWISE_GEN_INDEX")} | {POINTWISE[n] for n in POINTWISE if n.endswith("_FWD")}


class Tensor(mcdnn.Tensor):
    """A backend tensor: a descriptor snapshot with its unique id and whether it is virtual or by value."""
    __slots__ = ("uid", "virtual", "by_value")

    def __init__(self, desc):
        dims, strides = desc.values("TENSOR_DIMENSIONS") or [], desc.values("TENSOR_STRIDES") or []
        super().__init__(desc.need("TENSOR_DATA_TYPE"), dims, strides)
        self.uid = desc.need("TENSOR_UNIQUE_ID")
        self.virtual = bool(desc.one("TENSOR_IS_VIRTUAL", False))
        self.by_value = bool(desc.one("TENSOR_IS_BY_VALUE", False))

    def key(self):
        return (self.dtype_code, self.shape, self.strides, self.virtual, self.by_value)

    def __repr__(self):
        return "Tensor(uid=%d, %s, dims=%s%s)" % (self.uid, mcdnn.type_name(self.dtype_code), list(self.shape),
                                                   ", virtual" if self.virtual else "")


def check_tensor(desc):
    """What cuDNN's finalize of a tensor descriptor requires."""
    for name in ("TENSOR_DATA_TYPE", "TENSOR_DIMENSIONS", "TENSOR_STRIDES", "TENSOR_UNIQUE_ID"):
        desc.need(name)
    dims, strides = desc.values("TENSOR_DIMENSIONS"), desc.values("TENSOR_STRIDES")
    if len(dims) != len(strides) or not dims:
        raise mcdnn.bad_param("tensor: %d dimensions and %d strides" % (len(dims), len(strides)))
    if any(d <= 0 for d in dims) or any(s <= 0 for s in strides):
        raise mcdnn.bad_param("tensor: dimensions %s and strides %s must be positive" % (dims, strides))
    alignment = desc.one("TENSOR_BYTE_ALIGNMENT", 1)
    if alignment <= 0 or alignment & (alignment - 1):
        raise mcdnn.bad_param("tensor: byte alignment %d is not a power of two" % alignment)


class Node:
    """One operation: its kind, its input and output tensors by role, and its parameters."""

    def __init__(self, desc):
        self.kind = _OPERATIONS.get(desc.type)
        if self.kind is None:
            raise mcdnn.bad_param("%s is not an operation" % desc.kind_name)
        self.desc = desc
        self.inputs, self.outputs = {}, {}
        if self.kind == "pointwise":
            self._pointwise(desc)
        else:
            inputs, outputs = _ROLES[self.kind]
            self.inputs = {role: Tensor(desc.desc(name)) for role, name in inputs.items()}
            self.outputs = {role: Tensor(desc.desc(name)) for role, name in outputs.items()}
        if self.kind in _PREFIX:
            prefix = _PREFIX[self.kind]
            self.conv = desc.desc(prefix + "CONV_DESC")
            self.alpha = desc.one(prefix + "ALPHA", 1.0)
            self.beta = desc.one(prefix + "BETA", 0.0)
        elif self.kind == "matmul":
            self.comp = desc.desc("OPERATION_MATMUL_DESC").need("MATMUL_COMP_TYPE")
        elif self.kind == "reduction":
            r = desc.desc("OPERATION_REDUCTION_DESC")
            self.operator, self.comp = r.need("REDUCTION_OPERATOR"), r.need("REDUCTION_COMP_TYPE")

    def _pointwise(self, desc):
        pw = desc.desc("OPERATION_POINTWISE_PW_DESCRIPTOR")
        self.mode = pw.need("POINTWISE_MODE")
        self.math = pw.one("POINTWISE_MATH_PREC", _DATA["MCDNN_DATA_FLOAT"])
        self.nan = pw.one("POINTWISE_NAN_PROPAGATION", 0)
        self.params = {name: pw.one("POINTWISE_" + name, default) for name, default in (
            ("RELU_LOWER_CLIP", 0.0), ("RELU_UPPER_CLIP", float("inf")), ("RELU_LOWER_CLIP_SLOPE", 0.0),
            ("ELU_ALPHA", 1.0), ("SOFTPLUS_BETA", 1.0), ("SWISH_BETA", 1.0), ("AXIS", 0))}
        self.alpha1 = desc.one("OPERATION_POINTWISE_ALPHA1", 1.0)
        self.alpha2 = desc.one("OPERATION_POINTWISE_ALPHA2", 1.0)
        if self.mode in BACKWARD_POINTWISE:
            self.inputs = {"x": Tensor(desc.desc("OPERATION_POINTWISE_XDESC")),
                           "dy": Tensor(desc.desc("OPERATION_POINTWISE_DYDESC"))}
            self.outputs = {"dx": Tensor(desc.desc("OPERATION_POINTWISE_DXDESC"))}
            return
        self.inputs = {"x": Tensor(desc.desc("OPERATION_POINTWISE_XDESC"))}
        if self.mode not in UNARY:
            self.inputs["b"] = Tensor(desc.desc("OPERATION_POINTWISE_BDESC"))
        if self.mode == POINTWISE["MCDNN_POINTWISE_BINARY_SELECT"]:
            self.inputs["t"] = Tensor(desc.desc("OPERATION_POINTWISE_TDESC"))
        self.outputs = {"y": Tensor(desc.desc("OPERATION_POINTWISE_YDESC"))}

    def tensors(self):
        return list(self.inputs.values()) + list(self.outputs.values())


class Graph:
    """The operations of an OPERATIONGRAPH descriptor, ordered, with their tensors by unique id."""

    def __init__(self, desc):
        ops = desc.descs("OPERATIONGRAPH_OPS")
        if not ops:
            raise mcdnn.bad_param("the operation graph has no operations (MCDNN_ATTR_OPERATIONGRAPH_OPS)")
        nodes = [Node(op) for op in ops]
        self.tensors = {}
        for node in nodes:
            for t in node.tensors():
                known = self.tensors.setdefault(t.uid, t)
                if known.key() != t.key():
                    raise mcdnn.bad_param("two different tensors share unique id %d" % t.uid)
        producers = {}
        for node in nodes:
            for t in node.outputs.values():
                if t.uid in producers:
                    raise mcdnn.bad_param("tensor %d is written by two operations" % t.uid)
                producers[t.uid] = node
        for t in self.tensors.values():
            if t.virtual and t.uid not in producers:
                raise mcdnn.bad_param("virtual tensor %d is read but no operation writes it" % t.uid)
            if t.virtual and not any(t.uid in (x.uid for x in n.inputs.values()) for n in nodes):
                raise mcdnn.bad_param("virtual tensor %d is written but nothing reads it" % t.uid)
        self.nodes = _ordered(nodes, producers)

    def real(self):
        return [t for t in self.tensors.values() if not t.virtual]

    def support(self):
        """None when opemu's engine runs the graph, else why not."""
        heavy = [n for n in self.nodes if n.kind in HEAVY]
        if len(heavy) > 1:
            return "no engine fuses two convolutions or matmuls in one graph (%d here)" % len(heavy)
        for node in heavy:
            if any(t.virtual for t in node.inputs.values()):
                return "the %s reads a virtual tensor: no engine fuses operations before it" % node.kind
        for t in self.tensors.values():
            if t.dtype_code not in GRAPH_TYPES:
                return "tensor %d has data type %s, which no engine computes" % (t.uid, mcdnn.type_name(t.dtype_code))
        return None


def _ordered(nodes, producers):
    """The nodes so that each comes after the producers of its inputs (BAD_PARAM on a cycle)."""
    done, order, visiting = set(), [], set()

    def visit(node):
        if id(node) in done:
            return
        if id(node) in visiting:
            raise mcdnn.bad_param("the operation graph has a cycle")
        visiting.add(id(node))
        for t in node.inputs.values():
            if t.uid in producers:
                visit(producers[t.uid])
        visiting.discard(id(node))
        done.add(id(node))
        order.append(node)

    for node in nodes:
        visit(node)
    return order


def graph_of_plan(plan):
    """The graph an execution plan runs: plan -> engine config -> engine -> operation graph."""
    engine = plan.desc("EXECUTION_PLAN_ENGINE_CONFIG").desc("ENGINECFG_ENGINE")
    return Graph(engine.desc("ENGINE_OPERATION_GRAPH")), engine.need("ENGINE_GLOBAL_INDEX")


def broadcastable(shape, target):
    return len(shape) == len(target) and all(s in (1, t) for s, t in zip(shape, target))


def scalar_of(desc, name, default):
    value = desc.one(name)
    return default if value is None else float(np.asarray(value))
