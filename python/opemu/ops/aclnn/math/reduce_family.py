"""The ops-math reductions over a list of dims or one dim (reduce_var, reduce_std_*, reduce_log_sum*, reduce_nansum,
reduce_prod, reduce_all/any, reduce_max/min's Max/Min/MaxV2/Aminmax*, arg_min, arg_*_with_value, reduce_mean's
MeanV2 and the global pools): one class, one row (a subclass) per operator, declaring what its op_api checks.

A row names its tensors (`self_name`, `outs`), its dims parameter (`dims`: an aclIntArray, or one int64 when
`one_dim`; None reduces every axis), its keep-dims parameter, the dtype lists (`allowed` for self, `out_allowed`
for the outputs, `out_like_self` where out must have self's dtype (the
op_api's two wordings), `castable` where self's dtype must cast to
out's), the op_api's messages for a dim out of range, a dim given twice and a reduced dim of size zero, and a
kernel: (x in the compute dtype, axes, keepdims, args) → one array per output. Phase 1 runs nulls → dtypes →
dims → ranks → output shapes (ranks before dims where `ranks_first`) unless the row reorders `check`. An empty list reduces every axis (a row with
`noop` says which parameter makes it the identity instead); fp16/bf16 compute in fp32 and round once into out;
an empty self fills the outputs with `empty_value` (None leaves them untouched, as the op_api returns early)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P

RANGE = "Provided dim %(dim)d must be in the range of [%(lo)d, %(hi)d]."
TWICE = "Dim %(index)d appears multiple times in the list of dims."
NONZERO = "Expected reducution dim %(index)d to have non-zero size."
EXPECTED = "Expected dim to be in range of [%(lo)d, %(hi)d], but got %(dim)d."
TORCH_RANGE = "Dimension out of range (expected to be in range of [%(lo)d, %(hi)d], but got %(dim)d)"


class Reduce(AclnnOp):
    self_name = "self"
    outs = ("out",)
    dims = "dim"            # the dims parameter (None: every axis)
    one_dim = False         # dims is one int64, not an aclIntArray
    dims_may_be_null = False
    keep = "keepdim"        # the keep-dims parameter (None: never kept)
    noop = None             # the parameter that makes an empty dims list the identity (MeanV2, MaxV2 …)
    allowed = None          # callable → self's dtype list
    out_allowed = None      # callable → the outputs' dtype list (None: not checked)
    out_like_self = None    # "match": OP_CHECK_DTYPE_NOT_MATCH(out, self's dtype); "same": OP_CHECK_DTYPE_NOT_SAME
    castable = False        # OP_CHECK_RESULT_DTYPE_CAST_FAILED(self, out)
    range_message, twice_message, nonzero_message = RANGE, TWICE, None
    empty_value = None
    ranks_first = False     # the op_api checks ranks before the dims
    kernel = None

    def __init_subclass__(cls, **kwargs):
        cls.inputs, cls.outputs = (cls.self_name,), tuple(cls.outs)
        super().__init_subclass__(**kwargs)

    def dtype_table(self):
        table = {self.self_name: self.allowed()}
        for name in self.outs:
            table[name] = self.out_allowed() if self.out_allowed else self.allowed()
        return table

    def check(self, a):
        self.check_nulls(a)
        self.check_dtypes(a)
        if self.ranks_first:
            self.check_ranks(a)
        self.check_dims(a)
        if not self.ranks_first:
            self.check_ranks(a)
        self.check_shapes(a)

    def check_nulls(self, a):
        names = [self.self_name] + ([self.dims] if self.dims and not self.one_dim and not self.dims_may_be_null
                                    else []) + list(self.outs)
        checks.not_null(a, *names)

    def check_dtypes(self, a):
        x = getattr(a, self.self_name)
        checks.dtype_in(self.self_name, x, self.allowed())
        for name in self.outs:
            out = getattr(a, name)
            if self.out_allowed is not None:
                checks.dtype_in(name, out, self.out_allowed())
            if self.out_like_self == "match":
                checks.dtype_match(name, out, x.dtype)
            elif self.out_like_self == "same":
                checks.same_dtype(self.self_name, x, name, out)
            if self.castable:
                checks.result_castable(x.dtype, out.dtype)

    def given_dims(self, a):
        if self.dims is None:
            return ()
        value = getattr(a, self.dims)
        if self.one_dim:
            return (value,)
        return tuple(value) if value is not None else ()

    def check_dims(self, a):
        x = getattr(a, self.self_name)
        ndim, seen = max(x.ndim, 1), []
        for d in self.given_dims(a):
            if not -ndim <= d < ndim:
                raise status.param_invalid(self.range_message % dict(dim=d, lo=-ndim, hi=ndim - 1, ndim=x.ndim))
            index = d % ndim
            if self.nonzero_message and x.ndim and x.shape[index] == 0:
                raise status.param_invalid(self.nonzero_message % dict(index=index, dim=d))
            if index in seen:
                raise status.param_invalid(self.twice_message % dict(index=index, dim=d))
            seen.append(index)
        if x.ndim == 0:
            a.axes = ()
        elif seen:
            a.axes = tuple(sorted(seen))
        elif self.noop is not None and getattr(a, self.noop) and self.dims is not None:
            a.axes = ()
        else:
            a.axes = tuple(range(x.ndim))
        a.keepdims = bool(getattr(a, self.keep)) if self.keep else False

    def check_ranks(self, a):
        for name in (self.self_name,) + tuple(self.outs):
            checks.max_dim(name, getattr(a, name))

    def out_shape(self, a):
        x = getattr(a, self.self_name)
        return tuple(1 if i in a.axes else n for i, n in enumerate(x.shape) if a.keepdims or i not in a.axes)

    def check_shapes(self, a):
        shape = self.out_shape(a)
        for name in self.outs:
            checks.shape_is(name, getattr(a, name), shape, checks.shape_text(shape))

    def compute(self, a, v, workspace):
        x = v[self.self_name]
        if x.size == 0:
            if self.empty_value is not None:
                for name in self.outs:
                    v[name][...] = self.empty_value
            return
        ct = P.compute_type(dtypes.ACL_OF[x.dtype]) if x.dtype.kind in "fV" else x.dtype
        with np.errstate(all="ignore"):   # inf and NaN are results on the device
            results = self.kernel(P.as_compute(x, ct), a.axes, a.keepdims, a)
            for name, result in zip(self.outs, results if isinstance(results, tuple) else (results,)):
                P.store(v[name], np.reshape(result, v[name].shape))

