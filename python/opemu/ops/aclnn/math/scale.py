"""aclnnScale (ops-math math/scale: aclnn_scale.cpp): Caffe's Scale layer, y = x · scale (+ bias), scale
(and bias, of scale's shape) laid along x's dims from `axis`.

With scaleFromBlob, `numAxes` says how many dims scale covers (-1: through the last dim, 0: scale is one
value); otherwise scale's own rank does, and a one-value scale of rank ≤ 1 scales everything. Computed
in fp32 for fp16/bf16 data and rounded once into y."""

from opemu.core import checks, status
from opemu.core.op import AclnnOp, soc
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

SCALABLE = {"A2": "FLOAT FLOAT16 BF16", "A3": "FLOAT FLOAT16 BF16", "950": "FLOAT FLOAT16 BF16",
            "310P": "FLOAT FLOAT16"}


def _scalable():
    names = SCALABLE.get(_products.line())
    if names is None:
        raise status.runtime_error("support for %s is not implemented" % soc())
    return P.codes(names)


class Scale(AclnnOp):
    name = "aclnnScale"
    inputs = ("x", "scale", "bias")
    outputs = ("y",)

    def dtype_table(self):
        allowed = P.codes(SCALABLE.get(_products.line(), ""))
        return {"x": allowed, "scale": allowed, "bias": allowed, "y": allowed}

    def check(self, a):
        checks.not_null(a, "x", "scale", "y")
        checks.dtype_in("x", a.x, _scalable())
        if a.bias is not None:
            checks.same_dtype("scale", a.scale, "bias", a.bias)
        checks.same_dtype("x", a.x, "scale", a.scale)
        checks.same_dtype("x", a.x, "out", a.y)
        checks.same_shape("out", a.y, "x", a.x)
        if a.bias is not None:
            checks.same_shape("bias", a.bias, "scale", a.scale)
        checks.max_dim("x", a.x)
        checks.max_dim("scale", a.scale)
        rank = a.x.ndim
        if not -rank <= a.axis < rank:
            raise status.param_invalid("axis must be within the range of [%d, %d), but it is %d."
                                       % (-rank, rank, a.axis))
        if a.numAxes < -1:
            raise status.param_invalid("numAxes must be >= -1, but it is %d." % a.numAxes)
        axis = a.axis if a.axis >= 0 else rank + a.axis
        a.layout = self._layout(a, axis, rank)

    def _layout(self, a, axis, rank):
        """The shape scale (and bias) take to broadcast against x."""
        scale_shape = tuple(a.scale.shape)
        if a.scaleFromBlob:
            if a.numAxes == 0:
                if a.scale.numel() != 1:
                    raise status.param_invalid("when num_axes is 0, scale must have one num, but shape is %s."
                                               % checks.shape_text(scale_shape))
                return (1,) * rank
            length = rank - axis if a.numAxes == -1 else a.numAxes
            if length + axis > rank or length <= 0:
                raise status.param_invalid("the sum of scale axis(%d) and numAxes(%d) must be <= xRank(%d)."
                                           % (axis, a.numAxes, rank))
            expected = tuple(a.x.shape[axis:axis + length])
            if expected != scale_shape:
                raise status.param_invalid("the scale must be %s, when x is %s and attr[axis(%d), numAxes(%d)], but "
                                           "get %s." % (checks.shape_text(expected), checks.shape_text(a.x.shape),
                                                        a.axis, a.numAxes, checks.shape_text(scale_shape)))
        else:
            length = len(scale_shape)
            if length + axis > rank:
                raise status.param_invalid("the sum of scale axis(%d) and scale_rank(%d) must be <= xRank(%d)."
                                           % (axis, length, rank))
            if a.scale.numel() == 1 and length <= 1:
                return (1,) * rank
            if tuple(a.x.shape[axis:axis + length]) != scale_shape:
                raise status.param_invalid("the scale shape(%s) must be the same with x shape(%s) from axis dim(%d)."
                                           % (checks.shape_text(scale_shape), checks.shape_text(a.x.shape), a.axis))
        return (1,) * axis + scale_shape + (1,) * (rank - axis - len(scale_shape))

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        ct = P.compute_type(a.x.dtype)
        result = P.as_compute(v["x"], ct) * P.as_compute(v["scale"], ct).reshape(a.layout)
        if a.bias is not None:
            result += P.as_compute(v["bias"], ct).reshape(a.layout)
        P.store(v["y"], result)
