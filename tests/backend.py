"""The mcDNN backend graph API from a test, as cudnn-frontend drives it: descriptors created, attributes set
by typed arrays, finalized; graphs, heuristics, plans and variant packs built from Python values."""
import ctypes

from mc import FLOAT, c_void_p, lib, packed_strides, recent_error

# mcdnnBackendAttributeType_t
HANDLE, DATA_TYPE, BOOLEAN, INT64, FLOAT_T, DOUBLE_T, VOID_PTR, CONV_MODE, HEUR_MODE = range(9)
POINTWISE_MODE, BACKEND_DESCRIPTOR, REDUCTION_OPERATOR = 14, 15, 18
# mcdnnBackendDescriptorType_t
D = {"POINTWISE": 0, "CONVOLUTION": 1, "ENGINE": 2, "ENGINECFG": 3, "ENGINEHEUR": 4, "EXECUTION_PLAN": 5,
     "KNOB_CHOICE": 7, "OP_CONV_FWD": 10, "OP_CONV_BWD_FILTER": 11, "OP_CONV_BWD_DATA": 12, "OP_POINTWISE": 13,
     "OP_GEN_STATS": 14, "OPERATIONGRAPH": 15, "VARIANT_PACK": 16, "TENSOR": 17, "MATMUL": 18, "OP_MATMUL": 19,
     "REDUCTION": 21, "OP_REDUCTION": 22}
# attributes
A = {"PW_MODE": 0, "PW_MATH_PREC": 1, "CONV_COMP_TYPE": 100, "CONV_MODE": 101, "CONV_DILATIONS": 102,
     "CONV_STRIDES": 103, "CONV_POST_PAD": 104, "CONV_PRE_PAD": 105, "CONV_SPATIAL_DIMS": 106, "HEUR_MODE": 200,
     "HEUR_GRAPH": 201, "HEUR_RESULTS": 202, "CFG_ENGINE": 300, "CFG_KNOBS": 302, "PLAN_HANDLE": 400,
     "PLAN_CONFIG": 401, "PLAN_WORKSPACE": 402, "PLAN_JSON": 405, "CONV_FWD_ALPHA": 700, "CONV_FWD_BETA": 701,
     "CONV_FWD_DESC": 702, "CONV_FWD_W": 703, "CONV_FWD_X": 704, "CONV_FWD_Y": 705, "BWD_DATA_DESC": 708,
     "BWD_DATA_W": 709, "BWD_DATA_DX": 710, "BWD_DATA_DY": 711, "BWD_FILTER_DESC": 714, "BWD_FILTER_DW": 715,
     "BWD_FILTER_X": 716, "BWD_FILTER_DY": 717, "PW_DESC": 750, "PW_X": 751, "PW_B": 752, "PW_Y": 753,
     "PW_DX": 756, "PW_DY": 757, "GRAPH_HANDLE": 800, "GRAPH_OPS": 801, "GRAPH_COUNT": 802, "T_ALIGN": 900,
     "T_TYPE": 901, "T_DIMS": 902, "T_STRIDES": 903, "T_UID": 906, "T_VIRTUAL": 907, "T_BY_VALUE": 908,
     "PACK_UIDS": 1000, "PACK_PTRS": 1001, "PACK_WORKSPACE": 1003, "ENGINE_GRAPH": 1300, "ENGINE_INDEX": 1301,
     "MATMUL_COMP": 1500, "MM_A": 1520, "MM_B": 1521, "MM_C": 1522, "MM_DESC": 1523, "RED_OP": 1600,
     "RED_COMP": 1601, "RED_X": 1610, "RED_Y": 1611, "RED_DESC": 1612}
PW = {"ADD": 0, "MUL": 1, "RELU_FWD": 100, "RELU_BWD": 200, "TANH_FWD": 101, "GELU_FWD": 104}
_CTYPES = {HANDLE: c_void_p, DATA_TYPE: ctypes.c_int, BOOLEAN: ctypes.c_bool, INT64: ctypes.c_int64,
           FLOAT_T: ctypes.c_float, DOUBLE_T: ctypes.c_double, VOID_PTR: c_void_p, CONV_MODE: ctypes.c_int,
           HEUR_MODE: ctypes.c_int, POINTWISE_MODE: ctypes.c_int, BACKEND_DESCRIPTOR: c_void_p,
           REDUCTION_OPERATOR: ctypes.c_int}
KEEP = []


def create(kind):
    d = c_void_p()
    status = lib().mcdnnBackendCreateDescriptor(ctypes.c_int(D[kind] if isinstance(kind, str) else kind),
                                                ctypes.byref(d))
    assert status == 0, recent_error()
    KEEP.append(d)
    return d


def set_attr(d, name, kind, values):
    values = values if isinstance(values, (list, tuple)) else [values]
    ctype = _CTYPES[kind]
    array = (ctype * max(len(values), 1))(*[v.value if isinstance(v, c_void_p) else v for v in values])
    return lib().mcdnnBackendSetAttribute(d, ctypes.c_int(A[name] if isinstance(name, str) else name),
                                          ctypes.c_int(kind), ctypes.c_int64(len(values)), array)


def finalize(d):
    return lib().mcdnnBackendFinalize(d)


def build(kind, attributes):
    """A finalized descriptor: attributes (name, type, values)."""
    d = create(kind)
    for name, type_code, values in attributes:
        assert set_attr(d, name, type_code, values) == 0, recent_error()
    assert finalize(d) == 0, recent_error()
    return d


def tensor(uid, dims, code=FLOAT, virtual=False, strides=None):
    return build("TENSOR", [("T_TYPE", DATA_TYPE, code), ("T_DIMS", INT64, list(dims)),
                            ("T_STRIDES", INT64, strides or packed_strides(list(dims))), ("T_UID", INT64, uid),
                            ("T_ALIGN", INT64, 16), ("T_VIRTUAL", BOOLEAN, virtual)])


def conv_desc(spatial=2, pad=1, stride=1, dilation=1, mode=1, comp=FLOAT):
    return build("CONVOLUTION", [("CONV_COMP_TYPE", DATA_TYPE, comp), ("CONV_MODE", CONV_MODE, mode),
                                 ("CONV_SPATIAL_DIMS", INT64, spatial), ("CONV_DILATIONS", INT64, [dilation] * spatial),
                                 ("CONV_STRIDES", INT64, [stride] * spatial), ("CONV_PRE_PAD", INT64, [pad] * spatial),
                                 ("CONV_POST_PAD", INT64, [pad] * spatial)])


def pointwise(mode, x, y, b=None, math=FLOAT):
    desc = build("POINTWISE", [("PW_MODE", POINTWISE_MODE, PW[mode]), ("PW_MATH_PREC", DATA_TYPE, math)])
    attributes = [("PW_DESC", BACKEND_DESCRIPTOR, desc), ("PW_X", BACKEND_DESCRIPTOR, x), ("PW_Y", BACKEND_DESCRIPTOR, y)]
    if b is not None:
        attributes.append(("PW_B", BACKEND_DESCRIPTOR, b))
    return build("OP_POINTWISE", attributes)


def graph(handle, ops):
    return build("OPERATIONGRAPH", [("GRAPH_HANDLE", HANDLE, handle), ("GRAPH_OPS", BACKEND_DESCRIPTOR, list(ops))])


def plan_for(handle, op_graph):
    """Heuristic mode INSTANT, its first engine configuration, the plan: as cudnn-frontend does."""
    heur = build("ENGINEHEUR", [("HEUR_GRAPH", BACKEND_DESCRIPTOR, op_graph), ("HEUR_MODE", HEUR_MODE, 0)])
    config = create("ENGINECFG")
    count = ctypes.c_int64()
    assert lib().mcdnnBackendGetAttribute(heur, A["HEUR_RESULTS"], BACKEND_DESCRIPTOR, ctypes.c_int64(1),
                                          ctypes.byref(count), ctypes.byref(config)) == 0, recent_error()
    assert count.value == 1
    return build("EXECUTION_PLAN", [("PLAN_HANDLE", HANDLE, handle), ("PLAN_CONFIG", BACKEND_DESCRIPTOR, config)])


def execute(handle, plan, uids, pointers, workspace=None):
    pack = build("VARIANT_PACK", [("PACK_UIDS", INT64, list(uids)), ("PACK_PTRS", VOID_PTR, list(pointers)),
                                  ("PACK_WORKSPACE", VOID_PTR, workspace)])
    return lib().mcdnnBackendExecute(handle, plan, pack)
