"""The single-operator API's one table: a GE operator type ("Add", "Cast", "MatMulV2" …) → the aclnn
operator that runs it, never a second implementation.

A row names the aclnn operator, the GE operator's inputs and outputs (by its IR's names, in order; a
name ending in "?" is an optional input) and `bind`, which maps them and the attributes (by name) to the
aclnn operator's parameters (by the header's names). `bind` gets an `Io`: `io.x1` is the operand of input
x1 (None when an optional one is absent), `io.attr(name, default)` an attribute (REQUIRED: the call must
set it). An operand's `desc` is what the aclnn check sees; `transposed()` swaps its last two axes without
moving data (MatMul's transpose_x1 …); `values()` reads a small input the operator takes as data (axes,
dims, fill values), from host or device memory."""
from opemu.core import dtypes
from opemu.core.scalar import Scalar

REQUIRED = object()
ROWS = {}

# cubeMathType for the matmuls: KEEP_DTYPE, as a GE MatMul computes (HF32 only when asked for)
_KEEP_DTYPE = 0


class Row:
    __slots__ = ("ge_type", "op_name", "inputs", "outputs", "bind")

    def __init__(self, ge_type, op_name, inputs, outputs, bind):
        self.ge_type, self.op_name, self.bind = ge_type, op_name, bind
        self.inputs, self.outputs = inputs.split(), outputs.split()


def row(ge_type, op_name, inputs, outputs, bind):
    ROWS[ge_type] = Row(ge_type, op_name, inputs, outputs, bind)


def _one(like):
    """alpha = 1 in the data type of `like` (an operand), as frameworks pass it."""
    return Scalar.of(1, like.desc.dtype if like.desc.dtype in dtypes.NUMPY_OF else dtypes.acl("FLOAT"))


def _binary(op_name, with_alpha=False):
    def bind(io):
        values = dict(self=io.x1, other=io.x2, out=io.y)
        if with_alpha:
            values["alpha"] = _one(io.y)
        return values
    return op_name, "x1 x2", "y", bind


def _unary(op_name):
    return op_name, "x", "y", lambda io: dict(self=io.x, out=io.y)


for _ge, _spec in {
    "Add": _binary("aclnnAdd", True), "AddV2": _binary("aclnnAdd", True), "Sub": _binary("aclnnSub", True),
    "Mul": _binary("aclnnMul"), "RealDiv": _binary("aclnnDiv"), "Div": _binary("aclnnDiv"),
    "Maximum": _binary("aclnnMaximum"), "Minimum": _binary("aclnnMinimum"),
    "Relu": _unary("aclnnRelu"), "Neg": _unary("aclnnNeg"), "Exp": _unary("aclnnExp"), "Log": _unary("aclnnLog"),
    "Sqrt": _unary("aclnnSqrt"), "Rsqrt": _unary("aclnnRsqrt"), "Sigmoid": _unary("aclnnSigmoid"),
    "Tanh": _unary("aclnnTanh"), "Abs": _unary("aclnnAbs"), "Sin": _unary("aclnnSin"), "Cos": _unary("aclnnCos"),
}.items():
    row(_ge, *_spec)

row("Cast", "aclnnCast", "x", "y", lambda io: dict(self=io.x, dtype=io.attr("dst_type"), out=io.y))
row("Identity", "aclnnInplaceCopy", "x", "y", lambda io: dict(selfRef=io.y, src=io.x))
row("ZerosLike", "aclnnInplaceZero", "x", "y", lambda io: dict(selfRef=io.y))
row("OnesLike", "aclnnInplaceOne", "x", "y", lambda io: dict(selfRef=io.y))
# Fill's `dims` input is the output's shape, which the output description already states
row("Fill", "aclnnInplaceFillTensor", "dims value", "y", lambda io: dict(selfRef=io.y, value=io.value))


def _matmul(first, second):
    """MatMul(V2) (transpose_x1/x2) and BatchMatMul(V2) (adj_x1/x2): the product of x1 and x2, each transposed
    when its attribute says so; a bias is not part of the aclnn product."""
    def bind(io):
        if io.bias is not None:
            raise io.unsupported("a bias input")
        x1 = io.x1.transposed() if io.attr(first, False) else io.x1
        x2 = io.x2.transposed() if io.attr(second, False) else io.x2
        return dict(self=x1, mat2=x2, out=io.y, cubeMathType=_KEEP_DTYPE)
    return bind


row("MatMul", "aclnnMatmul", "x1 x2 bias?", "y", _matmul("transpose_x1", "transpose_x2"))
row("MatMulV2", "aclnnMatmul", "x1 x2 bias? offset_w?", "y", _matmul("transpose_x1", "transpose_x2"))
row("BatchMatMul", "aclnnMatmul", "x1 x2 bias?", "y", _matmul("adj_x1", "adj_x2"))
row("BatchMatMulV2", "aclnnMatmul", "x1 x2 bias? offset_w?", "y", _matmul("adj_x1", "adj_x2"))


def _reduce_sum(io):
    axes = tuple(int(a) for a in io.axes.values())
    return dict(self=io.x, dims=axes, keepDims=bool(io.attr("keep_dims", False)), dtype=io.y.desc.dtype, out=io.y)


def _reduce_sum_d(io):
    return dict(self=io.x, dims=tuple(io.attr("axes")), keepDims=bool(io.attr("keep_dims", False)),
                dtype=io.y.desc.dtype, out=io.y)


row("ReduceSum", "aclnnReduceSum", "x axes", "y", _reduce_sum)
row("ReduceSumD", "aclnnReduceSum", "x", "y", _reduce_sum_d)
