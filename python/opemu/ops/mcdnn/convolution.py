"""Convolutions: mcdnnConvolutionForward / BackwardData / BackwardFilter / BackwardBias,
mcdnnConvolutionBiasActivationForward, mcdnnIm2Col, and the algorithm queries (Get…WorkspaceSize,
Get…Algorithm_v7, Find…Algorithm, Find…AlgorithmEx), with cuDNN 8's semantics under MACA names.

Configurations (cuDNN's tables): 2-D and 3-D (4-D and 5-D tensors, else NOT_SUPPORTED); integer data has
configurations of its own (conv_int8); floating x, w, y of one data type (BAD_PARAM otherwise); FLOAT data computes in FLOAT, HALF in HALF or FLOAT, BFLOAT16 in FLOAT,
DOUBLE in DOUBLE (other pairs NOT_SUPPORTED). opemu accumulates HALF, BFLOAT16 and FLOAT data in fp32
(tensor-op accumulators are fp32) and rounds once when writing; TENSOR_OP_MATH_ALLOW_CONVERSION on FLOAT
data first rounds x and w to fp16, as cuDNN documents that math type may. y = alpha*conv + beta*y, y not
read when beta = 0. MCDNN_CONVOLUTION flips the filter; MCDNN_CROSS_CORRELATION does not.

Algorithms. opemu emulates the GEMM family: forward IMPLICIT_GEMM, IMPLICIT_PRECOMP_GEMM and GEMM,
backward-data ALGO_0 and ALGO_1, backward-filter ALGO_0, ALGO_1 and ALGO_3; all compute the same
sums in the same order, so they agree exactly. The explicit-GEMM ones (forward GEMM, backward ALGO_1,
filter ALGO_1 and ALGO_3) keep their im2col buffer and padded image in the app's workspace (their
workspace size is those bytes; a smaller workspace is BAD_PARAM); the implicit ones need none. FFT,
Winograd and direct kernels are not emulated: NOT_SUPPORTED, in the size queries and the routines
alike, and listed last by Find with that status."""
import os
import time

import numpy as np

from opemu.core import device, mcdnn
from opemu.core.headers import enum
from opemu.core.mcdnn import DATA, ACTIVATION
from opemu.core.status import VendorError
from opemu.ops.mcdnn import conv_int8
from opemu.ops.mcdnn import conv_kernel as kernel
from opemu.ops.mcdnn.descriptors import Bytes

_CNN = "mcdnn/mcdnn_cnn_infer.h"
_INFER = "mcdnn/mcdnn_ops_infer.h"
MODE = enum(_CNN, "mcdnnConvolutionMode_t")
MATH = enum(_INFER, "mcdnnMathType_t")
FWD = enum(_INFER, "mcdnnConvolutionFwdAlgo_t")
BWD_DATA = enum(_INFER, "mcdnnConvolutionBwdDataAlgo_t")
BWD_FILTER = enum(_INFER, "mcdnnConvolutionBwdFilterAlgo_t")
SUCCESS = mcdnn.STATUS["MCDNN_STATUS_SUCCESS"]
DETERMINISTIC = enum(_INFER, "mcdnnDeterminism_t")["MCDNN_DETERMINISTIC"]

FLOAT, DOUBLE, HALF, BF16 = (DATA[n] for n in ("MCDNN_DATA_FLOAT", "MCDNN_DATA_DOUBLE", "MCDNN_DATA_HALF",
                                               "MCDNN_DATA_BFLOAT16"))
_COMPUTE_TYPES = {FLOAT: (FLOAT,), HALF: (HALF, FLOAT), BF16: (FLOAT,), DOUBLE: (DOUBLE,)}


class Family:
    """One direction's algorithms: which opemu emulates, which keep their scratch in the workspace."""

    def __init__(self, enum_values, implicit, explicit, prefix, filter_gradient=False):
        self.filter_gradient = filter_gradient
        self.count = enum_values[prefix + "COUNT"]
        self.implicit = {enum_values[prefix + n] for n in implicit}
        self.explicit = {enum_values[prefix + n] for n in explicit}
        self.names = {v: k for k, v in enum_values.items() if not k.endswith("COUNT")}

    def check(self, algo, g=None):
        if not 0 <= algo < self.count:
            raise mcdnn.bad_param("invalid algorithm %d" % algo)
        if algo not in self.implicit | self.explicit:
            raise mcdnn.not_supported("%s is not emulated by opemu (only the GEMM-based algorithms are)"
                                      % self.names[algo])
        if algo not in getattr(g, "algorithms", (algo,)):
            raise mcdnn.not_supported("%s does not run this integer configuration" % self.names[algo])

    def workspace(self, algo, g, ct):
        return kernel.scratch_bytes(g, ct, self.filter_gradient) if algo in self.explicit else 0

    def scratch(self, g, ct, workspace):
        """The chunk buffers of this direction, carved from `workspace` (None: host memory)."""
        return kernel.Scratch(g, ct, workspace, self.filter_gradient)

    def heuristic_order(self):
        """Emulated algorithms first, the workspace-free ones before the others, then the rest."""
        ranked = sorted(self.implicit) + sorted(self.explicit)
        return ranked + [a for a in range(self.count) if a not in ranked]


FORWARD = Family(FWD, ("IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM"), ("GEMM",), "MCDNN_CONVOLUTION_FWD_ALGO_")
BACKWARD_DATA = Family(BWD_DATA, ("0",), ("1",), "MCDNN_CONVOLUTION_BWD_DATA_ALGO_")
BACKWARD_FILTER = Family(BWD_FILTER, ("0",), ("1", "3"), "MCDNN_CONVOLUTION_BWD_FILTER_ALGO_", filter_gradient=True)


# ---- checks ----

_SCRATCH_LIMIT = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2


def configuration(x, w, y, conv, y_name="yDesc", forward=False):
    """BAD_PARAM / NOT_SUPPORTED for an inconsistent or unsupported (x, w, y, conv); returns the
    Geometry and the compute dtype (integer data: conv_int8's)."""
    if x.ndim not in (4, 5):
        raise mcdnn.not_supported("only 2-D and 3-D convolutions (4-D and 5-D tensors) are supported, "
                                  "the tensors are %d-D" % x.ndim)
    if w.ndim != x.ndim or y.ndim != x.ndim or len(conv.pad) != x.ndim - 2:
        raise mcdnn.bad_param("the filter (%d-D), tensors (%d-D, %d-D) and convolution (%d spatial dims) disagree"
                              % (w.ndim, x.ndim, y.ndim, len(conv.pad)))
    algorithms = conv_int8.check(x, w, y, conv, y_name, forward) if conv_int8.involved(x, w, y) else None
    if algorithms is None:
        _floating_configuration(x, w, y, conv, y_name)
    if w.shape[1] * conv.groups != x.shape[1] or w.shape[0] % conv.groups:
        raise mcdnn.not_supported("%s data with compute type %s is not a supported configuration"
                                  % (mcdnn.type_name(x.dtype_code), mcdnn.type_name(conv.compute)))
        raise mcdnn.bad_param("x has %d feature maps, the filter %d per group x %d groups and %d outputs"
                              % (x.shape[1], w.shape[1], conv.groups, w.shape[0]))
    g = (kernel.Geometry if algorithms is None else conv_int8.Int8Geometry)(
        x.shape, w.shape, conv.pad, conv.stride, conv.dilation, conv.groups, conv.mode == MODE["MCDNN_CONVOLUTION"])
    ct = x.compute_dtype if algorithms is None else conv_int8.SUMS
    if algorithms is not None:
        g.tensors, g.algorithms = (x, w, y), algorithms
    if any(o <= 0 for o in g.out):
        raise mcdnn.bad_param("the dilated filter is larger than the padded input")
    expected = (x.shape[0], w.shape[0]) + g.out
    if y.shape != expected:
        raise mcdnn.bad_param("%s has dims %s, the convolution gives %s" % (y_name, list(y.shape), list(expected)))
    scratch = max(kernel.scratch_bytes(g, ct, filter_gradient) for filter_gradient in (False, True))
    if scratch > _SCRATCH_LIMIT:   # opemu pads the input whole; the device's implicit GEMM needs no such buffer
        raise mcdnn.not_supported("opemu computes convolutions on the padded input: this one's scratch for one "
                                  "image, %d bytes, is more than half of this host's memory" % scratch)
    return g, ct


def _floating_configuration(x, w, y, conv, y_name):
    mcdnn.same_type(mcdnn.bad_param, ("xDesc", x), ("wDesc", w), (y_name, y))
    if x.dtype_code not in _COMPUTE_TYPES:
        raise mcdnn.not_supported("convolutions of %s data are not supported" % mcdnn.type_name(x.dtype_code))
    if conv.compute not in _COMPUTE_TYPES[x.dtype_code]:
        raise mcdnn.not_supported("%s data with compute type %s is not a supported configuration"
                                  % (mcdnn.type_name(x.dtype_code), mcdnn.type_name(conv.compute)))


def _workspace(a, family, algo, g, ct, pointer="workSpace", size="workSpaceSizeInBytes"):
    family.check(algo, g)
    need = family.workspace(algo, g, ct)
    have = getattr(a, size)
    if need and (have < need or mcdnn.is_null(getattr(a, pointer))):
        raise mcdnn.bad_param("%s needs a workspace of %d bytes, got %d at %s"
                              % (family.names[algo], need, have, getattr(a, pointer)))
    a.workspace_bytes = Bytes(need) if need else None
    return need


def _scaling(a, names, tensor):
    return [mcdnn.scaling(getattr(a, n), tensor, n) for n in names]


def _scratch(v, family, g, ct):
    return family.scratch(g, ct, v.get("workSpace") if v else None)


# ---- the three directions, on NumPy arrays (the routines' views, or Find's own buffers) ----

def _operand(array, conv, data_code, ct):
    """An operand in the compute dtype; ALLOW_CONVERSION rounds FLOAT data to fp16 first."""
    if data_code == FLOAT and conv.math == MATH["MCDNN_TENSOR_OP_MATH_ALLOW_CONVERSION"]:
        array = array.astype(np.float16)
    return np.asarray(array, dtype=ct)


def forward(x, w, y, g, ct, conv, data_code, scratch, emit, plain=False):
    """emit(y[lo:hi], conv(x)[lo:hi] in the compute dtype, lo) for every chunk of images; `plain`: emit writes
    the result as it is (alpha 1, beta 0), so the kernel may write it into y itself."""
    wmat = kernel.weights(_operand(w, conv, data_code, ct), g, ct)
    for lo, hi in kernel.chunks(g, scratch):
        target = kernel.direct_target(y[lo:hi], ct) if plain else None
        result = kernel.forward_chunk(_operand(x[lo:hi], conv, data_code, ct), wmat, g, scratch, target)
        if result is not None:
            emit(y[lo:hi], result, lo)


def backward_data(w, dy, dx, g, ct, conv, data_code, scratch, alpha, beta):
    wmat = kernel.weights(_operand(w, conv, data_code, ct), g, ct)
    scratch = kernel.backward_data_scratch(wmat, g, scratch)
    plain = alpha == 1 and beta == 0
    for lo, hi in kernel.chunks(g, scratch):
        target = kernel.direct_target(dx[lo:hi], ct) if plain else None
        result = kernel.backward_data_chunk(_operand(dy[lo:hi], conv, data_code, ct), wmat, g, scratch, target)
        if result is not None:
            mcdnn.write_split(dx[lo:hi], result, alpha, beta)


def backward_filter(x, dy, dw, g, ct, conv, data_code, scratch, alpha, beta):
    def operands(lo, hi):
        return _operand(x[lo:hi], conv, data_code, ct), _operand(dy[lo:hi], conv, data_code, ct)
    acc = kernel.backward_filter(operands, g, scratch, ct)
    mcdnn.write(dw, np.array(kernel.unflip(acc, g)), alpha, beta)


def _plain_forward(x, w, y, g, ct, conv, code, scratch):
    if isinstance(g, conv_int8.Int8Geometry):
        conv_int8.forward(x, w, y, g, 1.0, 0.0)
        return
    forward(x, w, y, g, ct, conv, code, scratch, lambda y_chunk, acc, lo: mcdnn.write_split(y_chunk, acc, 1.0, 0.0),
            plain=True)


def _plain_backward_data(w, dy, dx, g, ct, conv, code, scratch):
    backward_data(w, dy, dx, g, ct, conv, code, scratch, 1.0, 0.0)


def _plain_backward_filter(x, dy, dw, g, ct, conv, code, scratch):
    backward_filter(x, dy, dw, g, ct, conv, code, scratch, 1.0, 0.0)


class Direction:
    """How the queries of one direction name their descriptors and run it.
    roles: (input tensor, filter, output tensor) as (parameter names of GetWorkspaceSize, Get…_v7, Find…,
    Find…Ex data pointers); `run(a, b, out, …)` takes its operands in that order."""

    def __init__(self, family, perf_type, workspace_roles, heuristic_roles, find_roles, data_roles, run,
                 configure_order):
        self.family, self.perf_type, self.run = family, perf_type, run
        self.roles = {"workspace": workspace_roles, "heuristic": heuristic_roles, "find": find_roles}
        self.data_roles = data_roles
        self.configure_order = configure_order   # indexes of (x, w, y) within the roles

    def configure(self, a, kind):
        names = self.roles[kind]
        mcdnn.require(a, *(names + ("convDesc",)))
        x, w, y = (getattr(a, names[i]) for i in self.configure_order)
        return configuration(x, w, y, a.convDesc, names[self.configure_order[2]], self.family is FORWARD)


FORWARD_DIRECTION = Direction(
    FORWARD, "mcdnnConvolutionFwdAlgoPerf_t", ("xDesc", "wDesc", "yDesc"), ("srcDesc", "filterDesc", "destDesc"),
    ("xDesc", "wDesc", "yDesc"), ("x", "w", "y"), _plain_forward, (0, 1, 2))
BACKWARD_DATA_DIRECTION = Direction(
    BACKWARD_DATA, "mcdnnConvolutionBwdDataAlgoPerf_t", ("wDesc", "dyDesc", "dxDesc"),
    ("filterDesc", "diffDesc", "gradDesc"), ("wDesc", "dyDesc", "dxDesc"), ("w", "dy", "dx"),
    _plain_backward_data, (2, 0, 1))
BACKWARD_FILTER_DIRECTION = Direction(
    BACKWARD_FILTER, "mcdnnConvolutionBwdFilterAlgoPerf_t", ("xDesc", "dyDesc", "gradDesc"),
    ("srcDesc", "diffDesc", "gradDesc"), ("xDesc", "dyDesc", "dwDesc"), ("x", "y", "dw"),
    _plain_backward_filter, (0, 2, 1))


# ---- the routines ----

class ConvolutionForward(mcdnn.McdnnOp):
    name = "mcdnnConvolutionForward"
    tensors = {"x": "xDesc", "w": "wDesc", "y": "yDesc", "workSpace": "workspace_bytes"}
    outputs = ("y", "workSpace")   # the workspace is scratch: written before it is read
    vector_types = True

    def check(self, a):
        mcdnn.require(a, "xDesc", "wDesc", "convDesc", "yDesc", "x", "w", "y")
        a.alpha_value, a.beta_value = _scaling(a, ("alpha", "beta"), a.xDesc)
        a.geometry, a.ct = configuration(a.xDesc, a.wDesc, a.yDesc, a.convDesc, forward=True)
        _workspace(a, FORWARD, a.algo, a.geometry, a.ct)

    def compute(self, a, v):
        if isinstance(a.geometry, conv_int8.Int8Geometry):
            conv_int8.forward(v["x"], v["w"], v["y"], a.geometry, a.alpha_value, a.beta_value)
            return
        forward(v["x"], v["w"], v["y"], a.geometry, a.ct, a.convDesc, a.xDesc.dtype_code,
                _scratch(v, FORWARD, a.geometry, a.ct),
                lambda y_chunk, acc, lo: mcdnn.write_split(y_chunk, acc, a.alpha_value, a.beta_value),
                plain=a.alpha_value == 1 and a.beta_value == 0)


class ConvolutionBiasActivationForward(mcdnn.McdnnOp):
    """y = act(alpha1 * conv(x) + alpha2 * z + bias); act RELU or IDENTITY (IDENTITY only with
    IMPLICIT_PRECOMP_GEMM, as cuDNN requires), bias 1 x K x 1 x 1 (x 1)."""
    name = "mcdnnConvolutionBiasActivationForward"
    tensors = {"x": "xDesc", "w": "wDesc", "z": "zDesc", "bias": "biasDesc", "y": "yDesc",
               "workSpace": "workspace_bytes"}
    outputs = ("y", "workSpace")
    vector_types = True

    def check(self, a):
        mcdnn.require(a, "xDesc", "wDesc", "convDesc", "zDesc", "biasDesc", "activationDesc", "yDesc", "x", "w", "z",
                      "bias", "y")
        a.alpha1_value, a.alpha2_value = _scaling(a, ("alpha1", "alpha2"), a.xDesc)
        a.geometry, a.ct = configuration(a.xDesc, a.wDesc, a.yDesc, a.convDesc, forward=True)
        mcdnn.same_dims(mcdnn.bad_param, ("yDesc", a.yDesc), ("zDesc", a.zDesc))
        if isinstance(a.geometry, conv_int8.Int8Geometry):
            conv_int8.check_bias_activation(a)
        else:   # cuDNN's configurations for floating data: z and bias of y's type
            mcdnn.same_type(mcdnn.not_supported, ("yDesc", a.yDesc), ("zDesc", a.zDesc), ("biasDesc", a.biasDesc))
        bias_shape = (1, a.wDesc.shape[0]) + (1,) * (a.xDesc.ndim - 2)
        if a.biasDesc.shape != bias_shape:
            raise mcdnn.bad_param("biasDesc has dims %s, expected %s" % (list(a.biasDesc.shape), list(bias_shape)))
        mode = a.activationDesc.mode
        if mode not in (ACTIVATION["MCDNN_ACTIVATION_RELU"], ACTIVATION["MCDNN_ACTIVATION_IDENTITY"]):
            raise mcdnn.not_supported("the activation must be RELU or IDENTITY")
        if (mode == ACTIVATION["MCDNN_ACTIVATION_IDENTITY"]
                and a.algo != FWD["MCDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM"]):
            raise mcdnn.not_supported("IDENTITY activation needs MCDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM")
        _workspace(a, FORWARD, a.algo, a.geometry, a.ct)

    def compute(self, a, v):
        ct = a.ct
        relu = a.activationDesc.mode == ACTIVATION["MCDNN_ACTIVATION_RELU"]
        if isinstance(a.geometry, conv_int8.Int8Geometry):
            conv_int8.bias_activation(a, v, relu)
            return
        bias = np.asarray(v["bias"], dtype=ct).reshape((-1,) + (1,) * (a.xDesc.ndim - 2))

        def emit(y_chunk, acc, lo):
            acc *= ct.type(a.alpha1_value)
            if a.alpha2_value != 0:
                acc += ct.type(a.alpha2_value) * v["z"][lo:lo + len(acc)].astype(ct)
            acc += bias
            if relu:
                np.maximum(acc, 0, out=acc)
            y_chunk[...] = acc
        forward(v["x"], v["w"], v["y"], a.geometry, ct, a.convDesc, a.xDesc.dtype_code, _scratch(v, FORWARD, a.geometry, ct),
                emit)


class ConvolutionBackwardData(mcdnn.McdnnOp):
    name = "mcdnnConvolutionBackwardData"
    tensors = {"w": "wDesc", "dy": "dyDesc", "dx": "dxDesc", "workSpace": "workspace_bytes"}
    outputs = ("dx", "workSpace")

    def check(self, a):
        mcdnn.require(a, "wDesc", "dyDesc", "convDesc", "dxDesc", "w", "dy", "dx")
        a.alpha_value, a.beta_value = _scaling(a, ("alpha", "beta"), a.dxDesc)
        a.geometry, a.ct = configuration(a.dxDesc, a.wDesc, a.dyDesc, a.convDesc, "dyDesc")
        _workspace(a, BACKWARD_DATA, a.algo, a.geometry, a.ct)

    def compute(self, a, v):
        backward_data(v["w"], v["dy"], v["dx"], a.geometry, a.ct, a.convDesc, a.dxDesc.dtype_code,
                      _scratch(v, BACKWARD_DATA, a.geometry, a.ct), a.alpha_value, a.beta_value)


class ConvolutionBackwardFilter(mcdnn.McdnnOp):
    name = "mcdnnConvolutionBackwardFilter"
    tensors = {"x": "xDesc", "dy": "dyDesc", "dw": "dwDesc", "workSpace": "workspace_bytes"}
    outputs = ("dw", "workSpace")

    def check(self, a):
        mcdnn.require(a, "xDesc", "dyDesc", "convDesc", "dwDesc", "x", "dy", "dw")
        a.alpha_value, a.beta_value = _scaling(a, ("alpha", "beta"), a.xDesc)
        a.geometry, a.ct = configuration(a.xDesc, a.dwDesc, a.dyDesc, a.convDesc, "dyDesc")
        _workspace(a, BACKWARD_FILTER, a.algo, a.geometry, a.ct)

    def compute(self, a, v):
        backward_filter(v["x"], v["dy"], v["dw"], a.geometry, a.ct, a.convDesc, a.xDesc.dtype_code,
                        _scratch(v, BACKWARD_FILTER, a.geometry, a.ct), a.alpha_value, a.beta_value)


class ConvolutionBackwardBias(mcdnn.McdnnOp):
    """db = alpha * sum of dy over the batch and spatial dims + beta * db; db is 1 x K x 1 x 1 (x 1)."""
    name = "mcdnnConvolutionBackwardBias"
    tensors = {"dy": "dyDesc", "db": "dbDesc"}
    outputs = ("db",)

    def check(self, a):
        mcdnn.require(a, "dyDesc", "dbDesc", "dy", "db")
        a.alpha_value, a.beta_value = _scaling(a, ("alpha", "beta"), a.dyDesc)
        mcdnn.same_type(mcdnn.bad_param, ("dyDesc", a.dyDesc), ("dbDesc", a.dbDesc))
        mcdnn.floating("dyDesc", a.dyDesc)
        expected = (1, a.dyDesc.shape[1]) + (1,) * (a.dyDesc.ndim - 2)
        if a.dbDesc.shape != expected:
            raise mcdnn.bad_param("dbDesc has dims %s, expected %s" % (list(a.dbDesc.shape), list(expected)))

    def compute(self, a, v):
        axes = (0,) + tuple(range(2, a.dyDesc.ndim))
        total = v["dy"].sum(axis=axes, dtype=a.dyDesc.compute_dtype, keepdims=True)
        mcdnn.write(v["db"], total, a.alpha_value, a.beta_value)


class Im2Col(mcdnn.McdnnOp):
    """colBuffer holds, image after image, the (C*RS, out…) matrix the forward GEMM multiplies (rows
    (channel, window offset), columns the output positions), in x's data type: opemu's layout, since the
    public documents do not give cuDNN's."""
    name = "mcdnnIm2Col"
    tensors = {"x": "xDesc", "colBuffer": "cols_bytes"}
    outputs = ("colBuffer",)

    def check(self, a):
        mcdnn.require(a, "xDesc", "wDesc", "convDesc", "x", "colBuffer")
        x, w, conv = a.xDesc, a.wDesc, a.convDesc
        out = tuple((s + 2 * p - ((r - 1) * d + 1)) // st + 1
                    for s, p, r, d, st in zip(x.shape[2:], conv.pad, w.shape[2:], conv.dilation, conv.stride))
        y = mcdnn.Tensor(x.dtype_code, (x.shape[0], w.shape[0]) + out, [1] * x.ndim)
        copy_only = mcdnn.Struct(**dict(conv.__dict__, compute=_COMPUTE_TYPES.get(x.dtype_code, (conv.compute,))[0]))
        a.geometry, a.ct = configuration(x, w, y, copy_only)   # a copy: any compute type will do
        a.cols_bytes = Bytes(x.shape[0] * a.geometry.cols_elements() * x.dtype.itemsize)

    def compute(self, a, v):
        g = a.geometry
        cols = v["colBuffer"].view(a.xDesc.dtype).reshape(g.n, g.c * g.rs, g.l)
        scratch = kernel.ColumnScratch(g, a.xDesc.dtype)
        for lo, hi in kernel.chunks(g, scratch):
            cols[lo:hi] = kernel.im2col(v["x"][lo:hi], g, scratch).reshape(g.c * g.rs, hi - lo, g.l).swapaxes(0, 1)


# ---- workspace sizes and algorithm queries (answered at the call) ----

class _WorkspaceSize(mcdnn.McdnnOp):
    host_only = True
    direction = None

    def check(self, a):
        a.geometry, a.ct = self.direction.configure(a, "workspace")
        mcdnn.require(a, "sizeInBytes")
        self.direction.family.check(a.algo, a.geometry)

    def compute(self, a, v):
        device.ffi.cast("size_t *", a.sizeInBytes)[0] = self.direction.family.workspace(a.algo, a.geometry, a.ct)


class _Ranked(mcdnn.McdnnOp):
    """Get…Algorithm_v7 (heuristics: nothing runs, time -1) and Find…Algorithm(Ex) (every algorithm runs and
    is timed in milliseconds, fastest first; one that cannot run follows with its status and time -1)."""
    host_only = True
    direction = None
    kind = "heuristic"

    def check(self, a):
        a.geometry, a.ct = self.direction.configure(a, self.kind)
        mcdnn.require(a, "returnedAlgoCount", "perfResults")
        if a.requestedAlgoCount <= 0:
            raise mcdnn.bad_param("requestedAlgoCount %d must be positive" % a.requestedAlgoCount)

    def compute(self, a, v):
        family = self.direction.family
        rows = []
        for algo in family.heuristic_order():
            try:
                family.check(algo, a.geometry)
                memory = family.workspace(algo, a.geometry, a.ct)
                rows.append((0, self.measure(a, algo, memory), algo, SUCCESS, memory))
            except VendorError as error:
                rows.append((1, -1.0, algo, error.code, 0))
        rows.sort(key=lambda r: (r[0], r[1]))   # stable: heuristics keep their order
        out = device.ffi.cast(self.direction.perf_type + " *", a.perfResults)
        count = min(a.requestedAlgoCount, len(rows))
        for i, (_, elapsed, algo, status, memory) in enumerate(rows[:count]):
            out[i].algo, out[i].status, out[i].time, out[i].memory = algo, status, elapsed, memory
            out[i].determinism, out[i].mathType = DETERMINISTIC, a.convDesc.math
        device.ffi.cast("int *", a.returnedAlgoCount)[0] = count

    def measure(self, a, algo, memory):
        return -1.0

    def operands(self, a):
        """The (input, filter, output) arrays an algorithm runs on."""
        raise NotImplementedError

    def timed(self, a, algo, memory, workspace):
        operands = self.operands(a)
        scratch = self.direction.family.scratch(a.geometry, a.ct, workspace[:memory] if memory else None)
        start = time.perf_counter()
        self.direction.run(*operands, a.geometry, a.ct, a.convDesc, self.data_code(a), scratch)
        return (time.perf_counter() - start) * 1e3

    def data_code(self, a):
        return getattr(a, self.direction.roles[self.kind][0]).dtype_code


class _Find(_Ranked):
    """Find…Algorithm: runs each algorithm on buffers of its own (cuDNN allocates them on the device)."""
    kind = "find"

    def operands(self, a):
        return [np.zeros(getattr(a, name).shape, getattr(a, name).dtype) for name in self.direction.roles["find"]]

    def measure(self, a, algo, memory):
        return self.timed(a, algo, memory, np.empty(memory, np.uint8))


class _FindEx(_Ranked):
    """Find…AlgorithmEx: runs on the app's buffers (the output is overwritten) and workspace; an algorithm
    needing more workspace than given answers MCDNN_STATUS_ALLOC_FAILED."""
    kind = "find"

    def check(self, a):
        super().check(a)
        for pointer in self.direction.data_roles:
            mcdnn.require(a, pointer)
        if a.workSpaceSizeInBytes and mcdnn.is_null(a.workSpace):
            raise mcdnn.bad_param("workSpace is null but workSpaceSizeInBytes is %d" % a.workSpaceSizeInBytes)

    def operands(self, a):
        return [device.view_at(getattr(a, pointer), getattr(a, name).geometry())
                for pointer, name in zip(self.direction.data_roles, self.direction.roles["find"])]

    def measure(self, a, algo, memory):
        if memory > a.workSpaceSizeInBytes:
            raise VendorError(mcdnn.STATUS["MCDNN_STATUS_ALLOC_FAILED"], "workspace too small")
        workspace = device.view_at(a.workSpace, Bytes(memory).geometry()) if memory else None
        return self.timed(a, algo, memory, workspace)


def _queries(direction, workspace_name, heuristic_name, find_name):
    for base, name in ((_WorkspaceSize, workspace_name), (_Ranked, heuristic_name), (_Find, find_name),
                       (_FindEx, find_name + "Ex")):
        type(name[len("mcdnn"):], (base,), {"name": name, "direction": direction})


_queries(FORWARD_DIRECTION, "mcdnnGetConvolutionForwardWorkspaceSize",
         "mcdnnGetConvolutionForwardAlgorithm_v7", "mcdnnFindConvolutionForwardAlgorithm")
_queries(BACKWARD_DATA_DIRECTION, "mcdnnGetConvolutionBackwardDataWorkspaceSize",
         "mcdnnGetConvolutionBackwardDataAlgorithm_v7", "mcdnnFindConvolutionBackwardDataAlgorithm")
_queries(BACKWARD_FILTER_DIRECTION, "mcdnnGetConvolutionBackwardFilterWorkspaceSize",
         "mcdnnGetConvolutionBackwardFilterAlgorithm_v7", "mcdnnFindConvolutionBackwardFilterAlgorithm")
