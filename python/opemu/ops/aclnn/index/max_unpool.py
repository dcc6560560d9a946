"""aclnnMaxUnpool2d, aclnnMaxUnpool3d (ops-nn index/scatter_elements op_api) and their backward
(index/gather_elements): PyTorch's max_unpool2d/3d, built by the op_api on ScatterElements and GatherElements.

    MaxUnpool        out = 0; out[n, c].flatten()[indices[n, c, i]] = self[n, c].flatten()[i]
    …Backward        out[n, c].flatten()[i] = gradOutput[n, c].flatten()[indices[n, c, i]]

self is (C, H, W) or (N, C, H, W) (3-D: (C, D, H, W) or (N, C, D, H, W)); outputSize the spatial size of out.
stride and padding of the 3-D forms are only checked (PyTorch's signature), never used. Duplicate indices: the
last write wins (ScatterElements walks in index order). Index values are not validated: one outside the plane
addresses the memory it points at (common/addressing.py)."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import addressing
from opemu.ops.aclnn.common import promotion as P

INDEX_DTYPES = P.codes("INT32 INT64")
FORWARD_DTYPES = P.codes("FLOAT FLOAT16 INT8 UINT8 INT16 INT32 INT64 DOUBLE")
BACKWARD_2D_DTYPES = P.codes("FLOAT FLOAT16 INT8 UINT8 INT16 INT32 INT64 BOOL")


def _contiguous(t):
    stride = 1
    for size, step in zip(reversed(t.shape), reversed(t.strides)):
        if size != 1 and step != stride:
            return False
        stride *= size
    return True


def _spatial(t, rank):
    """(N, C, spatial…) of a tensor of `rank` spatial dimensions, with or without its batch dimension."""
    shape = tuple(t.shape)
    return ((1,) + shape) if len(shape) == rank + 1 else shape


def _spatial_sizes_positive(self, op):
    for i in range(1, self.ndim):
        if self.shape[i] <= 0:
            if op == "max_unpool2d":
                raise status.param_invalid("max_unpool2d():expected input to have non-empty spatiak dimensions, but "
                                           "input has sizes %d with dimension %d being empty." % (self.ndim, i))
            raise status.param_invalid("max_unpool3d(): Expected input to have non-zero size for non-batch "
                                       "dimensions, but got %d with dimension %d being empty." % (self.ndim, i))


def _check_3d_arrays(self, output_size, stride, padding):
    for name, values in (("output_size", output_size), ("stride", stride), ("padding", padding)):
        if len(values) != 3:
            raise status.param_invalid("There should be exactly three elements (depth, height, width) in %s, but "
                                       "got %d elements" % (name, len(values)))
    for i in range(3):
        if stride[i] <= 0:
            raise status.param_invalid("strides[%d] shoule be greater than zero, but got %d." % (i, stride[i]))
        if output_size[i] <= 0:
            raise status.param_invalid("outputSize[%d] should be greater than zero, but got %d." % (i, output_size[i]))
    d, h, w = _spatial(self, 3)[2:]
    if int(np.prod(output_size, dtype=object)) < d * h * w:
        raise status.param_invalid("The output dimensions are of size %d x %d x %d, should be greater than or equal "
                                   "to self of size %d x %d x %d." % (tuple(output_size) + (d, h, w)))


def _planes(array, rank):
    """The (N, C, plane) view of a contiguous array of `rank` spatial dimensions (a copy otherwise)."""
    n_c = _spatial(array, rank)[:2]
    return array.reshape(n_c + (-1,))


class MaxUnpool2d(AclnnOp):
    name = "aclnnMaxUnpool2d"
    inputs = ("self", "indices")
    outputs = ("out",)
    rank = 2

    def dtype_table(self):
        return {"self": FORWARD_DTYPES, "indices": INDEX_DTYPES, "out": FORWARD_DTYPES}

    def check(self, a):
        checks.not_null(a, "self", "indices", "outputSize", "out")
        self._check_dtypes(a)
        x = a.self
        if x.ndim not in (3, 4):
            raise status.param_invalid("Expected self to be a 3d or 4d Tensor, instead got: %d" % x.ndim)
        if x.ndim != a.indices.ndim:
            raise status.param_invalid("Expected dim of self and indices to be equal, instead got self: %d, "
                                       "gradOutput: %d" % (x.ndim, a.indices.ndim))
        checks.same_shape("self", x, "indices", a.indices)
        _spatial_sizes_positive(x, "max_unpool2d")
        size = list(a.outputSize)
        if len(size) != 2:
            raise status.param_invalid("outputSize length should be 2, but now is %d." % len(size))
        for i, value in enumerate(size):
            if value <= 0:
                raise status.param_invalid("outputSize value should greater than 0, but the sizes of %d is %d."
                                           % (i, value))
        h, w = _spatial(x, 2)[2:]
        if size[0] * size[1] < h * w:
            raise status.param_invalid("The output volums are of size %d x %d, should greater than or equal to self "
                                       "of size %d x %d." % (size[0], size[1], h, w))
        n, c = _spatial(x, 2)[:2]
        if a.out.numel() != n * c * size[0] * size[1]:   # the op_api's Reshape of out fails
            raise status.VendorError(status.ACLNN["ACLNN_ERR_INNER_NULLPTR"],
                                     "out %s cannot hold the unpooled %d x %d planes"
                                     % (checks.shape_text(a.out.shape), size[0], size[1]))
        a.empty = x.is_empty()

    def _check_dtypes(self, a):
        checks.dtype_in("self", a.self, FORWARD_DTYPES)
        checks.dtype_match("out", a.out, a.self.dtype)
        checks.dtype_in("indices", a.indices, INDEX_DTYPES)

    def compute(self, a, v, workspace):
        if a.empty:
            return
        out = v["out"]
        values = _planes(np.ascontiguousarray(v["self"]), self.rank)
        index = _planes(np.ascontiguousarray(v["indices"], np.int64), self.rank)
        planes = np.zeros(values.shape[:2] + (int(np.prod(out.shape[-self.rank:])),), out.dtype)
        what = addressing.describe(self.name, "indices", index, planes.shape[2], 2) \
            if addressing.outside(index, planes.shape[2]) else None
        grid = np.indices(index.shape, sparse=True)
        coordinates = [grid[0], grid[1], index]
        if what is None:
            planes[tuple(coordinates)] = values
            out[...] = planes.reshape(out.shape)
            return
        out[...] = 0
        target = out.reshape(planes.shape)   # out is contiguous here: the stray writes land in its allocation
        addressing.assign(target, coordinates, values, what)


class MaxUnpool3d(MaxUnpool2d):
    name = "aclnnMaxUnpool3d"
    outputs = ("outRef",)
    rank = 3

    def dtype_table(self):
        return {"self": FORWARD_DTYPES, "indices": INDEX_DTYPES, "outRef": FORWARD_DTYPES}

    def check(self, a):
        checks.not_null(a, "self", "indices", "outputSize", "stride", "padding", "outRef")
        if not _contiguous(a.outRef):
            raise status.param_invalid("outRef must be contiguous")
        checks.dtype_in("self", a.self, FORWARD_DTYPES)
        checks.dtype_match("outRef", a.outRef, a.self.dtype)
        checks.dtype_in("indices", a.indices, INDEX_DTYPES)
        x, out = a.self, a.outRef
        if x.ndim not in (4, 5):
            raise status.param_invalid("Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with "
                                       "dim %d" % x.ndim)
        if x.ndim != a.indices.ndim:
            raise status.param_invalid("Expected shape of indices to be: %d, but got: %d" % (x.ndim, a.indices.ndim))
        checks.same_shape("self", x, "indices", a.indices)
        _spatial_sizes_positive(x, "max_unpool3d")
        size = list(a.outputSize)
        _check_3d_arrays(x, size, list(a.stride), list(a.padding))
        if x.ndim != out.ndim:
            raise status.param_invalid("Out should be same in dimensions with self, but self is %d, outRef is %d"
                                       % (x.ndim, out.ndim))
        (n, c), (on, oc) = _spatial(x, 3)[:2], _spatial(out, 3)[:2]
        if (n, c) != (on, oc):
            raise status.param_invalid("Out should be same in N、C dimensions with self, but self N: [%d]、C:[%d], "
                                       "outRef N: [%d]、C: [%d]" % (n, c, on, oc))
        spatial = _spatial(out, 3)[2:]
        if list(spatial) != size:
            raise status.param_invalid("Out should be same in D、H、W dimensions with outputSize, but outputSize D: "
                                       "[%d]、H:[%d]、W:[%d], outRef D: [%d]、H: [%d]、W:[%d]"
                                       % (tuple(size) + tuple(spatial)))
        a.empty = x.is_empty()

    def compute(self, a, v, workspace):
        super().compute(a, {"self": v["self"], "indices": v["indices"], "out": v["outRef"]}, workspace)


class MaxUnpool2dBackward(AclnnOp):
    name = "aclnnMaxUnpool2dBackward"
    inputs = ("gradOutput", "self", "indices")
    outputs = ("out",)
    rank = 2

    def dtype_table(self):
        return {"gradOutput": BACKWARD_2D_DTYPES, "self": BACKWARD_2D_DTYPES, "indices": INDEX_DTYPES,
                "out": BACKWARD_2D_DTYPES}

    def check(self, a):
        checks.not_null(a, "gradOutput", "self", "indices", "outputSize", "out")
        grad, x = a.gradOutput, a.self
        for name in ("gradOutput", "self", "out"):
            checks.dtype_in(name, getattr(a, name), BACKWARD_2D_DTYPES)
        checks.result_castable(grad.dtype, a.out.dtype)
        checks.dtype_match("gradOutput", grad, x.dtype)
        checks.dtype_in("indices", a.indices, INDEX_DTYPES)
        if x.ndim not in (3, 4):
            raise status.param_invalid("Expected self to be a 3d or 4d Tensor, instead got: %d" % x.ndim)
        if x.ndim != grad.ndim:
            raise status.param_invalid("Expected dim of self and gradOutput to be equal, instead got self: %d, "
                                       "gradOutput: %d" % (x.ndim, grad.ndim))
        (n, c), (gn, gc) = _spatial(x, 2)[:2], _spatial(grad, 2)[:2]
        if x.ndim == 3 and c != gc:
            raise status.param_invalid("Expected (C) of self and gradOutput to be equal, instead got self: (%d), "
                                       "gradOutput: (%d)" % (c, gc))
        if x.ndim == 4 and (n, c) != (gn, gc):
            raise status.param_invalid("Expected (N, C) of self and gradOutput to be equal, instead got self: (%d, "
                                       "%d), gradOutput: (%d, %d)" % (n, c, gn, gc))
        checks.same_shape("self", x, "indices", a.indices)
        checks.same_shape("self", x, "out", a.out)
        size = list(a.outputSize)
        if len(size) != 2:
            raise status.param_invalid("Expected size of outputSize must be 2, but got: %d" % len(size))
        gh, gw = _spatial(grad, 2)[2:]
        if size != [gh, gw]:
            raise status.param_invalid("Inconsistent gradOutput size. output height = %d, output width = %d, but got "
                                       "gradOutput: %dx%d" % (size[0], size[1], gh, gw))
        self._check_empty(a)

    @staticmethod
    def _check_empty(a):
        if a.gradOutput.is_empty() and not a.self.is_empty():
            raise status.param_invalid("gradOutput is empty tensor, self should be empty tensor.")
        a.empty = a.self.is_empty()

    def compute(self, a, v, workspace):
        if a.empty:
            return
        grad = v["gradOutput"]
        index = _planes(np.ascontiguousarray(v["indices"], np.int64), self.rank)
        planes = grad.reshape(_spatial(grad, self.rank)[:2] + (-1,))
        grid = np.indices(index.shape, sparse=True)
        coordinates = [grid[0], grid[1], index]
        if addressing.outside(index, planes.shape[2]):
            what = addressing.describe(self.name, "indices", index, planes.shape[2], 2)
            values = addressing.gather(planes, coordinates, what)
        else:
            values = planes[tuple(coordinates)]
        P.store(v["out"], values.reshape(v["out"].shape))


class MaxUnpool3dBackward(MaxUnpool2dBackward):
    name = "aclnnMaxUnpool3dBackward"
    rank = 3

    def dtype_table(self):
        return {"gradOutput": FORWARD_DTYPES, "self": FORWARD_DTYPES, "indices": P.codes("INT64"),
                "out": FORWARD_DTYPES}

    def check(self, a):
        checks.not_null(a, "gradOutput", "self", "indices", "outputSize", "stride", "padding", "out")
        if not _contiguous(a.out):
            raise status.param_invalid("out must be contiguous")
        grad, x, out = a.gradOutput, a.self, a.out
        for name in ("gradOutput", "self", "out"):
            checks.dtype_in(name, getattr(a, name), FORWARD_DTYPES)
        checks.dtype_match("self", x, grad.dtype)
        checks.dtype_match("out", out, grad.dtype)
        checks.dtype_match("indices", a.indices, P.INT64)
        if x.ndim not in (4, 5):
            raise status.param_invalid("Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with "
                                       "dim %d" % x.ndim)
        for name, t in (("indices", a.indices), ("out", out)):
            if x.ndim != t.ndim:
                raise status.param_invalid("Expected shape of %s to be: %d, but got: %d" % (name, x.ndim, t.ndim))
        checks.same_shape("self", x, "indices", a.indices)
        checks.same_shape("self", x, "out", out)
        _spatial_sizes_positive(x, "max_unpool3d")
        size = list(a.outputSize)
        _check_3d_arrays(x, size, list(a.stride), list(a.padding))
        checks.dim_is("self", x, grad.ndim)
        spatial = list(_spatial(grad, 3)[2:])
        if spatial != size:
            raise status.param_invalid("Inconsistant gradOutput size. oT= %d, oH= %d, oW= %d. gradOutput: %d x %d x "
                                       "%d." % (tuple(size) + tuple(spatial)))
        (n, c), (gn, gc) = _spatial(x, 3)[:2], _spatial(grad, 3)[:2]
        if (n, c) != (gn, gc):
            raise status.param_invalid(
                "gradOutput and input Tensors should have same number of dimensions and also the same number of "
                "channels/slices. But gradOutput is %d dimensions, %d batch size, %d channels/slices, self is %d "
                "dimensions , %d batch size, %d channels/slices." % (grad.ndim, gn, gc, x.ndim, n, c))
        self._check_empty(a)
