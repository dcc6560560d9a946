"""ops-nn conv/ through the C ABI: aclnnConvolution (1-D, 2-D, 3-D, grouped, dilated, transposed, asymmetric pads),
its backward, ConvDepthwise2d and ConvTbc against PyTorch CPU; where the cube rounds (cubeMathType); the
phase-1 checks in the op_api's order."""
import ctypes

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from acl import DeviceTensor, recent_error
from acl_args import call, int_array, to_torch

NULLPTR, INVALID = 161001, 161002
FORMAT = {3: 47, 4: 0, 5: 30}
I64, B, I8, I32 = ctypes.c_int64, ctypes.c_bool, ctypes.c_int8, ctypes.c_int
OK = (0, 0, 0)
CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
CONV_T = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


def t(array, fmt=None, **kw):
    array = np.asarray(array)
    return DeviceTensor(array, format=FORMAT.get(array.ndim, 2) if fmt is None else fmt, **kw)


def got(tensor):
    return tensor.storage().reshape(tensor.shape)


def ints(*values):
    return int_array(list(values))


def bools(*values):
    from acl import lib
    create = lib().aclCreateBoolArray
    create.restype = ctypes.c_void_p
    create.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
    raw = (ctypes.c_bool * len(values))(*values)
    return ctypes.c_void_p(create(raw, len(values)))


def rand(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def conv(x, w, bias, stride, pads, dilation, transposed, output_padding, groups, out, cube=0):
    return call("aclnnConvolution", t(x), t(w), None if bias is None else t(bias, fmt=2), ints(*stride), ints(*pads),
                ints(*dilation), B(transposed), ints(*output_padding), I64(groups), out, I8(cube))


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("groups,stride,pad,dilation", [(1, 1, 0, 1), (2, 2, 1, 1), (1, 1, 2, 2)])
def test_convolution_matches_torch(nd, groups, stride, pad, dilation):
    x, w, b = rand((2, 4) + (9,) * nd), rand((6, 4 // groups) + (3,) * nd, 1), rand(6, 2)
    expected = CONV[nd](torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), stride, pad, dilation, groups)
    out = t(np.zeros(tuple(expected.shape), np.float32))
    status = conv(x, w, b, (stride,) * nd, (pad,) * nd, (dilation,) * nd, False, (0,) * nd, groups, out)
    assert status == OK, recent_error()
    np.testing.assert_allclose(got(out), expected.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_transposed_convolution_with_output_padding_matches_torch(nd):
    x, w = rand((2, 4) + (5,) * nd), rand((4, 3) + (3,) * nd, 1)
    expected = CONV_T[nd](torch.from_numpy(x), torch.from_numpy(w), None, 2, 1, 1, 1)
    out = t(np.zeros(tuple(expected.shape), np.float32))
    status = conv(x, w, None, (2,) * nd, (1,) * nd, (1,) * nd, True, (1,) * nd, 1, out)
    assert status == OK, recent_error()
    np.testing.assert_allclose(got(out), expected.numpy(), rtol=1e-5, atol=1e-5)


def test_convolution_2d_with_top_bottom_left_right_pads():
    x, w = rand((1, 2, 6, 7)), rand((3, 2, 3, 3), 1)
    expected = F.conv2d(F.pad(torch.from_numpy(x), (2, 0, 1, 0)), torch.from_numpy(w))
    out = t(np.zeros(tuple(expected.shape), np.float32))
    assert conv(x, w, None, (1, 1), (1, 0, 2, 0), (1, 1), False, (0, 0), 1, out) == OK, recent_error()
    np.testing.assert_allclose(got(out), expected.numpy(), rtol=1e-5, atol=1e-5)


def test_convolution_fp16_rounds_once_from_fp32_sums():
    x, w = rand((1, 8, 6, 6), 3, np.float16), rand((4, 8, 3, 3), 4, np.float16)
    expected = F.conv2d(torch.from_numpy(x.astype(np.float32)), torch.from_numpy(w.astype(np.float32)))
    out = t(np.zeros(tuple(expected.shape), np.float16))
    assert conv(x, w, None, (1, 1), (0, 0), (1, 1), False, (0, 0), 1, out) == OK, recent_error()
    assert np.array_equal(got(out), expected.numpy().astype(np.float16))


def test_convolution_allow_fp32_down_precision_reads_hf32():
    x, w = rand((1, 4, 5, 5), 5), rand((2, 4, 3, 3), 6)
    keep, hf32 = (t(np.zeros((1, 2, 3, 3), np.float32)) for _ in range(2))
    assert conv(x, w, None, (1, 1), (0, 0), (1, 1), False, (0, 0), 1, keep, 0) == OK
    assert conv(x, w, None, (1, 1), (0, 0), (1, 1), False, (0, 0), 1, hf32, 1) == OK
    difference = np.abs(got(keep) - got(hf32)).max()
    assert 0 < difference < 1e-2


def test_convolution_null_filter():
    x = rand((1, 2, 4, 4))
    status = call("aclnnConvolution", t(x), ctypes.c_void_p(None), ctypes.c_void_p(None), ints(1, 1), ints(0, 0),
                  ints(1, 1), B(False), ints(0, 0), I64(1), t(np.zeros((1, 2, 2, 2), np.float32)), I8(0))
    assert status[0] == NULLPTR
    assert "Parameter filter of aclnnConvolution has incorrect value nullptr" in recent_error()


def test_convolution_channels_must_match_groups():
    x, w = rand((1, 4, 5, 5)), rand((2, 3, 3, 3))
    status = conv(x, w, None, (1, 1), (0, 0), (1, 1), False, (0, 0), 1, t(np.zeros((1, 2, 3, 3), np.float32)))
    assert status[0] == INVALID and "shape[1] of x must be equal to shape[1] of filter multiplied by attribute " \
                                    "groups(1)" in recent_error()


def test_convolution_output_shape_is_inferred():
    x, w = rand((1, 2, 5, 5)), rand((2, 2, 3, 3))
    status = conv(x, w, None, (1, 1), (0, 0), (1, 1), False, (0, 0), 1, t(np.zeros((1, 2, 4, 3), np.float32)))
    assert status[0] == INVALID and "shape[2] of y must be equal to its inferred value(3)" in recent_error()


def test_convolution_2d_wants_nchw():
    x, w = rand((1, 2, 5, 5)), rand((2, 2, 3, 3))
    status = call("aclnnConvolution", t(x, fmt=2), t(w), ctypes.c_void_p(None), ints(1, 1), ints(0, 0), ints(1, 1),
                  B(False), ints(0, 0), I64(1), t(np.zeros((1, 2, 3, 3), np.float32), fmt=2), I8(0))
    assert status[0] == INVALID and "Parameter x of aclnnConvolution has incorrect format ND. It should be NCHW." \
        in recent_error()


def test_convolution_keep_dtype_fp32_is_refused_without_an_fp32_cube(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend910ProA")
    x, w = rand((1, 2, 5, 5)), rand((2, 2, 3, 3))
    status = conv(x, w, None, (1, 1), (0, 0), (1, 1), False, (0, 0), 1, t(np.zeros((1, 2, 3, 3), np.float32)))
    assert status[0] == INVALID and "does not support bf16 / fp32" in recent_error()


@pytest.mark.parametrize("transposed", [False, True])
def test_convolution_backward_matches_torch(transposed):
    x = torch.from_numpy(rand((2, 4, 7, 6))).requires_grad_()
    shape = (4, 3, 3, 3) if transposed else (6, 2, 3, 3)
    w = torch.from_numpy(rand(shape, 1)).requires_grad_()
    b = torch.zeros(6 if not transposed else 6, requires_grad=True)
    if transposed:
        y = F.conv_transpose2d(x, w, b, 2, 1, 1, 2, 1)
    else:
        y = F.conv2d(x, w, b, 2, 1, 1, 2)
    dy = torch.from_numpy(rand(tuple(y.shape), 2))
    y.backward(dy)
    gi, gw, gb = t(np.zeros((2, 4, 7, 6), np.float32)), t(np.zeros(shape, np.float32)), t(np.zeros(6, np.float32), fmt=2)
    status = call("aclnnConvolutionBackward", t(dy.numpy()), t(x.detach().numpy()), t(w.detach().numpy()), ints(6),
                  ints(2, 2), ints(1, 1), ints(1, 1), B(transposed), ints(*((1, 1) if transposed else (0, 0))), I32(2),
                  bools(True, True, True), I8(0), gi, gw, gb)
    assert status == OK, recent_error()
    np.testing.assert_allclose(got(gi), x.grad.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got(gw), w.grad.numpy(), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(got(gb), b.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_convolution_backward_output_mask_needs_three_values():
    x, w = rand((1, 2, 5, 5)), rand((2, 2, 3, 3))
    status = call("aclnnConvolutionBackward", t(np.zeros((1, 2, 3, 3), np.float32)), t(x), t(w), ints(2), ints(1, 1),
                  ints(0, 0), ints(1, 1), B(False), ints(0, 0), I32(1), bools(True, True), I8(0),
                  t(np.zeros_like(x)), t(np.zeros_like(w)), ctypes.c_void_p(None))
    assert status[0] == INVALID and "Parameter outputMask of aclnnConvolutionBackward has incorrect shape dim 2" \
        in recent_error()


def test_conv_depthwise2d_matches_torch():
    x, w, b = rand((2, 3, 8, 9)), rand((6, 1, 3, 3), 1), rand(6, 2)
    expected = F.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), 1, 1, 1, 3)
    out = t(np.zeros(tuple(expected.shape), np.float32))
    status = call("aclnnConvDepthwise2d", t(x), t(w), ints(3, 3), t(b, fmt=2), ints(1, 1), ints(1, 1), ints(1, 1), out,
                  I8(0))
    assert status == OK, recent_error()
    np.testing.assert_allclose(got(out), expected.numpy(), rtol=1e-5, atol=1e-5)


def test_conv_depthwise2d_kernel_size_must_name_the_window():
    x, w = rand((1, 3, 8, 8)), rand((3, 1, 3, 3))
    status = call("aclnnConvDepthwise2d", t(x), t(w), ints(2, 3), ctypes.c_void_p(None), ints(1, 1), ints(1, 1),
                  ints(1, 1), t(np.zeros((1, 3, 8, 8), np.float32)), I8(0))
    assert status[0] == INVALID and "shape[2] of filter must be equal to the shape[0] of kernelSize" in recent_error()


def test_conv_tbc_and_backward_match_torch():
    x = torch.from_numpy(rand((7, 2, 4))).requires_grad_()
    w = torch.from_numpy(rand((3, 4, 5), 1)).requires_grad_()
    b = torch.from_numpy(rand(5, 2)).requires_grad_()
    y = torch.conv_tbc(x, w, b, 1)
    out = t(np.zeros(tuple(y.shape), np.float32), fmt=2)
    status = call("aclnnConvTbc", t(x.detach().numpy(), fmt=2), t(w.detach().numpy(), fmt=2),
                  t(b.detach().numpy(), fmt=2), I64(1), out, I8(0))
    assert status == OK, recent_error()
    np.testing.assert_allclose(got(out), y.detach().numpy(), rtol=1e-5, atol=1e-5)
    dy = torch.from_numpy(rand(tuple(y.shape), 3))
    y.backward(dy)
    gi, gw, gb = (t(np.zeros(tuple(s), np.float32), fmt=2) for s in (x.shape, w.shape, b.shape))
    status = call("aclnnConvTbcBackward", t(dy.numpy(), fmt=2), t(x.detach().numpy(), fmt=2),
                  t(w.detach().numpy(), fmt=2), t(b.detach().numpy(), fmt=2), I64(1), I8(0), gi, gw, gb)
    assert status == OK, recent_error()
    for tensor, grad in ((gi, x.grad), (gw, w.grad), (gb, b.grad)):
        np.testing.assert_allclose(got(tensor), grad.numpy(), rtol=1e-5, atol=1e-5)
