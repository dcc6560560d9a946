"""The mcDNN backend graph API, driven as cudnn-frontend drives it: convolution forward, backward data and
backward filter graphs against PyTorch (and bit for bit against the legacy routines), the fused graphs
conv + bias + ReLU, matmul + bias + ReLU and scale-bias-ReLU, a reduction; heuristics, engine
configurations, plans and attribute reads; unsupported graphs refused with NOT_SUPPORTED; the documented
statuses."""
import ctypes

import numpy as np
import pytest
import torch

from backend import (BACKEND_DESCRIPTOR, DATA_TYPE, DOUBLE_T, FLOAT_T, HEUR_MODE, INT64, REDUCTION_OPERATOR,
                     A, build, conv_desc, create, execute, finalize, graph, plan_for, pointwise, set_attr, tensor)
from conftest import opemu_only
from mc import (BAD_PARAM, FLOAT, NOT_SUPPORTED, SUCCESS, Desc, DeviceTensor, c_void_p, handle, lib, recent_error,
                scale)

pytestmark = [opemu_only]
assert handle
NOT_INITIALIZED = 1


def device_array(values):
    values = np.asarray(values, np.float32)
    return DeviceTensor(Desc(FLOAT, list(values.shape)), values)


def conv_forward_op(x, w, y, conv, alpha=1.0, beta=0.0):
    return build("OP_CONV_FWD", [("CONV_FWD_X", BACKEND_DESCRIPTOR, x), ("CONV_FWD_W", BACKEND_DESCRIPTOR, w),
                                 ("CONV_FWD_Y", BACKEND_DESCRIPTOR, y), ("CONV_FWD_DESC", BACKEND_DESCRIPTOR, conv),
                                 ("CONV_FWD_ALPHA", FLOAT_T, alpha), ("CONV_FWD_BETA", FLOAT_T, beta)])


def sync():
    assert lib().mcDeviceSynchronize() == 0


def legacy_forward(handle, xs, ws, x, w):
    """mcdnnConvolutionForward (the legacy API) with pad 1: its output."""
    xd, yd = Desc(FLOAT, list(xs)), Desc(FLOAT, [xs[0], ws[0], xs[2], xs[3]])
    wd, cd = c_void_p(), c_void_p()
    assert lib().mcdnnCreateFilterDescriptor(ctypes.byref(wd)) == 0
    assert lib().mcdnnSetFilter4dDescriptor(wd, FLOAT, 0, *ws) == 0
    assert lib().mcdnnCreateConvolutionDescriptor(ctypes.byref(cd)) == 0
    assert lib().mcdnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, 1, FLOAT) == 0
    y = DeviceTensor(yd, np.zeros(yd.dims))
    assert lib().mcdnnConvolutionForward(handle, scale(1.0, FLOAT), xd.handle, x.address, wd, w.address, cd, 1, None,
                                         ctypes.c_size_t(0), scale(0.0, FLOAT), yd.handle, y.address) == 0, recent_error()
    sync()
    return y.read()


def test_convolution_forward_matches_torch_and_the_legacy_routine_bit_for_bit(handle):
    rng = np.random.default_rng(0)
    xs, ws = (2, 3, 9, 8), (4, 3, 3, 3)
    xv, wv = rng.standard_normal(xs), rng.standard_normal(ws)
    x, w, y = device_array(xv), device_array(wv), device_array(np.zeros((2, 4, 9, 8)))
    tx, tw, ty = tensor(1, xs), tensor(2, ws), tensor(3, (2, 4, 9, 8))
    plan = plan_for(handle, graph(handle, [conv_forward_op(tx, tw, ty, conv_desc())]))
    assert execute(handle, plan, [1, 2, 3], [x.address, w.address, y.address]) == SUCCESS, recent_error()
    sync()
    out = y.read()
    expected = torch.nn.functional.conv2d(torch.tensor(xv.astype(np.float32)), torch.tensor(wv.astype(np.float32)),
                                          padding=1)
    np.testing.assert_allclose(out, expected.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(out, legacy_forward(handle, xs, ws, x, w))


def test_conv_bias_relu_fused(handle):
    rng = np.random.default_rng(1)
    xv, wv, bv = rng.standard_normal((2, 3, 6, 6)), rng.standard_normal((5, 3, 3, 3)), rng.standard_normal((1, 5, 1, 1))
    x, w, b, y = device_array(xv), device_array(wv), device_array(bv), device_array(np.zeros((2, 5, 6, 6)))
    tx, tw, tb, ty = tensor(1, xv.shape), tensor(2, wv.shape), tensor(3, bv.shape), tensor(4, (2, 5, 6, 6))
    conv_out, biased = tensor(10, (2, 5, 6, 6), virtual=True), tensor(11, (2, 5, 6, 6), virtual=True)
    ops = [conv_forward_op(tx, tw, conv_out, conv_desc()), pointwise("ADD", conv_out, biased, b=tb),
           pointwise("RELU_FWD", biased, ty)]
    plan = plan_for(handle, graph(handle, ops))
    assert execute(handle, plan, [1, 2, 3, 4], [x.address, w.address, b.address, y.address]) == SUCCESS, \
        recent_error()
    sync()
    t = torch.nn.functional.conv2d(torch.tensor(xv), torch.tensor(wv), padding=1) + torch.tensor(bv)
    np.testing.assert_allclose(y.read(), torch.relu(t).numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("direction", ["data", "filter"])
def test_convolution_backward_graphs_match_torch(handle, direction):
    rng = np.random.default_rng(2)
    xv, wv, gv = rng.standard_normal((2, 3, 7, 7)), rng.standard_normal((4, 3, 3, 3)), rng.standard_normal((2, 4, 7, 7))
    tx, tw = torch.tensor(xv, requires_grad=True), torch.tensor(wv, requires_grad=True)
    torch.nn.functional.conv2d(tx, tw, padding=1).backward(torch.tensor(gv))
    dy = device_array(gv)
    kind, prefix, (given_role, given), (out_role, out_shape), expected = (
        ("OP_CONV_BWD_DATA", "BWD_DATA_", ("W", wv), ("DX", xv.shape), tx.grad) if direction == "data" else
        ("OP_CONV_BWD_FILTER", "BWD_FILTER_", ("X", xv), ("DW", wv.shape), tw.grad))
    operand, out = device_array(given), device_array(np.zeros(out_shape))
    op = build(kind, [(prefix + given_role, BACKEND_DESCRIPTOR, tensor(1, given.shape)),
                      (prefix + "DY", BACKEND_DESCRIPTOR, tensor(2, gv.shape)),
                      (prefix + out_role, BACKEND_DESCRIPTOR, tensor(3, out_shape)),
                      (prefix + "DESC", BACKEND_DESCRIPTOR, conv_desc())])
    pointers = [operand.address, dy.address, out.address]
    plan = plan_for(handle, graph(handle, [op]))
    assert execute(handle, plan, [1, 2, 3], pointers) == SUCCESS, recent_error()
    sync()
    np.testing.assert_allclose(out.read(), expected.numpy(), rtol=1e-4, atol=1e-4)


def test_matmul_bias_relu_fused(handle):
    rng = np.random.default_rng(3)
    av, bv, biasv = rng.standard_normal((2, 5, 7)), rng.standard_normal((2, 7, 4)), rng.standard_normal((1, 1, 4))
    a, b, bias, c = device_array(av), device_array(bv), device_array(biasv), device_array(np.zeros((2, 5, 4)))
    product, biased = tensor(10, (2, 5, 4), virtual=True), tensor(11, (2, 5, 4), virtual=True)
    mm = build("OP_MATMUL", [("MM_A", BACKEND_DESCRIPTOR, tensor(1, av.shape)),
                             ("MM_B", BACKEND_DESCRIPTOR, tensor(2, bv.shape)), ("MM_C", BACKEND_DESCRIPTOR, product),
                             ("MM_DESC", BACKEND_DESCRIPTOR, build("MATMUL", [("MATMUL_COMP", DATA_TYPE, FLOAT)]))])
    ops = [mm, pointwise("ADD", product, biased, b=tensor(3, biasv.shape)), pointwise("RELU_FWD", biased,
                                                                                      tensor(4, (2, 5, 4)))]
    plan = plan_for(handle, graph(handle, ops))
    assert execute(handle, plan, [1, 2, 3, 4], [a.address, b.address, bias.address, c.address]) == SUCCESS, \
        recent_error()
    sync()
    np.testing.assert_allclose(c.read(), np.maximum(av @ bv + biasv, 0), rtol=1e-5, atol=1e-5)


def test_scale_bias_relu(handle):
    rng = np.random.default_rng(4)
    xv, sv, bv = rng.standard_normal((2, 4, 3, 3)), rng.standard_normal((1, 4, 1, 1)), rng.standard_normal((1, 4, 1, 1))
    x, s, b, y = device_array(xv), device_array(sv), device_array(bv), device_array(np.zeros(xv.shape))
    scaled, biased = tensor(10, xv.shape, virtual=True), tensor(11, xv.shape, virtual=True)
    ops = [pointwise("MUL", tensor(1, xv.shape), scaled, b=tensor(2, sv.shape)),
           pointwise("ADD", scaled, biased, b=tensor(3, bv.shape)), pointwise("RELU_FWD", biased, tensor(4, xv.shape))]
    plan = plan_for(handle, graph(handle, ops))
    assert execute(handle, plan, [1, 2, 3, 4], [x.address, s.address, b.address, y.address]) == SUCCESS
    sync()
    np.testing.assert_allclose(y.read(), np.maximum(xv * sv + bv, 0), rtol=1e-5, atol=1e-5)


def test_reduction_sums_the_dims_of_one(handle):
    rng = np.random.default_rng(5)
    xv = rng.standard_normal((2, 3, 4, 5))
    x, y = device_array(xv), device_array(np.zeros((1, 3, 1, 1)))
    red = build("REDUCTION", [("RED_OP", REDUCTION_OPERATOR, 0), ("RED_COMP", DATA_TYPE, FLOAT)])
    op = build("OP_REDUCTION", [("RED_X", BACKEND_DESCRIPTOR, tensor(1, xv.shape)),
                                ("RED_Y", BACKEND_DESCRIPTOR, tensor(2, (1, 3, 1, 1))), ("RED_DESC", BACKEND_DESCRIPTOR, red)])
    plan = plan_for(handle, graph(handle, [op]))
    assert execute(handle, plan, [1, 2], [x.address, y.address]) == SUCCESS, recent_error()
    sync()
    np.testing.assert_allclose(y.read(), xv.sum(axis=(0, 2, 3), keepdims=True), rtol=1e-5)


def test_two_convolutions_in_one_graph_have_no_engine(handle):
    middle = tensor(10, (1, 2, 5, 5), virtual=True)
    ops = [conv_forward_op(tensor(1, (1, 2, 5, 5)), tensor(2, (2, 2, 3, 3)), middle, conv_desc()),
           conv_forward_op(middle, tensor(3, (2, 2, 3, 3)), tensor(4, (1, 2, 5, 5)), conv_desc())]
    op_graph = graph(handle, ops)
    engines = ctypes.c_int64(-1)
    assert lib().mcdnnBackendGetAttribute(op_graph, A["GRAPH_COUNT"], INT64, ctypes.c_int64(1), None,
                                          ctypes.byref(engines)) == SUCCESS
    assert engines.value == 0
    heur = create("ENGINEHEUR")
    assert set_attr(heur, "HEUR_GRAPH", BACKEND_DESCRIPTOR, op_graph) == 0
    assert set_attr(heur, "HEUR_MODE", HEUR_MODE, 0) == 0
    assert finalize(heur) == NOT_SUPPORTED
    assert "two convolutions" in recent_error()


def test_an_engine_index_past_the_count_is_not_supported(handle):
    op_graph = graph(handle, [pointwise("RELU_FWD", tensor(1, (1, 1, 2, 2)), tensor(2, (1, 1, 2, 2)))])
    engine = create("ENGINE")
    assert set_attr(engine, "ENGINE_GRAPH", BACKEND_DESCRIPTOR, op_graph) == 0
    assert set_attr(engine, "ENGINE_INDEX", INT64, 1) == 0
    assert finalize(engine) == NOT_SUPPORTED


def test_attribute_statuses():
    t = create("TENSOR")
    assert set_attr(t, "T_DIMS", DOUBLE_T, [1.0, 2.0]) == BAD_PARAM          # the wrong attribute type
    assert set_attr(t, "CONV_MODE", INT64, 1) == BAD_PARAM                   # not a tensor's attribute
    assert set_attr(t, "T_DIMS", INT64, [1] * 9) == BAD_PARAM                # more than MCDNN_DIM_MAX dims
    assert finalize(t) == BAD_PARAM and "was not set" in recent_error()
    count = ctypes.c_int64()
    assert lib().mcdnnBackendGetAttribute(t, A["T_DIMS"], INT64, ctypes.c_int64(0), ctypes.byref(count),
                                          None) == NOT_INITIALIZED
    done = tensor(7, (1, 2, 3))
    assert set_attr(done, "T_UID", INT64, 8) == BAD_PARAM                    # finalized
    assert lib().mcdnnBackendGetAttribute(done, A["T_DIMS"], INT64, ctypes.c_int64(0), ctypes.byref(count),
                                          None) == SUCCESS and count.value == 3
    dims = (ctypes.c_int64 * 3)()
    assert lib().mcdnnBackendGetAttribute(done, A["T_DIMS"], INT64, ctypes.c_int64(3), ctypes.byref(count),
                                          dims) == SUCCESS and list(dims) == [1, 2, 3]
    unemulated = c_void_p()
    assert lib().mcdnnBackendCreateDescriptor(14, ctypes.byref(unemulated)) == NOT_SUPPORTED   # GEN_STATS
    assert lib().mcdnnBackendDestroyDescriptor(done) == SUCCESS


def test_plan_workspace_is_zero_and_execute_needs_every_tensor(handle):
    op_graph = graph(handle, [pointwise("RELU_FWD", tensor(1, (1, 1, 2, 2)), tensor(2, (1, 1, 2, 2)))])
    plan = plan_for(handle, op_graph)
    workspace = ctypes.c_int64(-1)
    assert lib().mcdnnBackendGetAttribute(plan, A["PLAN_WORKSPACE"], INT64, ctypes.c_int64(1), None,
                                          ctypes.byref(workspace)) == SUCCESS and workspace.value == 0
    x = device_array(np.ones((1, 1, 2, 2)))
    assert execute(handle, plan, [1], [x.address]) == BAD_PARAM
    assert "tensor 2" in recent_error()


PW_TORCH = {
    "TANH_FWD": torch.tanh, "SIGMOID_FWD": torch.sigmoid, "GELU_FWD": torch.nn.functional.gelu,
    "GELU_APPROX_TANH_FWD": lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
    "ELU_FWD": torch.nn.functional.elu, "SOFTPLUS_FWD": torch.nn.functional.softplus,
    "SWISH_FWD": torch.nn.functional.silu, "EXP": torch.exp, "ABS": torch.abs, "NEG": torch.neg,
    "ADD": torch.add, "SUB": torch.sub, "MUL": torch.mul, "DIV": torch.div, "MAX": torch.maximum,
    "MIN": torch.minimum, "CMP_GT": lambda x, b: (x > b).double(),
}
PW_GRADS = {"RELU_BWD": torch.relu, "TANH_BWD": torch.tanh, "SIGMOID_BWD": torch.sigmoid,
            "GELU_BWD": torch.nn.functional.gelu, "SWISH_BWD": torch.nn.functional.silu}
PW_CODES = {"TANH_FWD": 101, "SIGMOID_FWD": 102, "ELU_FWD": 103, "GELU_FWD": 104, "SOFTPLUS_FWD": 105,
            "SWISH_FWD": 106, "GELU_APPROX_TANH_FWD": 107, "EXP": 13, "ABS": 10, "NEG": 16, "ADD": 0, "SUB": 9,
            "MUL": 1, "DIV": 6, "MAX": 3, "MIN": 2, "CMP_GT": 302, "RELU_BWD": 200, "TANH_BWD": 201,
            "SIGMOID_BWD": 202, "GELU_BWD": 204, "SWISH_BWD": 206}
BINARY_MODES = {"ADD", "SUB", "MUL", "DIV", "MAX", "MIN", "CMP_GT"}
POINTWISE_MODE = 14


def pointwise_node(mode, ports):
    desc = build("POINTWISE", [("PW_MODE", POINTWISE_MODE, PW_CODES[mode]), ("PW_MATH_PREC", DATA_TYPE, FLOAT)])
    return build("OP_POINTWISE", [("PW_DESC", BACKEND_DESCRIPTOR, desc)]
                 + [(port, BACKEND_DESCRIPTOR, t) for port, t in ports])


@pytest.mark.parametrize("mode", sorted(PW_CODES))
def test_pointwise_modes_match_torch(handle, mode):
    rng = np.random.default_rng(PW_CODES[mode])
    shape, b_shape = (2, 3, 4, 5), (1, 3, 1, 5)      # b broadcast over n and h
    xv = rng.standard_normal(shape).astype(np.float32)
    bv = (rng.standard_normal(b_shape) + (3.0 if mode == "DIV" else 0.0)).astype(np.float32)
    x, b, y = device_array(xv), device_array(bv), device_array(np.zeros(shape))
    xt = torch.tensor(xv, dtype=torch.float64)
    if mode in PW_GRADS:
        dyv = rng.standard_normal(shape).astype(np.float32)
        op = pointwise_node(mode, [("PW_X", tensor(1, shape)), ("PW_DY", tensor(2, shape)), ("PW_DX", tensor(3, shape))])
        dy = device_array(dyv)
        pointers = [x.address, dy.address, y.address]
        xt.requires_grad_(True)
        PW_GRADS[mode](xt).backward(torch.tensor(dyv, dtype=torch.float64))
        expected = xt.grad.numpy()
    elif mode in BINARY_MODES:
        op = pointwise_node(mode, [("PW_X", tensor(1, shape)), ("PW_B", tensor(2, b_shape)), ("PW_Y", tensor(3, shape))])
        pointers = [x.address, b.address, y.address]
        expected = PW_TORCH[mode](xt, torch.tensor(bv, dtype=torch.float64)).numpy()
    else:
        op = pointwise_node(mode, [("PW_X", tensor(1, shape)), ("PW_Y", tensor(3, shape))])
        pointers = [x.address, y.address]
        expected = PW_TORCH[mode](xt).numpy()
    plan = plan_for(handle, graph(handle, [op]))
    uids = [1, 2, 3] if len(pointers) == 3 else [1, 3]
    assert execute(handle, plan, uids, pointers) == SUCCESS, recent_error()
    sync()
    np.testing.assert_allclose(y.read(), expected, rtol=2e-5, atol=2e-6)
