"""What the RMS norms share: the rows of x in fp32, rstd as the kernels form it, and y with the kernels'
rounding points.

rstd = 1 / sqrt(Σ(x² · (1/n)) + eps) (the kernels scale each square by 1/n before the sum). y rounds where
the add_rms_norm/rms_norm kernels do: fp32 data gives x · rstd · γ in fp32; fp16/bf16 data rounds x · rstd to
the data type and then the product with γ once more. The sums are NumPy's pairwise fp32 sums (the hardware's
reduction order is its own: results may differ from it in the last bits)."""
import math

import numpy as np

from opemu.core import checks, dtypes, status
from opemu.ops.aclnn.common import promotion as P

FLOAT, FLOAT16, BF16 = P.FLOAT, P.FLOAT16, P.BF16


def flat_rows(view, cols):
    """Any view as (rows, cols) fp32, cols being its trailing elements."""
    x = np.asarray(view).reshape(-1, cols) if cols else np.asarray(view).reshape(-1, 0)
    return x.astype(np.float32) if x.dtype != np.float32 else x


def rstd_of(x, eps):
    """Per-row 1 / sqrt(Σ x²/n + eps) of fp32 rows."""
    n = x.shape[1]
    factor = np.float32(1.0 / n) if n else np.float32(0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        mean_square = np.add.reduce(x * x * factor, axis=1, dtype=np.float32)
        return (np.float32(1) / np.sqrt(mean_square + np.float32(eps))).astype(np.float32)


def round_to(values, code):
    """fp32 values rounded to `code` (FLOAT16/BF16) and back to fp32; fp32 unchanged."""
    if code in (FLOAT16, BF16):
        with np.errstate(over="ignore", invalid="ignore"):
            return values.astype(dtypes.numpy_dtype(code)).astype(np.float32)
    return values


def scaled(x, rstd, gamma, code):
    """y = (x · rstd) · γ with the rounding points of data type `code`; gamma fp32 rows-broadcastable."""
    with np.errstate(over="ignore", invalid="ignore"):
        normalized = round_to(x * rstd[:, None], code)
        return normalized * gamma if gamma is not None else normalized


def store_rows(view, values):
    """Write (rows, cols) fp32 values into an output view of any shape with as many elements."""
    P.store(view, values.reshape(view.shape))


def gamma_cols(a, x_name="x", gamma_name="gamma"):
    """The elements of each normalised row: gamma's element count, x's trailing axes (gamma's rank)."""
    x, gamma = getattr(a, x_name), getattr(a, gamma_name)
    return math.prod(x.shape[x.ndim - gamma.ndim:]) if gamma.ndim <= x.ndim else 0


def check_gamma_tail(a, x_name="x", gamma_name="gamma"):
    """The tilings' rule: gamma's shape is x's trailing axes."""
    x, gamma = getattr(a, x_name), getattr(a, gamma_name)
    if gamma.ndim > x.ndim or tuple(x.shape[x.ndim - gamma.ndim:]) != tuple(gamma.shape):
        raise status.param_invalid("The shape of %s %s must be the last dims of %s %s."
                                   % (gamma_name, checks.shape_text(gamma.shape), x_name, checks.shape_text(x.shape)))


def check_rstd(a, name, x_name="x", gamma_name="gamma"):
    """rstd holds one value per row: x's leading axes, with 1 for each normalised axis."""
    x, gamma, rstd = getattr(a, x_name), getattr(a, gamma_name), getattr(a, name)
    lead = x.ndim - gamma.ndim
    expected = tuple(x.shape[:lead]) + (1,) * gamma.ndim
    if tuple(rstd.shape) != expected and math.prod(rstd.shape) != math.prod(x.shape[:lead]):
        raise status.param_invalid("Expected tensor for %s to have same size as %s, but got %s."
                                   % (name, checks.shape_text(expected), checks.shape_text(rstd.shape)))


def normalize_fp32(x, n_axes, centre, eps, weight, bias, out_view, mean_view=None, rstd_view=None):
    """LayerNorm's / RmsNorm's row walk (norms.normalize_block: the C kernel for dense fp32 rows, the NumPy
    reference otherwise) over fp32 rows `x` (rows, cols), writing y through `out_view` (n_axes trailing axes
    normalised) and one mean / rstd per row through their views (any shape of `rows` elements)."""
    from opemu.ops.aclnn.common import rowwise
    from opemu.ops.aclnn.norm import norms
    out = rowwise.RowsOut(out_view, n_axes)
    stats = [None if s is None else rowwise.RowsOut(s, s.ndim) for s in (mean_view, rstd_view)]
    weight = None if weight is None else np.ascontiguousarray(weight, np.float32).reshape(-1)
    bias = None if bias is None else np.ascontiguousarray(bias, np.float32).reshape(-1)
    epsilon = np.float32(eps)

    def block(lo, hi):
        mean, rstd = norms.normalize_block(rowwise.in_fp32(x[lo:hi], 1), centre, epsilon, weight, bias,
                                           out.rows[lo:hi])
        for target, value in zip(stats, (mean, rstd)):
            if target is not None:
                P.store(target.rows[0, lo:hi], value)

    rowwise.each_block(x.shape[0], x.shape[1], block)
    for rows in [out] + [s for s in stats if s is not None]:
        rows.finish()
