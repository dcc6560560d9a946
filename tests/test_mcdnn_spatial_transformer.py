"""mcDNN spatial transformer through the C ABI against PyTorch CPU: affine_grid(align_corners=True) and
grid_sample(bilinear, padding_mode='zeros', align_corners=True), their backward by autograd, the alpha/beta
blends, and every documented status (seed 3.1.1.20, 3.1.1.21; mcdnn.md §3.7)."""
import ctypes

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from mc import (BAD_PARAM, BFLOAT16, DOUBLE, FLOAT, HALF, INT32, NOT_SUPPORTED, NUMPY, Desc, DeviceTensor, Handle,
                c_void_p, call, ints, lib, nhwc_strides, recent_error, scale)

TYPE_IDS = {FLOAT: "float", DOUBLE: "double", HALF: "half"}
TOLERANCE = {FLOAT: 1e-5, DOUBLE: 1e-12, HALF: 4e-3}
OUT = (2, 3, 5, 7)        # the transformed tensor N, C, H, W
IN_HW = (6, 4)


@pytest.fixture(scope="module")
def handle():
    h = Handle()
    yield h.handle
    h.destroy()


def transformer(code, dims=OUT, sampler=0):
    st = c_void_p()
    assert lib().mcdnnCreateSpatialTransformerDescriptor(ctypes.byref(st)) == 0
    status = lib().mcdnnSetSpatialTransformerNdDescriptor(st, sampler, code, len(dims), ints(dims))
    return st, status


def rounded(values, code):
    return np.asarray(values).astype(NUMPY[code]).astype(np.float64)


def close(got, expected, code, magnitude=1.0):
    tol = TOLERANCE[code]
    np.testing.assert_allclose(np.asarray(got, np.float64), expected, rtol=tol * 4, atol=tol * 4 * magnitude)


def thetas(n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 2, 3)) * 0.4 + np.array([[1.0, 0, 0], [0, 1.0, 0]])


class Case:
    """theta, the grid, x and dy on the device for stDesc OUT, x of IN_HW in `layout`."""

    def __init__(self, handle, code, layout="nchw", seed=0, grid_scale=1.0):
        self.handle, self.code = handle, code
        self.st, status = transformer(code)
        assert status == 0, recent_error()
        n, c, h, w = OUT
        rng = np.random.default_rng(seed)
        self.theta = rounded(thetas(n, seed) * grid_scale, code)
        self.xdims = (n, c) + IN_HW
        self.xd = Desc(code, self.xdims, nhwc_strides(self.xdims) if layout == "nhwc" else None)
        self.yd = Desc(code, OUT)
        self.x = rounded(rng.standard_normal(self.xdims), code)
        self.dy = rounded(rng.standard_normal(OUT), code)
        self.TH = DeviceTensor(Desc(code, (n, 2, 3)), self.theta)
        self.G, self.DG = DeviceTensor(Desc(code, (n, h, w, 2))), DeviceTensor(Desc(code, (n, h, w, 2)))
        self.DTH = DeviceTensor(Desc(code, (n, 2, 3)))
        self.X, self.Y, self.DX = DeviceTensor(self.xd, self.x), DeviceTensor(self.yd), DeviceTensor(self.xd)
        self.DY = DeviceTensor(self.yd, self.dy)

    def s(self, value):
        return scale(value, self.code)

    def grid(self):
        return call("mcdnnSpatialTfGridGeneratorForward", self.handle, self.st, self.TH.address, self.G.address)

    def sample(self, alpha=1.0, beta=0.0, xd=None, yd=None, st=None, **null):
        return call("mcdnnSpatialTfSamplerForward", self.handle, st or self.st,
                    None if alpha is None else self.s(alpha), (xd or self.xd).handle,
                    None if "x" in null else self.X.address, None if "grid" in null else self.G.address,
                    self.s(beta), (yd or self.yd).handle, None if "y" in null else self.Y.address)

    def sample_backward(self, alpha=1.0, beta=0.0, alpha_grid=1.0, beta_grid=0.0, dyd=None, dxd=None, st=None,
                        **null):
        p = lambda name, t: None if name in null else t.address  # noqa: E731
        return call("mcdnnSpatialTfSamplerBackward", self.handle, st or self.st, self.s(alpha), self.xd.handle,
                    p("x", self.X), self.s(beta), (dxd or self.xd).handle, p("dx", self.DX),
                    None if "alphaDgrid" in null else self.s(alpha_grid), (dyd or self.yd).handle, p("dy", self.DY),
                    p("grid", self.G), self.s(beta_grid), p("dgrid", self.DG))


def torch_sampler(x, grid, dy):
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    gt = torch.tensor(grid, dtype=torch.float64, requires_grad=True)
    y = F.grid_sample(xt, gt, mode="bilinear", padding_mode="zeros", align_corners=True)
    y.backward(torch.tensor(dy))
    return y.detach().numpy(), xt.grad.numpy(), gt.grad.numpy()


@pytest.mark.parametrize("code", [FLOAT, DOUBLE, HALF], ids=TYPE_IDS.get)
def test_grid_generator_matches_affine_grid_align_corners(handle, code):
    case = Case(handle, code)
    assert case.grid() == 0, recent_error()
    expected = F.affine_grid(torch.tensor(case.theta), OUT, align_corners=True).numpy()
    close(case.G.read(), expected, code)


@pytest.mark.parametrize("code", [FLOAT, DOUBLE, HALF], ids=TYPE_IDS.get)
def test_grid_generator_backward_matches_affine_grid_autograd(handle, code):
    case = Case(handle, code)
    dgrid = rounded(np.random.default_rng(4).standard_normal(case.DG.desc.dims), code)
    case.DG = DeviceTensor(case.DG.desc, dgrid)
    case.DTH = DeviceTensor(case.DTH.desc, np.full((OUT[0], 2, 3), np.nan))   # overwritten, never read
    assert call("mcdnnSpatialTfGridGeneratorBackward", handle, case.st, case.DG.address, case.DTH.address) == 0
    theta = torch.tensor(case.theta, requires_grad=True)
    F.affine_grid(theta, OUT, align_corners=True).backward(torch.tensor(dgrid))
    close(case.DTH.read(), theta.grad.numpy(), code, magnitude=20)


@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
@pytest.mark.parametrize("code", [FLOAT, DOUBLE, HALF], ids=TYPE_IDS.get)
def test_sampler_matches_grid_sample_bilinear_zeros_align_corners(handle, code, layout):
    case = Case(handle, code, layout, grid_scale=1.3)          # some points fall outside [-1, 1]
    assert case.grid() == 0
    grid = case.G.read().astype(np.float64)
    assert (np.abs(grid) > 1).any()
    assert case.sample() == 0, recent_error()
    y, _, _ = torch_sampler(case.x, grid, case.dy)
    close(case.Y.read(), y, code)


@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
@pytest.mark.parametrize("code", [FLOAT, DOUBLE, HALF], ids=TYPE_IDS.get)
def test_sampler_backward_gives_dx_and_dgrid_like_grid_sample_autograd(handle, code, layout):
    case = Case(handle, code, layout, seed=2, grid_scale=1.2)
    assert case.grid() == 0
    assert case.sample_backward() == 0, recent_error()
    _, dx, dgrid = torch_sampler(case.x, case.G.read().astype(np.float64), case.dy)
    close(case.DX.read(), dx, code)
    close(case.DG.read(), dgrid, code, magnitude=10)


def test_sampler_backward_when_many_outputs_fold_onto_the_same_pixels(handle):
    """Half the grid on one point, the rest spread: one input pixel receives thousands of taps while the
    others receive a few; the scatter's per-pixel sums must still equal torch's."""
    case = Case(handle, FLOAT, seed=5)
    grid = np.random.default_rng(6).uniform(-1, 1, case.G.desc.dims)
    grid[:, :3] = 0.1
    case.G = DeviceTensor(case.G.desc, grid)
    assert case.sample_backward() == 0, recent_error()
    _, dx, dgrid = torch_sampler(case.x, rounded(grid, FLOAT), case.dy)
    close(case.DX.read(), dx, FLOAT)
    close(case.DG.read(), dgrid, FLOAT, magnitude=10)


def test_sampler_alpha_beta_blend_both_outputs(handle):
    case = Case(handle, FLOAT, seed=3)
    assert case.grid() == 0
    assert case.sample() == 0 and case.sample_backward() == 0
    y, dx, dgrid = case.Y.read(), case.DX.read(), case.DG.read()
    assert case.sample(alpha=2.0, beta=1.0) == 0
    close(case.Y.read(), 3 * y, FLOAT)
    assert case.sample_backward(alpha=1.0, beta=1.0, alpha_grid=0.5, beta_grid=0.0) == 0   # dx accumulates
    close(case.DX.read(), 2 * dx, FLOAT)
    close(case.DG.read(), 0.5 * dgrid, FLOAT, magnitude=10)


def test_beta_zero_never_reads_the_outputs(handle):
    case = Case(handle, FLOAT)
    assert case.grid() == 0
    assert case.sample() == 0 and case.sample_backward() == 0      # Y, DX, DG start as NaN
    assert np.isfinite(case.Y.read()).all() and np.isfinite(case.DX.read()).all()
    assert np.isfinite(case.DG.read()).all()


def test_identity_theta_samples_the_input_back_when_sizes_match(handle):
    st, _ = transformer(FLOAT, (1, 2, 4, 5))
    th = DeviceTensor(Desc(FLOAT, (1, 2, 3)), np.array([[[1.0, 0, 0], [0, 1.0, 0]]]))
    G = DeviceTensor(Desc(FLOAT, (1, 4, 5, 2)))
    assert call("mcdnnSpatialTfGridGeneratorForward", handle, st, th.address, G.address) == 0
    grid = G.read()
    np.testing.assert_allclose(grid[0, 0, :, 0], np.linspace(-1, 1, 5), atol=1e-7)  # corner aligned
    x = np.random.default_rng(0).standard_normal((1, 2, 4, 5)).astype(np.float32)
    d = Desc(FLOAT, x.shape)
    X, Y = DeviceTensor(d, x), DeviceTensor(d)
    assert call("mcdnnSpatialTfSamplerForward", handle, st, scale(1, FLOAT), d.handle, X.address, G.address,
                scale(0, FLOAT), d.handle, Y.address) == 0
    np.testing.assert_allclose(Y.read(), x, atol=1e-6)


def test_a_dimension_of_one_sits_at_minus_one(handle):
    st, _ = transformer(DOUBLE, (1, 1, 1, 3))
    th = DeviceTensor(Desc(DOUBLE, (1, 2, 3)), np.array([[[1.0, 0, 0], [0, 1.0, 0]]]))
    G = DeviceTensor(Desc(DOUBLE, (1, 1, 3, 2)))
    assert call("mcdnnSpatialTfGridGeneratorForward", handle, st, th.address, G.address) == 0
    np.testing.assert_array_equal(G.read()[0, 0], [[-1, -1], [0, -1], [1, -1]])


# ---------------------------------------------------------------- statuses

def test_descriptor_set_with_an_invalid_sampler_type_data_type_or_dims_is_bad_param(handle):
    assert transformer(FLOAT, sampler=1)[1] == BAD_PARAM
    assert "mcdnnSamplerType_t" in recent_error()
    assert transformer(99)[1] == BAD_PARAM
    assert transformer(FLOAT, (2, 3, 0, 4))[1] == BAD_PARAM
    st, _ = transformer(FLOAT)
    assert lib().mcdnnSetSpatialTransformerNdDescriptor(st, 0, FLOAT, 4, None) == BAD_PARAM
    assert lib().mcdnnSetSpatialTransformerNdDescriptor(None, 0, FLOAT, 4, ints(OUT)) == BAD_PARAM


def test_a_transformed_tensor_that_is_not_4d_is_not_supported(handle):
    case = Case(handle, FLOAT)
    st5, status = transformer(FLOAT, (2, 3, 2, 5, 7))
    assert status == 0
    assert call("mcdnnSpatialTfGridGeneratorForward", handle, st5, case.TH.address, case.G.address) == NOT_SUPPORTED
    assert "2-D transformations" in recent_error()
    assert call("mcdnnSpatialTfGridGeneratorBackward", handle, st5, case.G.address,
                case.TH.address) == NOT_SUPPORTED
    assert case.sample(st=st5) == NOT_SUPPORTED
    assert case.sample_backward(st=st5) == NOT_SUPPORTED


def test_null_handle_descriptor_or_pointers_are_bad_param(handle):
    case = Case(handle, FLOAT)
    assert call("mcdnnSpatialTfGridGeneratorForward", None, case.st, case.TH.address, case.G.address) == BAD_PARAM
    assert call("mcdnnSpatialTfGridGeneratorForward", handle, None, case.TH.address, case.G.address) == BAD_PARAM
    assert call("mcdnnSpatialTfGridGeneratorForward", handle, case.st, None, case.G.address) == BAD_PARAM
    assert call("mcdnnSpatialTfGridGeneratorBackward", handle, case.st, case.G.address, None) == BAD_PARAM
    for name in ("alpha", "x", "grid", "y"):
        assert case.sample(**{name: None}) == BAD_PARAM, name
    for name in ("x", "dx", "dy", "grid", "dgrid", "alphaDgrid"):
        assert case.sample_backward(**{name: None}) == BAD_PARAM, name
        assert name in recent_error()


def test_dy_or_y_dims_that_differ_from_the_descriptor_are_bad_param(handle):
    case = Case(handle, FLOAT)
    other = Desc(FLOAT, (2, 3, 5, 6))
    assert case.sample_backward(dyd=other) == BAD_PARAM
    assert "differ from the transformed tensor" in recent_error()
    assert case.sample(yd=other) == BAD_PARAM
    assert case.sample(xd=Desc(FLOAT, (2, 4) + IN_HW)) == BAD_PARAM        # n, c of x must be stDesc's
    assert case.sample_backward(dxd=Desc(FLOAT, (2, 3, 6, 5))) == BAD_PARAM


def test_data_types_that_differ_from_the_descriptor_are_bad_param(handle):
    case = Case(handle, FLOAT)
    assert case.sample(xd=Desc(HALF, (2, 3) + IN_HW)) == BAD_PARAM
    assert "data type" in recent_error()
    assert case.sample_backward(dyd=Desc(DOUBLE, OUT)) == BAD_PARAM


def test_a_data_type_that_is_not_floating_is_not_supported(handle):
    st, status = transformer(INT32)
    assert status == 0
    th, g = DeviceTensor(Desc(INT32, (2, 2, 3))), DeviceTensor(Desc(INT32, (2, 5, 7, 2)))
    assert call("mcdnnSpatialTfGridGeneratorForward", handle, st, th.address, g.address) == NOT_SUPPORTED


def test_a_destroyed_descriptor_is_bad_param(handle):
    case = Case(handle, FLOAT)
    assert lib().mcdnnDestroySpatialTransformerDescriptor(case.st) == 0
    assert case.grid() == BAD_PARAM
    assert lib().mcdnnDestroySpatialTransformerDescriptor(case.st) == BAD_PARAM
