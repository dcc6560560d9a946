"""The kernels' exp (csrc/kernels/exp.h, opemu_kernel_exp) against its NumPy twin (opemu/core/exp.py): the
same bits everywhere its steps change; and the twin against the true exp."""
import numpy as np
import pytest

import conftest
from opemu.core import exp as kernel_exp
from opemu.core import kernels
from test_kernels import FLOATS, assert_same_bits, c_kernels, isa, special  # noqa: F401 (fixtures)

pytestmark = [conftest.opemu_only, pytest.mark.usefixtures("isa")]
DTYPE_IDS = {np.float32: "float32", np.float64: "float64"}


def c_exp(x):
    e = np.empty_like(x)
    assert kernels.lib().opemu_kernel_exp(x.itemsize, kernels.address(x), kernels.address(e), x.size) == 0
    return e


def exp_arguments(dtype):
    """Everywhere the exp's steps change: its whole range and past it, both ends of the clamp, the
    subnormal and overflow edges, ties of t*log2(e) near k + 1/2, and the special values."""
    rng = np.random.default_rng(7)
    limit = 720.0 if dtype == np.float64 else 95.0
    edges = np.log(np.array([np.finfo(dtype).max, np.finfo(dtype).tiny, np.finfo(dtype).smallest_subnormal]))
    parts = [rng.uniform(-limit * 1.1, limit, 20000), rng.standard_normal(5000),
             (np.arange(-300, 300) + 0.5) * np.log(2), np.concatenate([np.nextafter(edges, -np.inf), edges,
                                                                       np.nextafter(edges, np.inf)]),
             special(200, dtype, rng), [-104.0, 89.0, -746.0, 710.0, 1e30, -1e30]]
    return np.concatenate([np.asarray(p, np.float64) for p in parts]).astype(dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=DTYPE_IDS.get)
def test_exp_is_bit_identical_to_its_reference(dtype):
    x = exp_arguments(dtype)
    assert_same_bits(c_exp(x), kernel_exp.exp(x))


@pytest.mark.parametrize("dtype", FLOATS, ids=DTYPE_IDS.get)
def test_exp_of_chunks_inside_the_normal_range_is_bit_identical(dtype):
    """Chunks whose every x keeps exp(x) normal take the kernel's shorter loop (one scaling): the same bits,
    up to both ends of that range."""
    lo, hi = (-87.0, 88.0) if dtype == np.float32 else (-708.0, 709.0)
    ends = np.array([lo, hi, np.nextafter(dtype(lo), 0), np.nextafter(dtype(hi), 0)], dtype)
    x = np.concatenate([np.resize(ends, 512), np.linspace(lo, hi, 4096, dtype=dtype),
                        np.linspace(lo, lo + 2, 1500, dtype=dtype), np.linspace(hi - 2, hi, 1500, dtype=dtype)])
    assert_same_bits(c_exp(x), kernel_exp.exp(x))


@pytest.mark.parametrize("dtype", FLOATS, ids=DTYPE_IDS.get)
def test_exp_is_within_two_ulp_of_exp(dtype):
    x = exp_arguments(dtype)
    x = x[np.isfinite(x)]
    with np.errstate(over="ignore"):
        exact = np.exp(x.astype(np.longdouble))
    ours = kernel_exp.exp(x).astype(np.longdouble)
    finfo = np.finfo(dtype)
    normal = (exact >= finfo.tiny) & (exact <= finfo.max)
    ulp = np.spacing(exact[normal].astype(dtype)).astype(np.longdouble)
    assert np.max(np.abs(ours[normal] - exact[normal]) / ulp) <= 2
    below = exact < finfo.tiny   # subnormal results: within one step of the subnormal grid
    assert np.max(np.abs(ours[below] - exact[below])) <= np.longdouble(finfo.smallest_subnormal)
    assert np.all(np.isinf(ours[exact > finfo.max]))


@pytest.mark.parametrize("dtype", FLOATS, ids=DTYPE_IDS.get)
def test_exp_of_special_values(dtype):
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0], dtype)
    e = kernel_exp.exp(x)
    assert e[:4].tolist() == [1.0, 1.0, np.inf, 0.0] and np.isnan(e[4])
    assert abs(e[5] - np.e) <= np.spacing(dtype(np.e))
