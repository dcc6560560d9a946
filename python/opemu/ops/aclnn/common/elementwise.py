"""The elementwise family: one class, one row per function, the operators generated from the rows.

A row (`Row`) names the function, its NumPy kernel, its dtype lists per product, how the result
dtype is found, and the spellings of its out-of-place forms; `generate` makes each spelling and its
Inplace twin where the vendor declares one, with the parameters the header gives (tensor "T",
aclScalar "S", plain value "v"; the target is `out`, or the first operand of an in-place form).
Phase 1 runs ops-math's usual order: nulls → input dtypes → output dtypes → promotion (and alpha)
→ result castable to the output → rank ≤ 8 → broadcast → output shape. Compute converts the
operands to the compute dtype (fp16/bf16 in fp32), runs the kernel and rounds once into the
output through its view (in-place: the first operand's view). A large call whose operands all have the
output's shape runs in contiguous parts on the cores (elementwise: the same bits however it is cut).

How to add operators (the recipe every folder follows)

* An elementwise function whose op_api follows this order: one line in its vendor folder's table
  (math/elementwise.py, activation/elementwise.py, conversion/clamp.py …; a new folder's table is a
  module ending in `generate(__name__, ROWS)`), plus its dtype list from the op_api source:

      ACOS_IN = per_product("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 BOOL UINT8", "BF16")
      ACOS_OUT = per_product("FLOAT FLOAT16 DOUBLE BF16")
      Row("Acos", np.arccos, ACOS_IN, out=ACOS_OUT, result="float"),

  yields aclnnAcos and, because the vendor declares it, aclnnInplaceAcos. A binary function names
  its scalar forms too (`forms="Add Adds"`, `forms="PowTensorTensor PowTensorScalar PowScalarTensor"`:
  an aclScalar may stand anywhere in the header); `alpha="alpha"` marks Add's multiplier,
  `optional=` the parameters that may be null, `check=` a check of attributes (after the nulls),
  `same_dtype=True` out's dtype equal to the input's, `inplace=False` a declared Inplace twin whose
  op_api differs, `inplace_dtypes=` the in-place form's own list (its SELFREF list),
  `scalar_checked=True` an aclScalar checked against the input list too, `result=` a function
  (args, promoted dtype) → compute dtype where "promote"/"float"/"bool" do not say it,
  `castable=False` an op_api that casts into out unchecked, `lines=` the product lines with a
  kernel (the platform check, last), `base=` a subclass of Elementwise where the op_api's checks
  differ in kind (math/comparison.py's ScalarComparison). A backward operator whose formula is elementwise is a
  row like any other: Row("SigmoidBackward", lambda grad, y: grad * y * (1 - y), …) takes the
  header's gradOutput, output and gradInput.
* Its Foreach forms: one line each in foreach/elementwise.py naming this row (foreach/family.py).
* An operator with semantics of its own: a module in its vendor folder reading declaration →
  check → workspace → compute (loss/nll_loss.py is the model).
* Then list the new operators in the folder's __init__.py (`python -m opemu.implemented --write`
  writes them from the registry; `python -m opemu.implemented` says what differs), rebuild
  (`pip install -e . --no-deps`: the build routes the listed entry points into Python), regenerate
  docs/SUPPORT.md (`opemu support --write docs/SUPPORT.md`), and test each documented behaviour and
  error against PyTorch CPU (tests/test_elementwise.py, tests/test_foreach.py)."""
import numpy as np

from opemu.core import checks, dtypes, kernels, parallel, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn import declared
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P


class Elementwise(AclnnOp):
    params = ()          # ((name, "T" | "S" | "v"), …) in header order, the target excluded
    target = "out"       # the tensor written; the first operand for in-place rows
    inplace = False
    optional = ()        # parameters that may be null
    alpha = None         # the aclScalar multiplying the second operand (Add/Sub)
    in_dtypes = None     # callable → accepted input dtypes on the current product
    out_dtypes = None    # callable → accepted output dtypes (None: not checked separately)
    result = "promote"   # "promote", "float" (integral → FLOAT), "bool" (comparisons)
    same_dtype = False   # out must have the input's dtype (OP_CHECK_DTYPE_NOT_MATCH: Relu, Gelu…)
    scalar_dtypes_checked = ()   # aclScalar operands whose dtype the op_api checks against the input list
    castable = True      # the op_api checks that the result can be cast to out (OP_CHECK_RESULT_DTYPE_CAST_FAILED)
    lines = None         # the product lines with a kernel (None: all); the platform check, last
    kernel = None        # (operands…, out=None) → array

    def dtype_table(self):
        table = {name: self.in_dtypes() for name, kind in self.params if kind == "T"}
        if not self.inplace:
            table[self.target] = (self.out_dtypes or self.in_dtypes)()
        return table

    def operands(self):
        return [name for name, kind in self.params if kind != "v" and name != self.alpha]

    def check(self, a):
        names = [name for name, kind in self.params if kind != "v"] + ([] if self.inplace else [self.target])
        checks.not_null(a, *[n for n in names if n not in self.optional],
                        scalars=[n for n, kind in self.params if kind == "S"])
        self.check_attributes(a)
        allowed = self.in_dtypes()
        tensors = [n for n, kind in self.params if kind == "T" and getattr(a, n) is not None]
        for name in tensors + [n for n in self.scalar_dtypes_checked if getattr(a, n) is not None]:
            checks.dtype_in(name, getattr(a, name), allowed)
        target = getattr(a, self.target)
        if self.out_dtypes is not None and not self.inplace:
            checks.dtype_in(self.target, target, self.out_dtypes())
        if self.same_dtype and not self.inplace:
            checks.dtype_match(self.target, target, getattr(a, tensors[0]).dtype)
        a.result_dtype = self.result_dtype(a, tensors)
        if self.alpha is not None and getattr(a, self.alpha) is not None:
            alpha = getattr(a, self.alpha)
            if not checks.can_cast(alpha.dtype, a.result_dtype):
                raise status.param_invalid("Alpha dtype %s can't be cast to the promote dtype %s."
                                           % (dtypes.serial_name(alpha.dtype), dtypes.serial_name(a.result_dtype)))
        if self.result != "bool" and self.castable:
            checks.result_castable(a.result_dtype, target.dtype)
        if not self.inplace and len(self.operands()) == 1 and tensors:
            # one operand (a unary function): CheckSameShape1In1Out's message, whatever the out dtype
            checks.same_shape(tensors[0], getattr(a, tensors[0]), self.target, target)
        for name in tensors + ([] if self.inplace else [self.target]):
            checks.max_dim(name, getattr(a, name))
        shape = ()
        for i, name in enumerate(tensors):
            shape = getattr(a, name).shape if i == 0 else P.broadcast(tensors[0], shape, name, getattr(a, name).shape)
        if self.inplace:
            if shape != tuple(target.shape):
                other = tensors[-1]
                raise status.param_invalid("The size of tensor %s %s must match the size %s."
                                           % (other, checks.shape_text(getattr(a, other).shape),
                                              checks.shape_text(target.shape)))
        else:
            P.out_shape_is(target, shape)
        if self.lines is not None:
            _products.check_supported(self.name, self.lines)
        self.settle(a, target)

    def settle(self, a, target):
        """What compute reads besides the operands, once a.result_dtype is known: the b16 rounding before the
        cast into the target, whether there is nothing to do, and which locations a repeating target keeps."""
        a.rounding = _ROUNDS_TO.get(a.result_dtype) if target.dtype != a.result_dtype and self.result != "bool" else None
        a.empty = target.is_empty()
        a.once = _one_write_per_location(target.shape, target.strides)

    def check_attributes(self, a):
        """Row-specific attribute checks (after the nulls)."""

    def result_dtype(self, a, tensors):
        """op::PromoteType over the tensor operands, then each aclScalar operand as a scalar joins a tensor
        (its category counts, not its width), wherever it stands in the header; then the row's rule."""
        result = None
        for kind_pass in ("T", "S"):
            for name, kind in self.params:
                value = getattr(a, name)
                if kind != kind_pass or value is None or name == self.alpha:
                    continue
                if result is None:
                    result = value.dtype
                    continue
                promoted = (P.promote(result, value.dtype) if kind == "T"
                            else P.promote_with_scalar(result, value.dtype))
                if promoted is None:
                    first, second = (result, value.dtype) if self.operands().index(name) else (value.dtype, result)
                    raise status.param_invalid("Self dtype %s and other dtype %s can not promote dtype."
                                               % (dtypes.serial_name(first), dtypes.serial_name(second)))
                result = promoted
        if callable(self.result):
            return self.result(a, result)
        if self.result == "float" and P.category(result) < 2:
            return P.FLOAT
        return result

    def compute(self, a, v, workspace):
        if a.empty:
            return
        target, once = v[self.target], a.once
        if once is not None:
            target = target[once]
        ct = P.compute_type(a.result_dtype)
        args = []
        for name, kind in self.params:
            value = getattr(a, name)
            if kind == "T":
                operand = v[name] if once is None else np.broadcast_to(v[name], v[self.target].shape)[once]
                args.append(P.as_compute(operand, ct))
            elif kind == "S":
                args.append(None if value is None else value.as_type(ct))
            else:
                args.append(value)
        direct = (target.dtype == ct or (self.result == "bool" and target.dtype == np.bool_)) and a.rounding is None
        flat = _flat(target, args) if target.size >= PARALLEL_MIN and parallel.WORKERS > 1 else None
        if flat is None:
            self._apply(args, target, direct, a.rounding)
            return
        target, args = flat
        parallel.split(target.size, lambda lo, hi: self._apply([x[lo:hi] if _sliced(x) else x for x in args],
                                                                target[lo:hi], direct, a.rounding))

    def _apply(self, args, target, direct, rounding):
        with np.errstate(all="ignore"):   # inf and NaN are results on the device, not warnings on the app's stderr
            if direct:
                self.kernel(*args, out=target)  # ufuncs handle operands that overlap the output
            elif rounding is not None:    # the kernel's b16 result, then the op_api's Cast into out
                P.store(target, np.asarray(self.kernel(*args)).astype(rounding))
            else:
                P.store(target, self.kernel(*args))


PARALLEL_MIN = 1 << 18   # elements below which the second core costs more than it saves
_ROUNDS_TO = {P.FLOAT16: np.dtype(np.float16), P.BF16: dtypes.numpy_dtype(P.BF16)}   # b16 results round first


def _sliced(operand):
    return isinstance(operand, np.ndarray) and operand.ndim == 1


def _flat(target, args):
    """(target, operands) as 1-D views when the target and every tensor operand are C-contiguous and of the
    target's shape, and each operand either is the target's very view or shares no memory with it (a part
    then reads only what no other part writes); else None."""
    tensors = [x for x in args if isinstance(x, np.ndarray) and x.ndim]
    if (not target.flags.c_contiguous or any(x.shape != target.shape or not x.flags.c_contiguous for x in tensors)
            or not kernels.apart(target, *tensors)):
        return None
    return target.reshape(-1), [x.reshape(-1) if isinstance(x, np.ndarray) and x.ndim else x for x in args]


def _one_write_per_location(shape, strides):
    """For a target that repeats locations (a dim of stride 0), the index keeping the last element along each
    such dim, or None. The device writes every element, so a location holds the last write of a row-major
    walk; computing all of them would make NumPy copy the operands that overlap the output at their logical
    size, which a zero-stride description only pretends is there (fuzz findings: 2^32 elements of one float)."""
    repeated = [n > 1 and s == 0 for n, s in zip(shape, strides)]
    if not any(repeated):
        return None
    return tuple(slice(-1, None) if r else slice(None) for r in repeated)


def into(result, out=None):
    """A kernel's result through `out` when given (for kernels that are not ufuncs)."""
    if out is None:
        return result
    np.copyto(out, result)
    return out


# How a declared parameter enters a row's operator: a tensor operand, an aclScalar operand, or a plain value.
_KIND = {"aclTensor": "T", "aclScalar": "S"}
ROWS = {}   # every row by name, for the families that loop over the same rows (foreach/)


class Row:
    """One elementwise function, what every form of it shares: the kernel (NumPy on the operands in the
    compute dtype, header order, `out=` the target), the input dtypes (a callable, per product), the output
    dtypes when the op_api checks them separately, how the result dtype is found ("promote", "float":
    integral → FLOAT, "bool": comparisons), whether out must have the input's dtype (OP_CHECK_DTYPE_NOT_MATCH),
    the aclScalar multiplying the second operand (`alpha`), the parameters that may be null, a check of
    its attributes (after the nulls), and its forms: the spellings of its out-of-place operators (default
    its name; a binary function's tensor and scalar forms, "Add Adds", "EqTensor EqScalar") each with its
    Inplace twin where the vendor declares one."""

    def __init__(self, name, kernel, dtypes, out=None, result="promote", forms=None, inplace=True, same_dtype=False,
                 alpha=None, optional=(), check=None, inplace_dtypes=None, scalar_checked=False, base=None,
                 castable=True, lines=None):
        self.name, self.kernel, self.dtypes, self.out, self.result = name, kernel, dtypes, out, result
        self.forms = tuple((forms or name).split())
        self.inplace, self.same_dtype, self.alpha = inplace, same_dtype, alpha
        self.optional, self.check = optional, check
        self.inplace_dtypes = inplace_dtypes or out or dtypes   # the in-place form's list (its SELFREF list)
        self.scalar_checked = scalar_checked   # the op_api checks an aclScalar operand's dtype against `dtypes` too
        self.base = base or Elementwise        # a subclass where the row's semantics need more than a kernel
        self.castable = castable               # False where the op_api casts the result into out unchecked
        self.lines = lines                     # product lines with a kernel (None: every product)


def generate(module, rows):
    """Registers, as operators defined in `module`, every form of each row the vendor declares: each of the
    row's spellings (an error when undeclared) and, unless the row says otherwise, its declared Inplace twin.
    Parameter names and kinds are the header's (opemu.ops.aclnn.declared)."""
    for row in rows:
        ROWS[row.name] = row
        for spelling in row.forms:
            operator = declared.operator("aclnn" + spelling)
            if operator is None:
                raise LookupError("row %s: the vendor declares no aclnn%s" % (row.name, spelling))
            make(module, operator, row, inplace=False)
            twin = declared.operator("aclnnInplace" + spelling) if row.inplace else None
            if twin is not None:
                make(module, twin, row, inplace=True)


def make(module, operator, row, inplace):
    """The operator class of one form of `row`: declared `operator` (an opemu.ops.aclnn.declared.Operator)
    writing `out` (its last tensor), or its first operand when `inplace`."""
    params = tuple((name, _KIND.get(kind, "v")) for name, kind in operator.parameters)
    tensors = [name for name, kind in params if kind == "T"]
    target = tensors[0] if inplace else tensors[-1]   # InplaceAddV3 writes its first tensor, `other`
    if not inplace:
        params = tuple(p for p in params if p[0] != target)
    body = dict(__module__=module, name=operator.name, params=params, target=target, inplace=inplace,
                inputs=tuple(name for name, kind in params if kind == "T"), outputs=(target,),
                kernel=staticmethod(row.kernel), result=staticmethod(row.result) if callable(row.result) else row.result,
                alpha=row.alpha, optional=row.optional,
                in_dtypes=staticmethod(row.inplace_dtypes) if inplace else staticmethod(row.dtypes),
                out_dtypes=None if inplace or row.out is None else staticmethod(row.out),
                same_dtype=row.same_dtype, castable=row.castable, lines=row.lines,
                scalar_dtypes_checked=tuple(n for n, kind in params if kind == "S" and n != row.alpha)
                if row.scalar_checked else ())
    if row.check is not None:
        body["check_attributes"] = staticmethod(row.check)
    return type(operator.name[len("aclnn"):], (row.base,), body)
