"""mcdnnBackendFinalize: what each descriptor type needs before it can be used, checked at the call, and
what it derives, stored on it (read back with mcdnnBackendGetAttribute).

An operation checks its tensors' dims against one another (a convolution as the legacy routines do); an
operation graph checks its tensors' unique ids and virtual tensors and counts its engines (1 when opemu's
engine runs it, else 0); an engine of an index the graph has no engine for, and a heuristic or plan for
such a graph, are refused with MCDNN_STATUS_NOT_SUPPORTED and the reason (backend_graph.Graph.support). A
heuristic's results are one engine configuration (engine 0, no knobs); a plan's workspace is 0 bytes.

BAD_PARAM: a required attribute not set, inconsistent dims or counts, finalizing twice."""
import json

from opemu.core import device, mcdnn
from opemu.ops.mcdnn.backend_execute import conv_geometry
from opemu.ops.mcdnn.backend_graph import Graph, Node, broadcastable, check_tensor, graph_of_plan
from opemu.ops.mcdnn.backend_pointwise import SUPPORTED
from opemu.ops.mcdnn.backend_store import KIND, TYPE, Desc

_INT64, _DESCRIPTOR, _NOTE = TYPE["MCDNN_TYPE_INT64"], TYPE["MCDNN_TYPE_BACKEND_DESCRIPTOR"], \
    TYPE["MCDNN_TYPE_NUMERICAL_NOTE"]
ENGINE_COUNT = 1


def _k(name):
    return KIND["MCDNN_BACKEND_%s_DESCRIPTOR" % name]


def _pointwise(d):
    mode = d.need("POINTWISE_MODE")
    if mode not in SUPPORTED:
        raise mcdnn.bad_param("pointwise mode %d is not an mcdnnPointwiseMode_t" % mode)


def _convolution(d):
    dims = d.need("CONVOLUTION_SPATIAL_DIMS")
    d.need("CONVOLUTION_COMP_TYPE")
    if d.need("CONVOLUTION_CONV_MODE") not in (0, 1):
        raise mcdnn.bad_param("invalid convolution mode %d" % d.one("CONVOLUTION_CONV_MODE"))
    for name, least in (("DILATIONS", 1), ("FILTER_STRIDES", 1), ("PRE_PADDINGS", 0), ("POST_PADDINGS", 0)):
        values = d.values("CONVOLUTION_" + name)
        if values is None or len(values) != dims:
            raise mcdnn.bad_param("MCDNN_ATTR_CONVOLUTION_%s needs %d values (the spatial dims)" % (name, dims))
        if any(x < least for x in values):
            raise mcdnn.bad_param("MCDNN_ATTR_CONVOLUTION_%s %s: each must be at least %d" % (name, values, least))


def _operation(d):
    node = Node(d)
    if node.kind.startswith("conv"):
        conv_geometry(node)
    elif node.kind == "matmul":
        a, b, c = (t.shape for t in (node.inputs["a"], node.inputs["b"], node.outputs["c"]))
        if not (len(a) == len(b) == len(c) >= 2) or a[-1] != b[-2] or (a[-2], b[-1]) != c[-2:]:
            raise mcdnn.bad_param("matmul: A %s, B %s and C %s do not make (.., M, K) x (.., K, N) = (.., M, N)"
                                  % (list(a), list(b), list(c)))
        for x in (a, b):
            if not broadcastable(x[:-2], c[:-2]):
                raise mcdnn.bad_param("matmul: batch dims %s do not broadcast to C's %s" % (list(x[:-2]),
                                                                                           list(c[:-2])))
    elif node.kind == "pointwise":
        out = next(iter(node.outputs.values()))
        for role, t in node.inputs.items():
            if not broadcastable(t.shape, out.shape):
                raise mcdnn.bad_param("pointwise: %s dims %s do not broadcast to the output's %s"
                                      % (role, list(t.shape), list(out.shape)))
    else:
        x, y = node.inputs["x"].shape, node.outputs["y"].shape
        if not broadcastable(y, x):
            raise mcdnn.bad_param("reduction: y dims %s must each be x's %s or 1" % (list(y), list(x)))


def _graph(d):
    d.need("OPERATIONGRAPH_HANDLE")
    graph = Graph(d)
    d.put("OPERATIONGRAPH_ENGINE_GLOBAL_COUNT", _INT64, [ENGINE_COUNT if graph.support() is None else 0])


def _supported(graph):
    reason = graph.support()
    if reason is not None:
        raise mcdnn.not_supported("no engine runs this operation graph: %s" % reason)


def _engine(d):
    graph = d.desc("ENGINE_OPERATION_GRAPH")
    index = d.need("ENGINE_GLOBAL_INDEX")
    _supported(Graph(graph))
    if not 0 <= index < ENGINE_COUNT:
        raise mcdnn.not_supported("engine %d does not exist: opemu has %d engine (index 0)" % (index, ENGINE_COUNT))
    for name in ("ENGINE_KNOB_INFO", "ENGINE_LAYOUT_INFO"):
        d.put(name, _DESCRIPTOR, [])
    d.put("ENGINE_NUMERICAL_NOTE", _NOTE, [])
    d.put("ENGINE_BEHAVIOR_NOTE", TYPE["MCDNN_TYPE_BEHAVIOR_NOTE"], [])


def _engine_config(d):
    engine = d.desc("ENGINECFG_ENGINE")
    if engine.type != _k("ENGINE"):
        raise mcdnn.bad_param("MCDNN_ATTR_ENGINECFG_ENGINE is a %s" % engine.kind_name)
    if d.values("ENGINECFG_KNOB_CHOICES"):
        raise mcdnn.not_supported("engine %d has no knobs to choose" % engine.need("ENGINE_GLOBAL_INDEX"))


def _made(kind, attributes):
    """A finalized descriptor of `kind` made by the library, with (name, type, values) attributes."""
    pointer = device.lib.opemu_backend_new(kind)
    made = Desc(pointer)
    for name, type_code, values in attributes:
        made.put(name, type_code, values)
    made.mark_finalized()
    return pointer


def _heuristic(d):
    d.need("ENGINEHEUR_MODE")
    graph_pointer = d.need("ENGINEHEUR_OPERATION_GRAPH")
    _supported(Graph(Desc(graph_pointer)))
    engine = _made(_k("ENGINE"), [("ENGINE_OPERATION_GRAPH", _DESCRIPTOR, [graph_pointer]),
                                  ("ENGINE_GLOBAL_INDEX", _INT64, [0]), ("ENGINE_KNOB_INFO", _DESCRIPTOR, []),
                                  ("ENGINE_NUMERICAL_NOTE", _NOTE, []), ("ENGINE_LAYOUT_INFO", _DESCRIPTOR, []),
                                  ("ENGINE_BEHAVIOR_NOTE", TYPE["MCDNN_TYPE_BEHAVIOR_NOTE"], [])])
    config = _made(_k("ENGINECFG"), [("ENGINECFG_ENGINE", _DESCRIPTOR, [engine])])
    try:
        d.put("ENGINEHEUR_RESULTS", _DESCRIPTOR, [config])
    finally:
        device.lib.opemu_backend_free(config)
        device.lib.opemu_backend_free(engine)


def _plan(d):
    d.need("EXECUTION_PLAN_HANDLE")
    graph, index = graph_of_plan(d)
    _supported(graph)
    d.put("EXECUTION_PLAN_WORKSPACE_SIZE", _INT64, [0])
    d.put("EXECUTION_PLAN_COMPUTED_INTERMEDIATE_UIDS", _INT64, [])
    d.put("EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS", _INT64, [])
    text = json.dumps({"engine": index, "operations": [n.kind for n in graph.nodes],
                       "tensors": sorted(graph.tensors)}).encode()
    d.put("EXECUTION_PLAN_JSON_REPRESENTATION", TYPE["MCDNN_TYPE_CHAR"], list(text) + [0])


def _variant_pack(d):
    uids, pointers = d.values("VARIANT_PACK_UNIQUE_IDS"), d.values("VARIANT_PACK_DATA_POINTERS")
    if uids is None or pointers is None:
        raise mcdnn.bad_param("a variant pack needs MCDNN_ATTR_VARIANT_PACK_UNIQUE_IDS and _DATA_POINTERS")
    if len(uids) != len(pointers):
        raise mcdnn.bad_param("the variant pack has %d unique ids and %d data pointers" % (len(uids), len(pointers)))


def _knob_choice(d):
    d.need("KNOB_CHOICE_KNOB_TYPE")
    d.need("KNOB_CHOICE_KNOB_VALUE")


FINALIZE = {
    _k("TENSOR"): check_tensor, _k("POINTWISE"): _pointwise, _k("CONVOLUTION"): _convolution,
    _k("MATMUL"): lambda d: d.need("MATMUL_COMP_TYPE"),
    _k("REDUCTION"): lambda d: (d.need("REDUCTION_OPERATOR"), d.need("REDUCTION_COMP_TYPE")),
    _k("OPERATION_CONVOLUTION_FORWARD"): _operation, _k("OPERATION_CONVOLUTION_BACKWARD_DATA"): _operation,
    _k("OPERATION_CONVOLUTION_BACKWARD_FILTER"): _operation, _k("OPERATION_MATMUL"): _operation,
    _k("OPERATION_POINTWISE"): _operation, _k("OPERATION_REDUCTION"): _operation,
    _k("OPERATIONGRAPH"): _graph, _k("ENGINE"): _engine, _k("ENGINECFG"): _engine_config,
    _k("ENGINEHEUR"): _heuristic, _k("EXECUTION_PLAN"): _plan, _k("VARIANT_PACK"): _variant_pack,
    _k("KNOB_CHOICE"): _knob_choice,
}


class BackendFinalize(mcdnn.McdnnOp):
    name = "mcdnnBackendFinalize"
    host_only = True
    raw = ("descriptor",)

    def check(self, a):
        if a.descriptor is None:
            raise mcdnn.bad_param("descriptor is NULL")
        d = a._desc = Desc(a.descriptor)
        if d.finalized:
            raise mcdnn.bad_param("the %s is already finalized" % d.kind_name)
        FINALIZE[d.type](d)

    def compute(self, a, v):
        a._desc.mark_finalized()
