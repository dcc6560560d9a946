"""The walk over images (NHWC, per activation, the fused ops): each image's partial statistics around its own
mean combined in float64 in image order; the fused ops' ReLU keep mask, one bit per element."""
import numpy as np

from opemu.core import mcdnn
from opemu.ops.mcdnn.bn_common import accumulators, in_compute_type, over_images

# ---------------------------------------------------------------- statistics

def moments(layout, x, ct, workspace=None):
    """(mean, biased variance) in float64, shaped `pshape`."""
    if layout.per_channel:
        parts = accumulators(workspace, layout.forward_workspace(), (3, layout.N, layout.C))
        sums, centres, m2s = parts
        s = layout.spatial

        def run(lo, hi):
            converted = np.empty(layout.image, ct) if x.dtype != ct else None
            deviation = np.empty((layout.C, s), ct)
            for n in range(lo, hi):
                rows = layout.rows(in_compute_type(converted, x[n]) if converted is not None else x[n])
                total = np.add.reduce(rows, axis=1)
                centre = (total / ct.type(s)).astype(ct)
                np.subtract(rows, centre[:, None], out=deviation)
                sums[n], centres[n] = total, centre
                m2s[n] = np.einsum("ij,ij->i", deviation, deviation)
        over_images(layout, run)
        mean = sums.sum(0) / layout.count
        offset = centres - mean
        m2 = (m2s + 2 * offset * (sums - s * centres) + s * offset * offset).sum(0)
        shape = layout.pshape
        return mean.reshape(shape), (m2 / layout.count).reshape(shape)
    total, m2 = accumulators(workspace, layout.forward_workspace(), (2,) + layout.image)
    total[...] = 0
    for n in range(layout.N):
        total += x[n].astype(ct) if x.dtype != ct else x[n]
    mean = total / layout.N
    m2[...] = 0
    for n in range(layout.N):
        d = (x[n].astype(ct) if x.dtype != ct else x[n]) - mean.astype(ct)
        m2 += d * d
    return mean, m2 / layout.N



# ---------------------------------------------------------------- the activation mask

def _relu(r, nan_propagates, mask_row):
    """ReLU in place; its keep bits (r > 0) go to mask_row unless it is None."""
    if mask_row is not None:
        mask_row[...] = np.packbits((r > 0).reshape(-1))
    if nan_propagates:
        np.maximum(r, 0, out=r)
    else:
        np.fmax(r, 0, out=r)


def _keep(mask_row, layout):
    return np.unpackbits(mask_row, count=layout.elements).view(bool).reshape(layout.image)


def mask_rows(reserve, layout):
    return reserve[:layout.N * layout.row_bytes()].reshape(layout.N, layout.row_bytes())


# ---------------------------------------------------------------- forward and backward passes

def normalize(layout, x, y, a, b, ct, alpha, beta, z=None, activation=None, reserve=None):
    """y = alpha·act(a·x + b [+ z]) + beta·y, image by image; a, b float64 shaped `pshape`. With an
    activation the keep mask goes to `reserve`."""
    fused = activation is not None
    if not fused:  # alpha folds into the affine map
        a, b = a * alpha, b * alpha
    a, b = a.astype(ct), b.astype(ct)
    rows = mask_rows(reserve, layout) if reserve is not None else None
    direct = not fused and z is None and beta == 0 and y.dtype == ct

    def run(lo, hi):
        converted = np.empty(layout.image, ct) if x.dtype != ct else None
        result = None if direct else np.empty(layout.image, ct)
        for n in range(lo, hi):
            xn = in_compute_type(converted, x[n]) if converted is not None else x[n]
            if direct:
                np.multiply(xn, a, out=y[n])
                np.add(y[n], b, out=y[n])
                continue
            np.multiply(xn, a, out=result)
            result += b
            if z is not None:
                result += z[n].astype(ct) if z.dtype != ct else z[n]
            if fused:
                _relu(result, activation.nan, rows[n] if rows is not None else None)
            mcdnn.write(y[n], result, alpha if fused else 1.0, beta)
    over_images(layout, run)


def gradient_sums(layout, x, dy, mean, ct, workspace=None, reserve=None, dz=None, alpha=1.0, beta=0.0):
    """(Σdy', Σdy'·(x-mean)) in float64, shaped `pshape`; dy' = dy masked by the reserve's keep bits when
    given. dz (the ADD_ACTIVATION output) is written on the way: alpha·dy' + beta·dz."""
    rows = mask_rows(reserve, layout) if reserve is not None else None
    centre = mean.astype(ct)
    if layout.per_channel:
        parts = accumulators(workspace, layout.backward_workspace(), (2, layout.N, layout.C))
        sum_dy, sum_dyx = parts
        s = layout.spatial

        def run(lo, hi):
            xc = np.empty(layout.image, ct)
            g = np.empty(layout.image, ct) if (rows is not None or dy.dtype != ct) else None
            for n in range(lo, hi):
                gn = _masked(dy[n], rows, n, layout, g)
                if dz is not None:
                    mcdnn.write(dz[n], gn.copy(), alpha, beta)
                np.subtract(x[n], centre, out=xc)
                grows = layout.rows(gn)
                sum_dy[n] = np.add.reduce(grows, axis=1)
                sum_dyx[n] = np.einsum("ij,ij->i", layout.rows(xc), grows)
        over_images(layout, run)
        return sum_dy.sum(0).reshape(layout.pshape), sum_dyx.sum(0).reshape(layout.pshape)
    sum_dy, sum_dyx = accumulators(workspace, layout.backward_workspace(), (2,) + layout.image)
    sum_dy[...] = 0
    sum_dyx[...] = 0
    g = np.empty(layout.image, ct)
    for n in range(layout.N):
        gn = _masked(dy[n], rows, n, layout, g)
        if dz is not None:
            mcdnn.write(dz[n], gn.copy(), alpha, beta)
        sum_dy += gn
        sum_dyx += gn * (x[n].astype(ct) - centre)
    return sum_dy.copy(), sum_dyx.copy()


def _masked(dyn, rows, n, layout, scratch):
    if rows is None:
        return in_compute_type(scratch, dyn) if scratch is not None else dyn
    np.copyto(scratch, dyn, casting="unsafe")
    np.copyto(scratch, 0, where=~_keep(rows[n], layout))
    return scratch


def gradient_input(layout, x, dy, dx, a, b, c, ct, alpha, beta, reserve=None):
    """dx = alpha·(a·dy' + b·x + c) + beta·dx, image by image (a, b, c float64 shaped `pshape`)."""
    rows = mask_rows(reserve, layout) if reserve is not None else None
    a, b, c = (a * alpha).astype(ct), (b * alpha).astype(ct), (c * alpha).astype(ct)

    def run(lo, hi):
        t = np.empty(layout.image, ct)
        g = np.empty(layout.image, ct) if (rows is not None or dy.dtype != ct) else None
        direct = beta == 0 and dx.dtype == ct
        result = None if direct else np.empty(layout.image, ct)
        for n in range(lo, hi):
            np.multiply(x[n], b, out=t)       # before dx is written: dx may be x's memory
            t += c
            gn = _masked(dy[n], rows, n, layout, g)
            if direct:
                np.multiply(gn, a, out=dx[n])
                dx[n] += t
                continue
            np.multiply(gn, a, out=result)
            result += t
            mcdnn.write(dx[n], result, 1.0, beta)
    over_images(layout, run)
