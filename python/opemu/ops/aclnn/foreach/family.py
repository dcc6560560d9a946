"""The Foreach* operators (ops-nn foreach/): one elementwise row applied to every tensor of a list.

A Foreach form is one line of foreach/elementwise.py's table, naming the elementwise row whose
kernel is its formula (opemu.ops.aclnn.common.elementwise: the rows of math/, activation/ …), the
check template its vendor source follows, and its dtype list:

    Form("Sqrt", OpApiUnary, FLOATING),     # aclnnForeachSqrt(x, out): out[i] = sqrt(x[i])
    Form("Add", OpApiList, ADD_LIST),       # aclnnForeachAddListV2(x1, x2, alpha, out): x1[i] + alpha * x2[i]

The spelling is the template's (ForeachSqrt, ForeachAddListV2, ForeachMulScalarV2…) unless the line
gives one; the vendor must declare it
(cmake/surface/aclnn_ops.tsv), and the parameters are the header's. The templates are the check
orders the vendor's sources follow, each read top to bottom as its CheckParams:

  OpApiUnary    op_api lists without a scalar (foreach_sqrt, foreach_div_list, foreach_mul_list): nulls →
                product → dtypes (the first tensor's in the list, the others equal to it) → list sizes →
                ranks → shapes equal → formats
  OpApiList     op_api list with an aclScalar alpha (foreach_add_list V2, foreach_sub_list V2): nulls →
                (AddListV2: sizes, silently) → product → dtypes, alpha's by the list dtype → sizes → shapes
  OpApiScalar   op_api lists with a scalar (foreach_*_scalar V2, foreach_lerp_scalar, foreach_addcmul_scalar
                V2, foreach_div_scalar's tensor): nulls → product → dtypes (MulScalarV2 and most V2s also
                nulls in the lists) → the scalar's dtype → sizes → shapes
  Generated     opbuild's generated check (operators documented without an op_api source, foreach_abs):
                nulls → product → each tensor's dtype in the op definition's list and out's equal to x's
                (ACLNN_ERR_PARAM_INVALID) → the tiling's rules (ACLNN_ERR_INNER_TILING_ERROR): one dtype
                across x, ranks ≤ 8, each out holding at least its x's elements, the other input lists of
                x's shapes, a scalar per tensor in an aclScalarList

A form's operands are the header's, in order: tensor lists, an aclScalar, an aclScalarList (one scalar per
tensor) or a tensor holding the scalar (one value, or one per tensor); the *Inplace forms write their first
list. The row's kernel takes them in that order, plus the form's `constants` (Add's alpha of 1 in
ForeachAddScalar).

Messages name the tensors as the vendor's sources print them: "(*self)[0]", "(*self)[i]". A null tensor
inside a list, which most op_api sources dereference unchecked, is refused with the nulls. Every form
computes like its row: fp16/bf16 in fp32, rounded once into each output tensor; the scalar is first
converted to the dtype the op_api converts it to (bf16 data: FLOAT; INT8/INT16/UINT8 data: INT32;
otherwise the data's own: an fp16 list rounds its scalar to fp16).

To add a form whose source follows one of these templates: one line in the table and its dtype list
(the op_api's, or the op definition's for Generated). A source with a check order of its own gets a
template of its own here, written as its CheckParams reads."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp, soc
from opemu.ops.aclnn import declared
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.elementwise import ROWS

A2_LINES = ("A2", "A3", "950")   # DAV_2201 (Atlas A2/A3) and the regbase 950 parts: where foreach has kernels
SMALL_INTEGERS = P.codes("INT8 INT16 UINT8")
FLOAT_PAIR, FLOAT16_PAIR, INTEGER_PAIR = P.codes("FLOAT DOUBLE"), P.codes("FLOAT16 DOUBLE"), P.codes("INT32 INT64")
FORMATS_TEXT = "Format only support ND、NCHW、NHWC、HWCN、NDHWC、NCDHW."


class Foreach(AclnnOp):
    """A Foreach form: `lists` (the input tensor lists, header order), `scalar` (the aclScalar operand or
    alpha, if any), `target` (the output list) and `kernel`, the row's."""
    lists = ()
    inplace = False   # the first list is written (the *Inplace forms)
    scalar = None
    target = "out"
    dtypes = None     # callable → the dtype list on the current product
    kernel = None
    fp16_float_scalar = False   # on the 950 line an fp16 list takes a FLOAT scalar too, kept in fp32 (MulScalarV2)
    operands = ()     # ((name, "L" list | "S" aclScalar | "SL" aclScalarList | "T" tensor of scalars), …) header order
    constants = ()    # trailing arguments of the row's kernel the form fixes (Add's alpha 1 in ForeachAddScalar)
    scalar_as = None  # the NumPy dtype the scalar is converted to whatever the data (LerpScalar's FLOAT weight)
    scalar_dtypes = None   # the scalar's accepted dtypes whatever the data (None: they follow the list's dtype)
    lines = A2_LINES  # the product lines with a kernel
    reduces = False   # each out tensor holds one value per x tensor (ForeachNorm)

    @property
    def products(self):
        return _products.describe(self.lines)

    def dtype_table(self):
        return {name: self.dtypes() for name in self.lists + (self.target,)}

    # ---- the steps the templates share, each with the vendor's message
    def check_nulls(self, a, names, items=True):
        """OP_CHECK_NULL of each parameter, then (`items`) of the tensors inside the lists: a source that reads
        them unchecked would fault, so they are refused here."""
        for name in names:
            if getattr(a, name) is None:
                if name == self.scalar:
                    raise status.param_nullptr("Expected a value of type number for argument %s but instead found "
                                               "type null." % self.source_name(name))
                raise status.param_nullptr("Expected a proper TensorList but got null for argument %s."
                                           % self.source_name(name))
        if items:
            self.check_item_nulls(a, self.lists + (self.target,), status.param_nullptr)

    def check_item_nulls(self, a, names, error):
        for name in names:
            for k, tensor in enumerate(getattr(a, name)):
                if tensor is None:
                    raise error("Expected a proper Tensor but got null for argument %s."
                                % self.item_name(name, "0" if k == 0 and name == self.lists[0] else "i"))

    def check_product(self):
        if _products.line() not in self.lines:
            raise status.param_invalid("support for %s is not implemented" % soc())

    def check_first_dtype(self, a):
        checks.dtype_in(self.item_name(self.lists[0], "0"), getattr(a, self.lists[0])[0], self.dtypes())

    def check_dtypes_match(self, a, names):
        first = getattr(a, self.lists[0])[0].dtype
        for name in names:
            for tensor in getattr(a, name):
                checks.dtype_match(self.item_name(name, "i"), tensor, first)

    def check_scalar_dtype(self, a):
        """The scalar's dtype list follows the list's dtype (FOREACH_*_SUPPORT_LIST)."""
        first = getattr(a, self.lists[0])[0].dtype
        if self.scalar_dtypes is not None:
            allowed = self.scalar_dtypes
        elif first in (P.BF16, P.FLOAT):
            allowed = FLOAT_PAIR
        elif first == P.FLOAT16:
            allowed = FLOAT16_PAIR + ((P.FLOAT,) if self.fp16_float_scalar and _products.is_regbase() else ())
        elif first in P.FLOATS:
            return
        else:
            allowed = INTEGER_PAIR
        checks.dtype_in("scalar", getattr(a, self.scalar), allowed)

    def check_sizes(self, a, names, message):
        counts = [len(getattr(a, name)) for name in names]
        if len(set(counts)) > 1:
            raise status.param_invalid(message % tuple(counts) if "%" in message else message)

    def check_out_holds_self(self, a):
        """A source that walks out by self's indices without comparing the sizes would read past a shorter
        out; a longer one it leaves alone."""
        given, needed = len(getattr(a, self.target)), len(getattr(a, self.lists[0]))
        if given < needed:
            raise status.param_invalid("out has %d tensors, fewer than self's %d." % (given, needed))

    def check_shapes(self, a, names):
        first = getattr(a, self.lists[0])
        for name in names:
            for tensor, other in zip(first, getattr(a, name)):
                checks.same_shape(self.item_name(self.lists[0], "i"), tensor, self.item_name(name, "i"), other)

    def check_ranks(self, a):
        for tensor in getattr(a, self.lists[0]):
            checks.max_dim(self.item_name(self.lists[0], "i"), tensor)

    def check_formats(self, a):
        for name in self.lists + (self.target,):
            if any(checks.is_private_format(t.format) for t in getattr(a, name)):
                raise status.param_invalid(FORMATS_TEXT)

    def source_name(self, name):
        """How the op_api source names a parameter: self, x2, scalar, out."""
        if name == self.scalar:
            return "scalar"
        if name == self.target:
            return "out"
        return "self" if name == self.lists[0] else "x%d" % (self.lists.index(name) + 1)

    def item_name(self, name, index):
        """A list's tensor as the source's message prints it: "(*self)[0]", "(*out)[i]"."""
        return "(*%s)[%s]" % (self.source_name(name), index)

    # ---- compute: the row's kernel per tensor
    def scalar_type(self, a, data):
        """The NumPy dtype the op_api converts the scalar to (ConvertToTensor) for data of acl dtype `data`."""
        if self.scalar_as is not None:
            return np.dtype(self.scalar_as)
        if data == P.BF16 or (self.fp16_float_scalar and data == P.FLOAT16 and _products.is_regbase()
                              and getattr(a, self.scalar).dtype in (P.FLOAT, P.DOUBLE)):
            return np.float32
        return dtypes.numpy_dtype(dtypes.acl("INT32") if data in SMALL_INTEGERS else data)

    def operand(self, a, v, name, kind, k, data, compute_type):
        """The k-th call's argument `name`: the list's k-th tensor, the aclScalar, the k-th aclScalarList item
        or the tensor of scalars' k-th value (its only one when it holds one), in the compute dtype."""
        if kind == "L":
            return P.as_compute(v[name][k], compute_type)
        if kind == "S":
            return getattr(a, name).as_type(self.scalar_type(a, data))
        if kind == "SL":
            return getattr(a, name)[k].as_type(self.scalar_type(a, data))
        values = v[name].reshape(-1)
        return P.as_compute(values[k if values.size > 1 else 0], compute_type)

    def compute(self, a, v, workspace):
        first = getattr(a, self.lists[0])
        if not first:
            return
        targets, data = v[self.target], first[0].dtype
        compute_type = P.compute_type(data) if P.category(data) >= 2 else np.dtype(np.int64)
        with np.errstate(all="ignore"):   # inf and NaN are results on the device
            for k in range(len(first)):
                if first[k].numel():
                    args = [self.operand(a, v, name, kind, k, data, compute_type) for name, kind in self.operands]
                    self.store(targets[k], self.kernel(*args, *self.constants))

    def store(self, target, result):
        P.store(target, result)


class OpApiUnary(Foreach):
    spelling = "Foreach%s"

    def check(self, a):
        self.check_nulls(a, self.lists + (self.target,))
        self.check_product()
        if getattr(a, self.lists[0]):
            self.check_first_dtype(a)
            self.check_dtypes_match(a, self.lists + (self.target,))
        self.check_sizes(a, self.lists + (self.target,), "Tensor lists must have the same number of tensors")
        self.check_ranks(a)
        self.check_shapes(a, self.lists[1:] + (self.target,))
        self.check_formats(a)


class OpApiCopy(OpApiUnary):
    """foreach_copy's op_api: OpApiUnary's order, out's tensors of one dtype that x's may be copied into."""
    CASTS = {(P.BF16, P.FLOAT), (P.FLOAT16, P.FLOAT), (P.FLOAT, P.BF16), (P.FLOAT, P.FLOAT16)}

    def check_dtypes_match(self, a, names):
        super().check_dtypes_match(a, self.lists)
        out = getattr(a, self.target)
        if not out:
            return
        for tensor in out:
            checks.dtype_match(self.item_name(self.target, "i"), tensor, out[0].dtype)
        source = getattr(a, self.lists[0])[0].dtype
        if out[0].dtype != source and (source, out[0].dtype) not in self.CASTS:
            raise status.param_invalid("dtype mapping from x(%d) to out(%d) is not supported" % (source, out[0].dtype))


class OpApiList(Foreach):
    spelling = "Foreach%sListV2"
    sizes_first = False   # AddListV2: CHECK_RET(self->Size() == x2->Size()) and == out's, before the dtypes

    def check(self, a):
        self.check_nulls(a, self.lists + (self.scalar, self.target))
        if self.sizes_first:
            self.check_sizes(a, self.lists + (self.target,), "The tensor lists have %d, %d and %d tensors.")
        self.check_product()
        if getattr(a, self.lists[0]):
            self.check_first_dtype(a)
            self.check_scalar_dtype(a)
            self.check_dtypes_match(a, self.lists + (self.target,))
        self.check_sizes(a, self.lists, "Tensor lists must have the same number of tensors, got %d and %d")
        self.check_shapes(a, self.lists[1:])
        self.check_out_holds_self(a)
        self.check_ranks(a)
        self.check_shapes(a, (self.target,))
        self.check_formats(a)


class OpApiScalar(Foreach):
    spelling = "Foreach%sScalarV2"
    item_nulls = False   # MulScalarV2: OP_CHECK_NULL of the lists' tensors among the dtype checks (PARAM_INVALID)

    def check(self, a):
        self.check_nulls(a, self.lists + (self.scalar, self.target), items=not self.item_nulls)
        self.check_product()
        if getattr(a, self.lists[0]):
            if self.item_nulls:
                self.check_item_nulls(a, self.lists + (self.target,), status.param_invalid)
            self.check_first_dtype(a)
            self.check_dtypes_match(a, self.lists + (self.target,))
            self.check_scalar_dtype(a)
        if len(self.lists) > 1:   # LerpScalar, AddcmulScalarV2, AddcdivScalarV2: x2 (and x3) like x1
            self.check_sizes(a, self.lists + (self.target,), "Tensor lists must have the same number of tensors")
            self.check_shapes(a, self.lists[1:])
        self.check_sizes(a, (self.lists[0], self.target),
                         "The self tensorlist and out tensorlist must have the same number of tensors, but got %d "
                         "and %d.")
        self.check_ranks(a)
        self.check_shapes(a, (self.target,))
        self.check_formats(a)


class Generated(Foreach):
    """opbuild's check of a generated operator, then the foreach tiling's (foreach_tiling_class.h)."""
    spelling = "Foreach%s"

    def check(self, a):
        self.check_nulls(a, tuple(name for name, _ in self.operands) + (() if self.inplace else (self.target,)))
        _products.check_supported(self.name, self.lines)
        allowed = self.dtypes()
        for name in self.lists + (self.target,):
            for k, tensor in enumerate(getattr(a, name)):
                checks.dtype_in("%s[%d]" % (name, k), tensor, allowed)
        x, out = getattr(a, self.lists[0]), getattr(a, self.target)
        for name in self.lists[1:] + (self.target,):
            for k, (source, other) in enumerate(zip(x, getattr(a, name))):
                checks.dtype_match("%s[%d]" % (name, k), other, source.dtype)
        self.check_tiling(x, out)
        self.check_companions(a, x)

    def check_companions(self, a, x):
        """The tiling reads the other input lists, the scalar list and the tensor of scalars at x's indices."""
        tiling = status.ACLNN["ACLNN_ERR_INNER_TILING_ERROR"]
        for name, kind in self.operands:
            value = getattr(a, name)
            if kind == "L" and name != self.lists[0]:
                for k, source in enumerate(x):
                    if k >= len(value):
                        raise status.VendorError(tiling, "The input %s %d desc is null." % (name, k))
                    if value[k].shape != source.shape:
                        raise status.VendorError(tiling, "%s tiling: %s[%d] has shape %s, x's is %s."
                                                 % (self.name, name, k, checks.shape_text(value[k].shape),
                                                    checks.shape_text(source.shape)))
            elif kind == "SL" and len(value) < len(x):
                raise status.VendorError(tiling, "%s tiling: %d scalars for %d tensors." % (self.name, len(value), len(x)))
            elif kind == "SL" and any(item is None for item in value):
                raise status.param_nullptr("Expected a proper Scalar but got null for argument %s." % name)
            elif kind == "T" and value.numel() not in (1,) and value.numel() < len(x):
                raise status.VendorError(tiling, "%s tiling: %s holds %d values for %d tensors."
                                         % (self.name, name, value.numel(), len(x)))

    def check_tiling(self, x, out):
        tiling = status.ACLNN["ACLNN_ERR_INNER_TILING_ERROR"]
        if any(t.dtype != x[0].dtype for t in x):
            raise status.VendorError(tiling, "%s tiling: the tensors of x must have one dtype." % self.name)
        for k, source in enumerate(x):
            if source.ndim > checks.MAX_DIM or (k < len(out) and out[k].ndim > checks.MAX_DIM):
                raise status.VendorError(tiling, "%s tiling: tensor %d has more than 8 dimensions." % (self.name, k))
            if k >= len(out):
                raise status.VendorError(tiling, "The output %d desc is null." % k)
            if out[k].shape != source.shape and out[k].numel() < (1 if self.reduces else source.numel()):
                raise status.VendorError(tiling, "The shape size of %dth tensor in tensor list y should be greater "
                                         "than or equal to that of the tensor in the same position of the another "
                                         "tensor list x (%d and %d)." % (k, source.numel(), out[k].numel()))

    def item_name(self, name, index):
        return "%s[%s]" % (name, index)   # the generated code knows the header's names

    def store(self, target, result):
        """The kernel writes x's elements, in order, over the first ones of its (possibly larger) output."""
        if target.shape == result.shape:
            P.store(target, result)
            return
        rounded = np.empty(result.size, target.dtype)
        P.store(rounded, result.reshape(-1))
        target[np.unravel_index(np.arange(result.size), target.shape)] = rounded


class Form:
    """One Foreach form: elementwise row `row` (its name; a kernel for the few forms no row computes, with their
    `spelling`) checked by `template` (a class above) with `dtypes` (a callable, per product), spelled
    `spelling` (default the template's), with the template's flags in `fields` (lines, constants, scalar_as…)."""

    def __init__(self, row, template, dtypes, spelling=None, **fields):
        self.row, self.template, self.dtypes, self.fields = row, template, dtypes, fields
        self.spelling = spelling or template.spelling % row


_KIND = {"aclTensorList": "L", "aclScalar": "S", "aclScalarList": "SL", "aclTensor": "T"}


def generate(module, forms):
    """Registers each form as an operator defined in `module`, with the header's parameters in order: its tensor
    lists (the last is the output, unless the form is in place: then the first list is written), its aclScalar,
    aclScalarList or tensor of scalars."""
    for spec in forms:
        name = "aclnn" + spec.spelling
        operator = declared.operator(name)
        if operator is None:
            raise LookupError("the vendor declares no %s" % name)
        kinds = [(p, _KIND[kind]) for p, kind in operator.parameters if kind in _KIND]
        lists = [p for p, kind in kinds if kind == "L"]
        inplace = spec.spelling.endswith("Inplace")
        target = lists[0] if inplace else lists[-1]
        operands = tuple((p, kind) for p, kind in kinds if inplace or p != target)
        scalars = [p for p, kind in operands if kind != "L"]
        body = dict(__module__=module, name=name, lists=tuple(p for p, kind in operands if kind == "L"),
                    target=target, inplace=inplace, operands=operands, scalar=scalars[0] if scalars else None,
                    inputs=tuple(p for p, kind in operands if kind in ("L", "T")), outputs=(target,),
                    kernel=staticmethod(ROWS[spec.row].kernel if isinstance(spec.row, str) else spec.row),
                    dtypes=staticmethod(spec.dtypes), **spec.fields)
        type(spec.spelling, (spec.template,), body)
