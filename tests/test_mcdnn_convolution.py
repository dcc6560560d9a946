"""mcDNN convolution routines through the C ABI, against PyTorch CPU (conv2d/conv3d, their gradients, transposed
convolution = backward data): 2-D and 3-D, groups (depthwise), dilation, stride, padding, CONVOLUTION vs
CROSS_CORRELATION, NHWC, every data type, alpha/beta, every emulated algorithm, the algorithm queries, chunks
of images and non-finite values."""
import ctypes
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from mc import (BAD_PARAM, BFLOAT16, DOUBLE, FLOAT, HALF, NOT_SUPPORTED, Desc, DeviceTensor, c_int, c_void_p, handle,
                lib, recent_error, rounded, scale)
from mc_convolution import (ALLOC_FAILED, ALLOW_CONVERSION, CASES, CASE_IDS, CONVOLUTION, CROSS_CORRELATION,
                            FWD_DIRECT, FWD_FFT, FWD_GEMM, FWD_IMPLICIT, FWD_PRECOMP, NHWC, TOLERANCE, Conv, Filter,
                            PerfFwd, make, out_dims, torch_conv, workspace, ws_size)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("mode", [CROSS_CORRELATION, CONVOLUTION], ids=["xcorr", "conv"])
def test_forward_matches_torch(handle, case, mode):
    x, w, x_desc, f, conv, y_desc = make(FLOAT, case, mode)
    xd, wd, yd = DeviceTensor(x_desc, x), DeviceTensor(f, w), DeviceTensor(y_desc)
    rc = lib().mcdnnConvolutionForward(handle, scale(1.0, FLOAT), x_desc.handle, xd.address, f.handle, wd.address,
                                       conv.handle, FWD_IMPLICIT, None, ctypes.c_size_t(0), scale(0.0, FLOAT),
                                       y_desc.handle, yd.address)
    assert rc == 0, recent_error()
    expected = torch_conv(x.astype(np.float32), w.astype(np.float32), case[3], case[4], case[5], case[6], mode)
    np.testing.assert_allclose(yd.read(), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_backward_data_is_torch_input_gradient(handle, case):
    x, w, x_desc, f, conv, y_desc = make(FLOAT, case, CROSS_CORRELATION)
    dy = np.random.default_rng(1).standard_normal(y_desc.dims).astype(np.float32)
    wd, dyd, dxd = DeviceTensor(f, w), DeviceTensor(y_desc, dy), DeviceTensor(x_desc)
    rc = lib().mcdnnConvolutionBackwardData(handle, scale(1.0, FLOAT), f.handle, wd.address, y_desc.handle,
                                            dyd.address, conv.handle, 0, None, ctypes.c_size_t(0), scale(0.0, FLOAT),
                                            x_desc.handle, dxd.address)
    assert rc == 0, recent_error()
    tx = torch.from_numpy(x.astype(np.float32)).requires_grad_()
    out = (F.conv2d if len(case[0]) == 4 else F.conv3d)(tx, torch.from_numpy(w.astype(np.float32)), stride=case[4],
                                                        padding=case[3], dilation=case[5], groups=case[6])
    out.backward(torch.from_numpy(dy))
    np.testing.assert_allclose(dxd.read(), tx.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_backward_data_is_transposed_convolution(handle):
    case = CASES[0]
    x, w, x_desc, f, conv, y_desc = make(FLOAT, case, CROSS_CORRELATION)
    dy = np.random.default_rng(2).standard_normal(y_desc.dims).astype(np.float32)
    wd, dyd, dxd = DeviceTensor(f, w), DeviceTensor(y_desc, dy), DeviceTensor(x_desc)
    assert lib().mcdnnConvolutionBackwardData(handle, scale(1.0, FLOAT), f.handle, wd.address, y_desc.handle,
                                              dyd.address, conv.handle, 0, None, ctypes.c_size_t(0),
                                              scale(0.0, FLOAT), x_desc.handle, dxd.address) == 0
    expected = F.conv_transpose2d(torch.from_numpy(dy), torch.from_numpy(w.astype(np.float32)), padding=1).numpy()
    np.testing.assert_allclose(dxd.read(), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("mode", [CROSS_CORRELATION, CONVOLUTION], ids=["xcorr", "conv"])
def test_backward_filter_is_torch_weight_gradient(handle, case, mode):
    x, w, x_desc, f, conv, y_desc = make(FLOAT, case, mode)
    dy = np.random.default_rng(3).standard_normal(y_desc.dims).astype(np.float32)
    xd, dyd, dwd = DeviceTensor(x_desc, x), DeviceTensor(y_desc, dy), DeviceTensor(f)
    rc = lib().mcdnnConvolutionBackwardFilter(handle, scale(1.0, FLOAT), x_desc.handle, xd.address, y_desc.handle,
                                              dyd.address, conv.handle, 0, None, ctypes.c_size_t(0),
                                              scale(0.0, FLOAT), f.handle, dwd.address)
    assert rc == 0, recent_error()
    tw = torch.from_numpy(w.astype(np.float32)).requires_grad_()
    out = (F.conv2d if len(case[0]) == 4 else F.conv3d)(torch.from_numpy(x.astype(np.float32)), tw, stride=case[4],
                                                        padding=case[3], dilation=case[5], groups=case[6])
    out.backward(torch.from_numpy(dy))
    expected = tw.grad.numpy()
    if mode == CONVOLUTION:  # the gradient of the flipped filter, flipped back
        x_flip = np.flip(w, axis=tuple(range(2, w.ndim))).copy()
        tw = torch.from_numpy(x_flip.astype(np.float32)).requires_grad_()
        out = (F.conv2d if len(case[0]) == 4 else F.conv3d)(torch.from_numpy(x.astype(np.float32)), tw,
                                                            stride=case[4], padding=case[3], dilation=case[5],
                                                            groups=case[6])
        out.backward(torch.from_numpy(dy))
        expected = np.flip(tw.grad.numpy(), axis=tuple(range(2, w.ndim)))
    np.testing.assert_allclose(dwd.read(), expected, rtol=1e-4, atol=1e-3)


def test_depthwise_filter_gradient_needs_no_workspace(handle):
    """Its sums read x and dy where they lie, so even the algorithms that keep scratch in the workspace ask for
    none, and give the same gradient without one."""
    x, w, x_desc, f, conv, y_desc = make(FLOAT, CASES[2], CROSS_CORRELATION)
    dy = np.random.default_rng(3).standard_normal(y_desc.dims).astype(np.float32)
    xd, dyd = DeviceTensor(x_desc, x), DeviceTensor(y_desc, dy)
    results = []
    for algo in (0, 1, 3):
        rc, size = ws_size("mcdnnGetConvolutionBackwardFilterWorkspaceSize", handle,
                           (x_desc.handle, y_desc.handle, conv.handle, f.handle), algo)
        assert (rc, size) == (0, 0)
        dwd = DeviceTensor(f)
        assert lib().mcdnnConvolutionBackwardFilter(handle, scale(1.0, FLOAT), x_desc.handle, xd.address,
                                                    y_desc.handle, dyd.address, conv.handle, algo, None,
                                                    ctypes.c_size_t(0), scale(0.0, FLOAT), f.handle,
                                                    dwd.address) == 0, recent_error()
        results.append(dwd.read())
    assert all(np.array_equal(results[0], r) for r in results[1:])


@pytest.mark.parametrize("code", [DOUBLE, HALF, BFLOAT16], ids=["double", "half", "bf16"])
def test_forward_data_types_round_once(handle, code):
    x, w, x_desc, f, conv, y_desc = make(code, CASES[1], CROSS_CORRELATION)
    xd, wd, yd = DeviceTensor(x_desc, x), DeviceTensor(f, w), DeviceTensor(y_desc)
    assert lib().mcdnnConvolutionForward(handle, scale(1.0, code), x_desc.handle, xd.address, f.handle, wd.address,
                                         conv.handle, FWD_IMPLICIT, None, ctypes.c_size_t(0), scale(0.0, code),
                                         y_desc.handle, yd.address) == 0, recent_error()
    exact = torch_conv(x, w, *CASES[1][3:6], CASES[1][6], CROSS_CORRELATION)   # float64 of the rounded inputs
    np.testing.assert_allclose(yd.read().astype(np.float64), rounded(exact, code),
                               rtol=TOLERANCE[code], atol=TOLERANCE[code] * np.abs(exact).max())


def test_nhwc_tensors_and_filter(handle):
    x, w, x_desc, f, conv, y_desc = make(FLOAT, CASES[3], CROSS_CORRELATION, fmt=NHWC)
    xd, yd = DeviceTensor(x_desc, x), DeviceTensor(y_desc)
    wd = DeviceTensor(Desc(FLOAT, f.dims, f.strides), w)
    assert lib().mcdnnConvolutionForward(handle, scale(1.0, FLOAT), x_desc.handle, xd.address, f.handle, wd.address,
                                         conv.handle, FWD_IMPLICIT, None, ctypes.c_size_t(0), scale(0.0, FLOAT),
                                         y_desc.handle, yd.address) == 0, recent_error()
    expected = torch_conv(x.astype(np.float32), w.astype(np.float32), *CASES[3][3:6], CASES[3][6], CROSS_CORRELATION)
    np.testing.assert_allclose(yd.read(), expected, rtol=1e-4, atol=1e-4)


def test_alpha_beta_blend(handle):
    x, w, x_desc, f, conv, y_desc = make(FLOAT, CASES[0], CROSS_CORRELATION)
    prior = np.random.default_rng(4).standard_normal(y_desc.dims).astype(np.float32)
    xd, wd, yd = DeviceTensor(x_desc, x), DeviceTensor(f, w), DeviceTensor(y_desc, prior)
    assert lib().mcdnnConvolutionForward(handle, scale(0.5, FLOAT), x_desc.handle, xd.address, f.handle, wd.address,
                                         conv.handle, FWD_IMPLICIT, None, ctypes.c_size_t(0), scale(2.0, FLOAT),
                                         y_desc.handle, yd.address) == 0
    expected = 0.5 * torch_conv(x.astype(np.float32), w.astype(np.float32), (1, 1), (1, 1), (1, 1), 1,
                                CROSS_CORRELATION) + 2.0 * prior
    np.testing.assert_allclose(yd.read(), expected, rtol=1e-4, atol=1e-4)


def test_allow_conversion_rounds_float_inputs_to_half(handle):
    case = CASES[0]
    x, w, x_desc, f, _, y_desc = make(FLOAT, case, CROSS_CORRELATION)
    x = x + 1e-4  # values fp16 cannot hold
    conv = Conv(case[3], case[4], case[5], CROSS_CORRELATION, FLOAT, 1, ALLOW_CONVERSION)
    xd, wd, yd = DeviceTensor(x_desc, x), DeviceTensor(f, w), DeviceTensor(y_desc)
    assert lib().mcdnnConvolutionForward(handle, scale(1.0, FLOAT), x_desc.handle, xd.address, f.handle, wd.address,
                                         conv.handle, FWD_IMPLICIT, None, ctypes.c_size_t(0), scale(0.0, FLOAT),
                                         y_desc.handle, yd.address) == 0
    expected = torch_conv(rounded(x, HALF), rounded(w, HALF), case[3], case[4], case[5], 1, CROSS_CORRELATION)
    np.testing.assert_allclose(yd.read(), expected, rtol=1e-5, atol=1e-4)


def test_every_forward_algorithm_gives_the_same_numbers(handle):
    x, w, x_desc, f, conv, y_desc = make(FLOAT, CASES[3], CROSS_CORRELATION)
    xd, wd = DeviceTensor(x_desc, x), DeviceTensor(f, w)
    results = []
    for algo in (FWD_IMPLICIT, FWD_PRECOMP, FWD_GEMM):
        rc, size = ws_size("mcdnnGetConvolutionForwardWorkspaceSize", handle,
                           (x_desc.handle, f.handle, conv.handle, y_desc.handle), algo)
        assert rc == 0
        ws, yd = workspace(size), DeviceTensor(y_desc)
        assert lib().mcdnnConvolutionForward(handle, scale(1.0, FLOAT), x_desc.handle, xd.address, f.handle,
                                             wd.address, conv.handle, algo, ws.address if ws else None,
                                             ctypes.c_size_t(size), scale(0.0, FLOAT), y_desc.handle,
                                             yd.address) == 0, recent_error()
        results.append(yd.read())
    assert all(np.array_equal(results[0], r) for r in results[1:])


def test_gemm_algorithm_needs_its_workspace(handle):
    x, w, x_desc, f, conv, y_desc = make(FLOAT, CASES[0], CROSS_CORRELATION)
    rc, size = ws_size("mcdnnGetConvolutionForwardWorkspaceSize", handle,
                       (x_desc.handle, f.handle, conv.handle, y_desc.handle), FWD_GEMM)
    assert rc == 0 and size >= 4 * 9 * 4 * 9 * 8   # at least one image's im2col buffer
    xd, wd, yd, ws = DeviceTensor(x_desc, x), DeviceTensor(f, w), DeviceTensor(y_desc), workspace(size // 2)
    assert lib().mcdnnConvolutionForward(handle, scale(1.0, FLOAT), x_desc.handle, xd.address, f.handle, wd.address,
                                         conv.handle, FWD_GEMM, ws.address, ctypes.c_size_t(size // 2),
                                         scale(0.0, FLOAT), y_desc.handle, yd.address) == BAD_PARAM
    assert "workspace" in recent_error()


@pytest.mark.parametrize("algo", [FWD_DIRECT, FWD_FFT, 6, 7])
def test_unemulated_algorithms_are_not_supported(handle, algo):
    x, w, x_desc, f, conv, y_desc = make(FLOAT, CASES[0], CROSS_CORRELATION)
    rc, _ = ws_size("mcdnnGetConvolutionForwardWorkspaceSize", handle,
                    (x_desc.handle, f.handle, conv.handle, y_desc.handle), algo)
    assert rc == NOT_SUPPORTED


def test_find_times_and_sorts_the_algorithms(handle):
    x, w, x_desc, f, conv, y_desc = make(FLOAT, CASES[0], CROSS_CORRELATION)
    perf, count = (PerfFwd * 8)(), c_int()
    assert lib().mcdnnFindConvolutionForwardAlgorithm(handle, x_desc.handle, f.handle, conv.handle, y_desc.handle,
                                                      8, ctypes.byref(count), perf) == 0, recent_error()
    assert count.value == 8
    ok = [p for p in perf if p.status == 0]
    assert {p.algo for p in ok} == {FWD_IMPLICIT, FWD_PRECOMP, FWD_GEMM}
    assert [p.time for p in ok] == sorted(p.time for p in ok) and all(p.time >= 0 for p in ok)
    assert all(p.status == NOT_SUPPORTED and p.time == -1 for p in perf[3:])


def test_find_ex_runs_on_the_apps_buffers(handle):
    x, w, x_desc, f, conv, y_desc = make(FLOAT, CASES[0], CROSS_CORRELATION)
    xd, wd, yd = DeviceTensor(x_desc, x), DeviceTensor(f, w), DeviceTensor(y_desc)
    perf, count = (PerfFwd * 8)(), c_int()
    assert lib().mcdnnFindConvolutionForwardAlgorithmEx(handle, x_desc.handle, xd.address, f.handle, wd.address,
                                                        conv.handle, y_desc.handle, yd.address, 8,
                                                        ctypes.byref(count), perf, None, ctypes.c_size_t(0)) == 0
    statuses = {p.algo: p.status for p in perf[:count.value]}
    assert statuses[FWD_IMPLICIT] == 0 and statuses[FWD_GEMM] == ALLOC_FAILED   # no workspace given
    expected = torch_conv(x.astype(np.float32), w.astype(np.float32), (1, 1), (1, 1), (1, 1), 1, CROSS_CORRELATION)
    np.testing.assert_allclose(yd.read(), expected, rtol=1e-4, atol=1e-4)


def test_heuristics_list_every_algorithm_untimed(handle):
    x, w, x_desc, f, conv, y_desc = make(FLOAT, CASES[0], CROSS_CORRELATION)
    perf, count = (PerfFwd * 3)(), c_int()
    assert lib().mcdnnGetConvolutionForwardAlgorithm_v7(handle, x_desc.handle, f.handle, conv.handle, y_desc.handle,
                                                        3, ctypes.byref(count), perf) == 0
    assert count.value == 3 and perf[0].algo == FWD_IMPLICIT and all(p.time == -1 for p in perf)
    n = c_int()
    assert lib().mcdnnGetConvolutionForwardAlgorithmMaxCount(handle, ctypes.byref(n)) == 0 and n.value == 8


def test_backward_bias_sums_batch_and_space(handle):
    dy = np.random.default_rng(5).standard_normal((3, 4, 5, 6)).astype(np.float32)
    dy_desc, db_desc = Desc(FLOAT, dy.shape), Desc(FLOAT, (1, 4, 1, 1))
    dyd, dbd = DeviceTensor(dy_desc, dy), DeviceTensor(db_desc, np.ones((1, 4, 1, 1)))
    assert lib().mcdnnConvolutionBackwardBias(handle, scale(1.0, FLOAT), dy_desc.handle, dyd.address,
                                              scale(1.0, FLOAT), db_desc.handle, dbd.address) == 0
    np.testing.assert_allclose(dbd.read().ravel(), dy.sum(axis=(0, 2, 3)) + 1, rtol=1e-5)


def test_bias_activation_forward(handle):
    x, w, x_desc, f, conv, y_desc = make(FLOAT, CASES[0], CROSS_CORRELATION)
    z = np.random.default_rng(6).standard_normal(y_desc.dims).astype(np.float32)
    bias = np.arange(6, dtype=np.float32).reshape(1, 6, 1, 1) - 3
    b_desc = Desc(FLOAT, bias.shape)
    act = c_void_p()
    assert lib().mcdnnCreateActivationDescriptor(ctypes.byref(act)) == 0
    lib().mcdnnSetActivationDescriptor.argtypes = [c_void_p, c_int, c_int, ctypes.c_double]
    assert lib().mcdnnSetActivationDescriptor(act, 1, 0, 0.0) == 0
    xd, wd, zd, bd, yd = (DeviceTensor(x_desc, x), DeviceTensor(f, w), DeviceTensor(y_desc, z),
                          DeviceTensor(b_desc, bias), DeviceTensor(y_desc))
    rc = lib().mcdnnConvolutionBiasActivationForward(
        handle, scale(1.0, FLOAT), x_desc.handle, xd.address, f.handle, wd.address, conv.handle, FWD_IMPLICIT, None,
        ctypes.c_size_t(0), scale(0.5, FLOAT), y_desc.handle, zd.address, b_desc.handle, bd.address, act,
        y_desc.handle, yd.address)
    assert rc == 0, recent_error()
    conv_out = torch_conv(x.astype(np.float32), w.astype(np.float32), (1, 1), (1, 1), (1, 1), 1, CROSS_CORRELATION)
    np.testing.assert_allclose(yd.read(), np.maximum(conv_out + 0.5 * z + bias, 0), rtol=1e-4, atol=1e-4)
    lib().mcdnnDestroyActivationDescriptor(act)


@pytest.mark.parametrize("odd_one", ["z", "bias"])
@pytest.mark.parametrize("code", [DOUBLE, 3], ids=["double", "int8"])
def test_bias_activation_z_and_bias_of_another_type_are_not_supported(handle, odd_one, code):
    """cuDNN's configurations give z and bias y's type, integer z or bias beside floating data included."""
    x, w, x_desc, f, conv, y_desc = make(FLOAT, CASES[0], CROSS_CORRELATION)
    z_desc = Desc(code, y_desc.dims) if odd_one == "z" else y_desc
    b_desc = Desc(code if odd_one == "bias" else FLOAT, (1, 6, 1, 1))
    act = c_void_p()
    assert lib().mcdnnCreateActivationDescriptor(ctypes.byref(act)) == 0
    lib().mcdnnSetActivationDescriptor.argtypes = [c_void_p, c_int, c_int, ctypes.c_double]
    assert lib().mcdnnSetActivationDescriptor(act, 1, 0, 0.0) == 0
    xd, wd, zd, bd, yd = (DeviceTensor(x_desc, x), DeviceTensor(f, w), DeviceTensor(y_desc), DeviceTensor(y_desc),
                          DeviceTensor(y_desc))
    rc = lib().mcdnnConvolutionBiasActivationForward(
        handle, scale(1.0, FLOAT), x_desc.handle, xd.address, f.handle, wd.address, conv.handle, FWD_IMPLICIT, None,
        ctypes.c_size_t(0), scale(0.5, FLOAT), z_desc.handle, zd.address, b_desc.handle, bd.address, act,
        y_desc.handle, yd.address)
    lib().mcdnnDestroyActivationDescriptor(act)
    assert rc == NOT_SUPPORTED, recent_error()
    assert "%sDesc" % odd_one in recent_error()


def test_im2col_rows_are_window_offsets(handle):
    x, w, x_desc, f, conv, y_desc = make(FLOAT, CASES[0], CROSS_CORRELATION)
    xd = DeviceTensor(x_desc, x)
    cols = DeviceTensor(Desc(FLOAT, (2, 4 * 9, 9 * 8)))
    assert lib().mcdnnIm2Col(handle, x_desc.handle, xd.address, f.handle, conv.handle, cols.address) == 0, \
        recent_error()
    expected = torch.nn.functional.unfold(torch.from_numpy(x.astype(np.float32)), 3, padding=1).numpy()
    np.testing.assert_allclose(cols.read(), expected)


@pytest.mark.parametrize("case", [((5, 4, 9, 8), 6, (3, 2), (0, 1), (2, 1), (1, 2), 2),
                                  ((5, 4, 9, 8), 6, (3, 2), (1, 1), (1, 1), (2, 1), 2)], ids=["columns", "grid"])
def test_chunks_of_images_give_the_same_numbers(handle, monkeypatch, case):
    """The batch is walked in chunks of images sized by a scratch budget; a budget of two images (the last
    chunk holding one) gives the numbers of a single chunk."""
    from opemu.ops.mcdnn import conv_kernel
    x, w, x_desc, f, conv, y_desc = make(FLOAT, case, CROSS_CORRELATION)
    dy = np.random.default_rng(9).standard_normal(y_desc.dims).astype(np.float32)
    xd, wd, dyd = DeviceTensor(x_desc, x), DeviceTensor(f, w), DeviceTensor(y_desc, dy)

    def directions():
        yd, dxd, dwd = DeviceTensor(y_desc), DeviceTensor(x_desc), DeviceTensor(f)
        assert lib().mcdnnConvolutionForward(handle, scale(1.0, FLOAT), x_desc.handle, xd.address, f.handle,
                                             wd.address, conv.handle, FWD_IMPLICIT, None, ctypes.c_size_t(0),
                                             scale(0.0, FLOAT), y_desc.handle, yd.address) == 0
        assert lib().mcdnnConvolutionBackwardData(handle, scale(1.0, FLOAT), f.handle, wd.address, y_desc.handle,
                                                  dyd.address, conv.handle, 0, None, ctypes.c_size_t(0),
                                                  scale(0.0, FLOAT), x_desc.handle, dxd.address) == 0
        assert lib().mcdnnConvolutionBackwardFilter(handle, scale(1.0, FLOAT), x_desc.handle, xd.address,
                                                    y_desc.handle, dyd.address, conv.handle, 0, None,
                                                    ctypes.c_size_t(0), scale(0.0, FLOAT), f.handle,
                                                    dwd.address) == 0
        return yd.read(), dxd.read(), dwd.read()
    whole = directions()
    g = conv_kernel.Geometry(x_desc.dims, f.dims, case[3], case[4], case[5], case[6], False)
    budget = 1
    monkeypatch.setattr(conv_kernel, "CHUNK_BYTES", budget)
    while conv_kernel.Scratch(g, np.dtype(np.float32)).nb < 2:   # the smallest budget of several images
        budget *= 2
        monkeypatch.setattr(conv_kernel, "CHUNK_BYTES", budget)
    assert conv_kernel.Scratch(g, np.dtype(np.float32)).nb < 5
    chunked = directions()
    for a, b in zip(whole[:2], chunked[:2]):
        assert np.array_equal(a, b)
    np.testing.assert_allclose(whole[2], chunked[2], rtol=1e-5, atol=1e-5)   # sums over chunks in another order


def reference_backward(x, w, dy, pad, dilation):
    """float64 dx and dw of a 2-D unit-stride cross-correlation, one window offset at a time over the
    outputs that exist (no padded grid, no GEMM)."""
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple((p, p) for p in pad))
    dxp, dw = np.zeros_like(xp), np.zeros_like(w)
    oh, ow = dy.shape[2:]
    for r in range(w.shape[2]):
        for s in range(w.shape[3]):
            rows, cols = slice(r * dilation[0], r * dilation[0] + oh), slice(s * dilation[1], s * dilation[1] + ow)
            with np.errstate(invalid="ignore"):
                dw[:, :, r, s] = np.einsum("nkhw,nchw->kc", dy, xp[:, :, rows, cols])
                dxp[:, :, rows, cols] += np.einsum("nkhw,kc->nchw", dy, w[:, :, r, s])
    return dxp[:, :, pad[0]:pad[0] + x.shape[2], pad[1]:pad[1] + x.shape[3]], dw


def same_values(actual, expected):
    assert np.array_equal(np.isnan(actual), np.isnan(expected))
    assert np.array_equal(np.isinf(actual), np.isinf(expected))
    finite = np.isfinite(expected)
    np.testing.assert_allclose(actual[finite], expected[finite], rtol=1e-4, atol=1e-4)


def test_an_infinite_filter_tap_reaches_only_the_inputs_it_multiplies(handle):
    """Backward data sums w * dy over the windows that exist: an inf tap gives inf (or NaN) where it
    meets dy, and nothing elsewhere (the grid layout's gaps would multiply it by zero)."""
    case = ((2, 2, 6, 7), 3, (3, 2), (1, 0), (1, 1), (2, 3), 1)
    x, w, x_desc, f, conv, y_desc = make(FLOAT, case, CROSS_CORRELATION)
    w[1, 0, 2, 1] = np.inf
    dy = np.random.default_rng(4).standard_normal(y_desc.dims).astype(np.float32)
    wd, dyd, dxd = DeviceTensor(f, w), DeviceTensor(y_desc, dy), DeviceTensor(x_desc)
    assert lib().mcdnnConvolutionBackwardData(handle, scale(1.0, FLOAT), f.handle, wd.address, y_desc.handle,
                                              dyd.address, conv.handle, 0, None, ctypes.c_size_t(0),
                                              scale(0.0, FLOAT), x_desc.handle, dxd.address) == 0, recent_error()
    expected = reference_backward(x, w, dy.astype(np.float64), case[3], case[5])[0]
    assert np.isinf(expected).any() and np.isfinite(expected).any()
    same_values(dxd.read(), expected)


def test_an_infinite_input_no_window_reads_leaves_the_filter_gradient_finite(handle):
    """With dilation 3 over a width of 5, column 2 lies between the taps of every window: an inf there
    takes no part in the filter gradient."""
    case = ((2, 2, 4, 5), 3, (1, 2), (0, 0), (1, 1), (1, 3), 1)
    x, w, x_desc, f, conv, y_desc = make(FLOAT, case, CROSS_CORRELATION)
    x[1, 1, 2, 2] = np.inf
    dy = np.random.default_rng(5).standard_normal(y_desc.dims).astype(np.float32)
    xd, dyd, dwd = DeviceTensor(x_desc, x), DeviceTensor(y_desc, dy), DeviceTensor(f)
    assert lib().mcdnnConvolutionBackwardFilter(handle, scale(1.0, FLOAT), x_desc.handle, xd.address,
                                                y_desc.handle, dyd.address, conv.handle, 0, None,
                                                ctypes.c_size_t(0), scale(0.0, FLOAT), f.handle,
                                                dwd.address) == 0, recent_error()
    expected = reference_backward(x, w, dy.astype(np.float64), case[3], case[5])[1]
    assert np.isfinite(expected).all()
    same_values(dwd.read(), expected)


def test_an_infinite_input_inside_the_windows_gives_a_non_finite_filter_gradient_without_a_warning(handle):
    """An inf that windows read makes the filter gradient inf, or NaN where it meets a zero dy (computed on
    columns: the grid would add 0 * inf from its gaps), as on the device: results, with no RuntimeWarning on
    the app's stderr."""
    case = ((2, 2, 6, 7), 3, (3, 2), (1, 0), (1, 1), (1, 1), 1)
    x, w, x_desc, f, conv, y_desc = make(FLOAT, case, CROSS_CORRELATION)
    x[1, 1, 3, 3] = np.inf
    dy = np.random.default_rng(6).standard_normal(y_desc.dims).astype(np.float32)
    dy[1, 0] = 0   # inf * 0: NaN in output channel 0's taps
    xd, dyd, dwd = DeviceTensor(x_desc, x), DeviceTensor(y_desc, dy), DeviceTensor(f)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert lib().mcdnnConvolutionBackwardFilter(handle, scale(1.0, FLOAT), x_desc.handle, xd.address,
                                                    y_desc.handle, dyd.address, conv.handle, 0, None,
                                                    ctypes.c_size_t(0), scale(0.0, FLOAT), f.handle,
                                                    dwd.address) == 0, recent_error()
    expected = reference_backward(x, w, dy.astype(np.float64), case[3], case[5])[1]
    assert not np.isfinite(expected).all() and np.isfinite(expected).any()
    same_values(dwd.read(), expected)


@pytest.mark.parametrize("pad,stride", [((2 ** 30, 2 ** 30), (2 ** 30, 2 ** 30)), ((2 ** 31 - 1,) * 2, (2 ** 31 - 1,) * 2)])
def test_padding_whose_scratch_exceeds_the_host_is_not_supported(handle, pad, stride):
    """opemu computes on the padded input; padding that makes it larger than the host holds is
    NOT_SUPPORTED with a message, in the routine and the workspace query alike (found by the hardening
    helper: a MemoryError, a ValueError and an OverflowError, all internal errors)."""
    x_desc, f = Desc(FLOAT, (1, 1, 5, 5)), Filter(FLOAT, (1, 1, 3, 3))
    conv = Conv(pad, stride, (1, 1))
    y_desc = Desc(FLOAT, out_dims(x_desc, f, conv))
    xd, wd, yd = DeviceTensor(x_desc, np.ones((1, 1, 5, 5))), DeviceTensor(f, np.ones((1, 1, 3, 3))), DeviceTensor(y_desc)
    for algo in (FWD_IMPLICIT, FWD_GEMM):
        rc, _ = ws_size("mcdnnGetConvolutionForwardWorkspaceSize", handle,
                        (x_desc.handle, f.handle, conv.handle, y_desc.handle), algo)
        assert rc == NOT_SUPPORTED and "padded input" in recent_error()
    assert lib().mcdnnConvolutionForward(handle, scale(1.0, FLOAT), x_desc.handle, xd.address, f.handle, wd.address,
                                         conv.handle, FWD_IMPLICIT, None, ctypes.c_size_t(0), scale(0.0, FLOAT),
                                         y_desc.handle, yd.address) == NOT_SUPPORTED
    assert "more than half of this host's memory" in recent_error()
