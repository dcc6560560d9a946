"""aclnnApplyFusedEmaAdam: one Adam(W) step with an EMA of the weights, in place on var, m, v and s
(reference §4.9; ops-nn optim/apply_fused_ema_adam; seed 003).

    c1, c2 = (1 - beta1^step, 1 - beta2^step) if biasCorrection else (1, 1)
    g      = grad + weightDecay*var             (mode 0, L2)        g = grad (mode 1, AdamW)
    m      = beta1*m + (1-beta1)*g;   v = beta2*v + (1-beta2)*g*g
    update = (m/c1) / (sqrt(v/c2) + eps)  [+ weightDecay*var, mode 1; the old var]
    var    = var - lr*update;         s = emaDecay*s + (1-emaDecay)*var

As the kernel (op_kernel/apply_fused_ema_adam_f32.h, _f_bf16.h) does it: every scalar is cast to
fp32 (the generated op_api casts the doubles to float); `step` is the int64 at the step tensor's
address, read when the kernel runs and used as given (callers increment it), converted to fp32;
c = 1 - pow(beta, step) in fp32 and the divisions by c1, c2 are multiplications by their fp32
reciprocals; fp16/bf16 data is widened to fp32, computed in fp32 and rounded (nearest even) only
where it is stored, so m/c1, sqrt(v/c2) and the EMA use the unrounded m, v and var. A mode other
than 0 or 1 applies no weight decay and — the kernel never loads var then, its buffer holds grad —
computes var = grad - lr*update.

Phase 1 is the toolkit's generated op_api plus nnopbase and the tiling function:
* nulls, in parameter order: ACLNN_ERR_PARAM_NULLPTR "Check grad != nullptr failed";
* the dtype/format table (grad, var, m, v, s all FLOAT, all FLOAT16 or all BF16; step INT64; no
  private format): ACLNN_ERR_PARAM_INVALID "Io input dtype or format is not supported, ...";
* tiling: grad, var, m, v, s of one shape, else ACLNN_ERR_INNER_TILING_ERROR.
Nothing else: step's shape and size are not looked at (the kernel reads its first element; the
official sample passes a (2, 2) step holding floats), lr, betas, eps and mode are not range-checked.
Non-contiguous tensors are handled elementwise (nnopbase makes contiguous copies of them and copies
the results back). nnopbase itself rejects a product without a kernel binary (A2, A3, 950 here)
with ACLNN_ERR_INNER_FIND_KERNEL_ERROR before matching dtypes; opemu follows the project's rule
and answers ACLNN_ERR_RUNTIME_ERROR after the checks.
"""
import functools

import ml_dtypes
import numpy as np

from opemu.core import checks, dtypes, kernels, parallel, scratch, status
from opemu.core.op import AclnnOp
from opemu.core.tensor import TensorDesc
from opemu.ops.aclnn.common import products as _products

PRODUCTS = ("A2", "A3", "950")
DATA = ("grad", "varRef", "mRef", "vRef", "sRef")
IR_NAMES = {"grad": "grad", "varRef": "var", "mRef": "m", "vRef": "v", "sRef": "s", "step": "step"}
DATA_DTYPES = [dtypes.acl("FLOAT"), dtypes.acl("FLOAT16"), dtypes.acl("BF16")]
INT64 = dtypes.acl("INT64")
# Elements per step: the 19 ufunc calls of a step cost about a microsecond each whatever its size, and
# the step's 8 fp32 arrays (2 MiB) stay in cache from one call to the next; 64K steps measured ~9 %
# faster than 128K ones on one core.
CHUNK = 65536
PARALLEL_ELEMENTS = 1 << 18


class ApplyFusedEmaAdam(AclnnOp):
    name = "aclnnApplyFusedEmaAdam"
    inputs = ("grad", "varRef", "mRef", "vRef", "sRef", "step")
    outputs = ("varRef", "mRef", "vRef", "sRef")
    products = _products.describe(PRODUCTS)

    def dtype_table(self):
        return {"grad": DATA_DTYPES, "varRef": DATA_DTYPES, "mRef": DATA_DTYPES, "vRef": DATA_DTYPES,
                "sRef": DATA_DTYPES, "step": [INT64]}

    def check(self, a):
        for name in self.inputs:
            if getattr(a, name) is None:
                raise status.param_nullptr("Check %s != nullptr failed" % name)
        first = a.grad.dtype
        matched = (first in DATA_DTYPES and all(getattr(a, n).dtype == first for n in DATA)
                   and a.step.dtype == INT64
                   and not any(checks.is_private_format(getattr(a, n).format) for n in self.inputs))
        if not matched:
            raise status.param_invalid(_unsupported_io_message(a))
        shape = tuple(a.grad.shape)
        if any(tuple(getattr(a, n).shape) != shape for n in DATA):
            raise status.VendorError(status.ACLNN["ACLNN_ERR_INNER_TILING_ERROR"],
                                     "Input grad, var, m, v, s should keep equal shape. "
                                     "ApplyFusedEmaAdam do tiling failed, ret is -1.")
        _products.check_supported(self.name, PRODUCTS)
        # The kernel reads one int64 at step's address, whatever step's shape says.
        step = a.step
        a.step = TensorDesc(INT64, (1,), (1,), step.offset, step.format, step.storage_shape,
                            None if step.array is None else step.array.reshape(-1)[:1])
        a.scalars = _scalars(a.lr, a.emaDecay, a.beta1, a.beta2, a.eps, a.weightDecay)

    def workspace(self, a):
        return 0

    def compute(self, a, v, workspace):
        arrays = [v[n] for n in DATA]
        if arrays[0].size == 0:
            return
        r1, r2 = _reciprocal_corrections(a.scalars[0], a.scalars[1], int(v["step"][0]), a.biasCorrection)
        parts = parallel.WORKERS if arrays[0].size >= PARALLEL_ELEMENTS else 1
        c = _c_applies(arrays)
        if c and parts == 1 and _c_call(_c_constants(a.scalars, r1, r2), a.mode, arrays):
            return  # a small dense update: one kernel call
        k = _Constants(*a.scalars, r1, r2, a.mode)
        jobs = _split(list(_pieces(arrays)), parts)
        parallel.run(_c_pieces if c else _run_pieces, [(job, k) for job in jobs])


@functools.lru_cache(maxsize=64)
def _reciprocal_corrections(b1, b2, step, bias_correction):
    """fp32 1/c1, 1/c2 for `step`, c = 1 - beta^step in fp32 (1 without bias correction)."""
    if not bias_correction:
        return np.float32(1), np.float32(1)
    with np.errstate(all="ignore"):
        c1 = np.float32(1) - np.power(b1, np.float32(step), dtype=np.float32)
        c2 = np.float32(1) - np.power(b2, np.float32(step), dtype=np.float32)
        return np.float32(1) / c1, np.float32(1) / c2


def _scalars(lr, ema, beta1, beta2, eps, weight_decay):
    f = np.float32
    return f(beta1), f(beta2), f(ema), f(eps), f(lr), f(weight_decay)


class _Constants:
    """The step's fp32 scalars, as 0-d arrays: a ufunc takes those with less work than NumPy scalars."""

    def __init__(self, b1, b2, ema, eps, lr, wd, r1, r2, mode):
        self.c = _c_constants((b1, b2, ema, eps, lr, wd), r1, r2)
        f = np.float32
        held = [np.array(x, f) for x in (b1, b2, ema, eps, lr, wd, f(1) - b1, f(1) - b2, f(1) - ema, r1, r2)]
        (self.b1, self.b2, self.ema, self.eps, self.lr, self.wd, self.one_b1, self.one_b2, self.one_ema,
         self.r1, self.r2) = held
        self.mode = mode


def _unsupported_io_message(a):
    def info(names):
        return "".join("%s(%s, %s) " % (IR_NAMES[n], dtypes.serial_name(getattr(a, n).dtype),
                                        _format_name(getattr(a, n).format)) for n in names)
    return ("Io input dtype or format is not supported, get io input info is %s%sbut supported list is: %s"
            % (info(ApplyFusedEmaAdam.inputs), info(ApplyFusedEmaAdam.outputs),
               "; ".join("grad(%s, ND) var(%s, ND) m(%s, ND) v(%s, ND) s(%s, ND) step(DT_INT64, ND)"
                         % ((dtypes.serial_name(d),) * 5) for d in DATA_DTYPES)))


def _format_name(code):
    for name, value in dtypes.ACL_FORMAT.items():
        if value == code:
            return name.replace("ACL_FORMAT_", "").replace("ACL_", "")
    return "UNDEFINED(%d)" % code


def _pieces(arrays):
    """Aligned sub-views of the five arrays, about CHUNK elements each: flat slices when all are
    C-contiguous, else slabs along the leading axis (views, so results land in place)."""
    if all(x.flags.c_contiguous for x in arrays):
        flat = [x.reshape(-1) for x in arrays]
        for start in range(0, flat[0].size, CHUNK):
            yield [x[start:start + CHUNK] for x in flat]
        return
    if arrays[0].ndim == 0:
        yield [x.reshape(1) for x in arrays]
        return
    inner = max(1, arrays[0].size // arrays[0].shape[0])
    rows = max(1, CHUNK // inner)
    for start in range(0, arrays[0].shape[0], rows):
        yield [x[start:start + rows] for x in arrays]


def _split(pieces, parts):
    size = -(-len(pieces) // parts)
    return [pieces[i:i + size] for i in range(0, len(pieces), size)]


_C_TYPES = {np.dtype(np.float32): 0, np.dtype(np.float16): 1, np.dtype(ml_dtypes.bfloat16): 2}


def _c_applies(arrays):
    return arrays[0].dtype in _C_TYPES and kernels.lib() is not None


def _c_call(constants, mode, piece):
    """The kernel on one piece; False when it does not apply (a non-contiguous piece, or arrays that
    overlap: the kernel does each element's whole step at once, the reference's result only without)."""
    if not all(x.flags.c_contiguous for x in piece):
        return False
    mode = mode if mode in (0, 1) else 2   # the int64 attribute: every other mode acts alike
    return kernels.lib().opemu_kernel_ema_adam(_C_TYPES[piece[0].dtype], mode, kernels.address(constants),
                                               *[kernels.address(x) for x in piece], piece[0].size) == 0


@functools.lru_cache(maxsize=64)
def _c_constants(scalars, r1, r2):
    """The kernel's constant block: b1, b2, ema, eps, lr, wd, 1-b1, 1-b2, 1-ema, 1/c1, 1/c2 in fp32."""
    b1, b2, ema, eps, lr, wd = scalars
    f = np.float32
    return np.array([b1, b2, ema, eps, lr, wd, f(1) - b1, f(1) - b2, f(1) - ema, r1, r2], np.float32)


def _c_pieces(pieces, k):
    for piece in pieces:
        if not _c_call(k.c, k.mode, piece):
            _run_pieces([piece], k)


def _run_pieces(pieces, k):
    half = pieces[0][0].dtype != np.float32
    biggest = max(p[0].size for p in pieces)
    temps = [scratch.buffer("ema-adam-%d" % i, (biggest,), np.float32) for i in range(3)]
    wide = [scratch.buffer("ema-adam-wide-%d" % i, (biggest,), np.float32) for i in range(5)] if half else None
    with np.errstate(all="ignore"):
        for piece in pieces:
            _run_piece(piece, temps, wide, k)


def _run_piece(piece, temps, wide, k):
    n, shape = piece[0].size, piece[0].shape
    t = temps if temps[0].shape == shape else [x[:n].reshape(shape) for x in temps]
    if wide is None:
        _step(*piece, *t, k)
        return
    w = wide if wide[0].shape == shape else [x[:n].reshape(shape) for x in wide]
    for src, dst in zip(piece, w):
        np.copyto(dst, src)
    _step(*w, *t, k)
    for src, dst in zip(w[1:], piece[1:]):
        np.copyto(dst, src, casting="unsafe")  # round to nearest even


def _step(g, var, m, v, s, t1, t2, t3, k):
    """One fp32 update of the chunk, in place on var, m, v, s, in the kernel's order of operations
    (the third argument of each ufunc is its output)."""
    mul, add = np.multiply, np.add
    if k.mode == 0:
        mul(var, k.wd, t1)
        add(t1, g, t1)
        g = t1
    mul(m, k.b1, m)
    mul(g, k.one_b1, t2)
    add(t2, m, m)                      # m_out
    mul(g, g, t3)
    mul(t3, k.one_b2, t3)
    mul(v, k.b2, v)
    add(t3, v, v)                      # v_out
    mul(m, k.r1, t2)                   # m_out / c1
    mul(v, k.r2, t3)
    np.sqrt(t3, t3)
    add(t3, k.eps, t3)                 # sqrt(v_out / c2) + eps
    np.divide(t2, t3, t2)              # update
    base = var
    if k.mode == 1:
        mul(var, k.wd, t3)
        add(t2, t3, t2)
    elif k.mode != 0:
        base = g                       # var's buffer holds grad in the kernel
    mul(t2, k.lr, t2)
    np.subtract(base, t2, var)         # var_out
    mul(var, k.one_ema, t2)
    mul(s, k.ema, s)
    add(s, t2, s)                      # s_out
