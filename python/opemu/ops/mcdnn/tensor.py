"""Tensor utilities: mcdnnAddTensor, mcdnnSetTensor, mcdnnScaleTensor, mcdnnTransformTensor.

AddTensor: C = alpha*A + beta*C where every dimension of A equals C's or is 1 (a broadcast bias), up to
5 dimensions. TransformTensor: y = alpha*x + beta*y between any two layouts of the same dims; integer data
moves within its family, NCHW or NHWC INT8 to and from NCHW_VECT_C INT8x4/INT8x32 (vector_formats).
SetTensor: every element of y = *valuePtr, a value of y's data type. ScaleTensor: y *= *alpha.
BAD_PARAM: a NULL argument; dims A cannot broadcast to C (or of x and y differ); data types differ.
NOT_SUPPORTED: data types other than FLOAT/DOUBLE/HALF/BFLOAT16 (SetTensor also takes the scalar integer
types, TransformTensor the integer families); AddTensor beyond 5 dimensions."""
import numpy as np

from opemu.core import device, mcdnn
from opemu.core.mcdnn import DATA
from opemu.ops.mcdnn import vector_formats

_VALUE_TYPES = {
    DATA["MCDNN_DATA_FLOAT"]: "float *", DATA["MCDNN_DATA_DOUBLE"]: "double *", DATA["MCDNN_DATA_HALF"]: "uint16_t *",
    DATA["MCDNN_DATA_BFLOAT16"]: "uint16_t *", DATA["MCDNN_DATA_INT8"]: "int8_t *", DATA["MCDNN_DATA_UINT8"]: "uint8_t *",
    DATA["MCDNN_DATA_INT32"]: "int32_t *", DATA["MCDNN_DATA_INT64"]: "int64_t *", DATA["MCDNN_DATA_BOOLEAN"]: "uint8_t *",
}


class AddTensor(mcdnn.McdnnOp):
    name = "mcdnnAddTensor"
    tensors = {"A": "aDesc", "C": "cDesc"}
    outputs = ("C",)

    def check(self, a):
        mcdnn.require(a, "aDesc", "cDesc", "A", "C")
        a.alpha_value = mcdnn.scaling(a.alpha, a.cDesc, "alpha")
        a.beta_value = mcdnn.scaling(a.beta, a.cDesc, "beta")
        if a.aDesc.ndim != a.cDesc.ndim or any(d not in (1, c) for d, c in zip(a.aDesc.shape, a.cDesc.shape)):
            raise mcdnn.bad_param("the dimensions of aDesc %s are incompatible with cDesc %s: each must equal C's or be 1"
                                  % (list(a.aDesc.shape), list(a.cDesc.shape)))
        mcdnn.same_type(mcdnn.bad_param, ("aDesc", a.aDesc), ("cDesc", a.cDesc))
        if a.cDesc.ndim > 5:
            raise mcdnn.not_supported("mcdnnAddTensor supports up to 5 dimensions, cDesc has %d" % a.cDesc.ndim)
        mcdnn.floating("cDesc", a.cDesc)

    def compute(self, a, v):
        ct = a.cDesc.compute_dtype

        def run(p):
            result = np.empty(p["C"].shape, ct)
            result[...] = mcdnn.as_compute(p["A"], ct)
            mcdnn.write(p["C"], result, a.alpha_value, a.beta_value)
        mcdnn.by_batch(v, run, batch=a.cDesc.shape[0])


class TransformTensor(mcdnn.McdnnOp):
    name = "mcdnnTransformTensor"
    tensors = {"x": "xDesc", "y": "yDesc"}
    outputs = ("y",)
    vector_types = True

    def check(self, a):
        mcdnn.require(a, "xDesc", "yDesc", "x", "y")
        a.alpha_value = mcdnn.scaling(a.alpha, a.xDesc, "alpha")
        a.beta_value = mcdnn.scaling(a.beta, a.xDesc, "beta")
        mcdnn.same_dims(mcdnn.bad_param, ("xDesc", a.xDesc), ("yDesc", a.yDesc))
        a.integer = vector_formats.integer(a.xDesc) or vector_formats.integer(a.yDesc)
        if a.integer:
            vector_formats.same_family(("xDesc", a.xDesc), ("yDesc", a.yDesc))
            return
        mcdnn.same_type(mcdnn.bad_param, ("xDesc", a.xDesc), ("yDesc", a.yDesc))
        mcdnn.floating("xDesc", a.xDesc)

    def compute(self, a, v):
        if a.integer:
            mcdnn.by_batch(v, lambda p: vector_formats.transform(p["x"], a.xDesc, p["y"], a.yDesc, a.alpha_value,
                                                                 a.beta_value))
            return
        ct = a.xDesc.compute_dtype

        def run(p):
            mcdnn.write(p["y"], np.array(p["x"], dtype=ct), a.alpha_value, a.beta_value)
        mcdnn.by_batch(v, run)


class SetTensor(mcdnn.McdnnOp):
    name = "mcdnnSetTensor"
    tensors = {"y": "yDesc"}
    outputs = ("y",)

    def check(self, a):
        mcdnn.require(a, "yDesc", "y", "valuePtr")
        ctype = _VALUE_TYPES.get(a.yDesc.dtype_code)
        if ctype is None:
            raise mcdnn.not_supported("mcdnnSetTensor does not support %s" % mcdnn.type_name(a.yDesc.dtype_code))
        raw = np.array([device.ffi.cast(ctype, a.valuePtr)[0]])
        a.value = (raw.astype(np.uint16).view(a.yDesc.dtype) if ctype == "uint16_t *" else raw.astype(a.yDesc.dtype))[0]

    def compute(self, a, v):
        v["y"][...] = a.value


class ScaleTensor(mcdnn.McdnnOp):
    name = "mcdnnScaleTensor"
    tensors = {"y": "yDesc"}
    outputs = ("y",)

    def check(self, a):
        mcdnn.require(a, "yDesc", "y")
        a.alpha_value = mcdnn.scaling(a.alpha, a.yDesc, "alpha")
        mcdnn.floating("yDesc", a.yDesc)

    def compute(self, a, v):
        ct = a.yDesc.compute_dtype

        def run(p):
            p["y"][...] = mcdnn.as_compute(p["y"], ct) * ct.type(a.alpha_value)
        mcdnn.by_batch(v, run)
