"""mcdnnOpTensor, mcdnnReduceTensor (+ size queries), mcdnnTransformTensorEx and mcdnnTransformFilter with
their descriptors, through the C ABI, against NumPy float64 references; and their documented errors."""
import ctypes

import numpy as np
import pytest

from mc import (BAD_PARAM, DOUBLE, FLOAT, HALF, INT32, NOT_SUPPORTED, NUMPY, Desc, DeviceTensor, Handle,
                c_int, c_void_p, lib, nhwc_strides, recent_error, scale)

ADD, MUL, MIN, MAX, SQRT, NOT = range(6)
R_ADD, R_MUL, R_MIN, R_MAX, R_AMAX, R_AVG, R_NORM1, R_NORM2, R_MUL_NO_ZEROS = range(9)
NO_INDICES, FLATTENED = 0, 1
NOT_PROPAGATE, PROPAGATE = 0, 1


@pytest.fixture(scope="module")
def handle():
    h = Handle()
    yield h.handle
    h.destroy()


def op_desc(op, compute=FLOAT, nan=NOT_PROPAGATE):
    d = c_void_p()
    assert lib().mcdnnCreateOpTensorDescriptor(ctypes.byref(d)) == 0
    assert lib().mcdnnSetOpTensorDescriptor(d, op, compute, nan) == 0
    return d


def reduce_desc(op, compute=FLOAT, nan=NOT_PROPAGATE, indices=NO_INDICES, indices_type=0):
    d = c_void_p()
    assert lib().mcdnnCreateReduceTensorDescriptor(ctypes.byref(d)) == 0
    assert lib().mcdnnSetReduceTensorDescriptor(d, op, compute, nan, indices, indices_type) == 0
    return d


def rounded(values, code):
    return np.asarray(values).astype(NUMPY[code]).astype(np.float64)


@pytest.mark.parametrize("op,reference", [(ADD, lambda a, b: a + b), (MUL, lambda a, b: a * b),
                                          (MIN, np.minimum), (MAX, np.maximum),
                                          (SQRT, lambda a, b: np.sqrt(a)), (NOT, lambda a, b: 1 - a)],
                         ids=["add", "mul", "min", "max", "sqrt", "not"])
@pytest.mark.parametrize("code", [FLOAT, HALF, DOUBLE], ids=["float", "half", "double"])
def test_op_tensor_with_broadcast_b(handle, op, reference, code):
    rng = np.random.default_rng(op)
    a = rounded(rng.uniform(0.5, 2, (2, 3, 4, 5)), code)
    b = rounded(rng.uniform(0.5, 2, (1, 3, 1, 5)), code)
    c0 = rounded(rng.uniform(-1, 1, a.shape), code)
    ad, bd = Desc(code, a.shape), Desc(code, b.shape)
    cd = Desc(code, a.shape, nhwc_strides(a.shape))
    A, B, C = DeviceTensor(ad, a), DeviceTensor(bd, b), DeviceTensor(cd, c0)
    desc = op_desc(op, DOUBLE if code == DOUBLE else FLOAT)
    assert lib().mcdnnOpTensor(handle, desc, scale(2.0, code), ad.handle, A.address, scale(0.5, code), bd.handle,
                               B.address, scale(1.0, code), cd.handle, C.address) == 0, recent_error()
    expected = reference(2.0 * a, 0.5 * b) + c0
    tol = {FLOAT: 1e-6, HALF: 2e-3, DOUBLE: 1e-14}[code]
    np.testing.assert_allclose(C.read().astype(np.float64), expected, rtol=tol, atol=tol)
    lib().mcdnnDestroyOpTensorDescriptor(desc)


def test_op_tensor_errors(handle):
    ad, cd = Desc(FLOAT, (2, 3, 4, 5)), Desc(FLOAT, (2, 3, 4, 5))
    A, C = DeviceTensor(ad, np.ones(ad.dims)), DeviceTensor(cd, np.ones(cd.dims))

    def run(desc, a=ad, b=ad, c=cd):
        return lib().mcdnnOpTensor(handle, desc, scale(1, FLOAT), a.handle, A.address, scale(1, FLOAT), b.handle,
                                   A.address, scale(0, FLOAT), c.handle, C.address)
    add = op_desc(ADD)
    assert run(add, a=Desc(FLOAT, (1, 3, 4, 5))) == BAD_PARAM          # A must have C's dims
    assert run(add, b=Desc(FLOAT, (2, 2, 4, 5))) == BAD_PARAM          # B neither C's nor 1
    assert run(op_desc(ADD, DOUBLE)) == NOT_SUPPORTED                   # FLOAT data, DOUBLE compute
    assert run(None) == BAD_PARAM
    d = c_void_p()
    assert lib().mcdnnCreateOpTensorDescriptor(ctypes.byref(d)) == 0
    assert lib().mcdnnSetOpTensorDescriptor(d, 6, FLOAT, 0) == BAD_PARAM
    assert lib().mcdnnSetOpTensorDescriptor(d, ADD, FLOAT, 2) == BAD_PARAM
    got = [c_int() for _ in range(3)]
    assert lib().mcdnnSetOpTensorDescriptor(d, MAX, HALF, PROPAGATE) == 0
    assert lib().mcdnnGetOpTensorDescriptor(d, *(ctypes.byref(v) for v in got)) == 0
    assert [v.value for v in got] == [MAX, HALF, PROPAGATE]


REDUCTIONS = {
    R_ADD: lambda a, ax: a.sum(ax, keepdims=True), R_MUL: lambda a, ax: a.prod(ax, keepdims=True),
    R_MIN: lambda a, ax: a.min(ax, keepdims=True), R_MAX: lambda a, ax: a.max(ax, keepdims=True),
    R_AMAX: lambda a, ax: np.abs(a).max(ax, keepdims=True), R_AVG: lambda a, ax: a.mean(ax, keepdims=True),
    R_NORM1: lambda a, ax: np.abs(a).sum(ax, keepdims=True),
    R_NORM2: lambda a, ax: np.sqrt((a * a).sum(ax, keepdims=True)),
    R_MUL_NO_ZEROS: lambda a, ax: np.where(a == 0, 1, a).prod(ax, keepdims=True),
}


@pytest.mark.parametrize("op", sorted(REDUCTIONS), ids=["add", "mul", "min", "max", "amax", "avg", "norm1", "norm2",
                                                        "mul_no_zeros"])
def test_reduce_tensor(handle, op):
    rng = np.random.default_rng(op)
    a = rng.uniform(-2, 2, (2, 3, 4, 5)).astype(np.float32).astype(np.float64)
    a[0, 0, 0, 0] = 0
    c_shape = (1, 3, 1, 5)
    ad, cd = Desc(FLOAT, a.shape), Desc(FLOAT, c_shape)
    A, C = DeviceTensor(ad, a), DeviceTensor(cd, np.zeros(c_shape))
    desc = reduce_desc(op)
    ws, idx = ctypes.c_size_t(), ctypes.c_size_t()
    assert lib().mcdnnGetReductionWorkspaceSize(handle, desc, ad.handle, cd.handle, ctypes.byref(ws)) == 0
    assert lib().mcdnnGetReductionIndicesSize(handle, desc, ad.handle, cd.handle, ctypes.byref(idx)) == 0
    assert ws.value == 0 and idx.value == 0
    assert lib().mcdnnReduceTensor(handle, desc, None, ctypes.c_size_t(0), None, ctypes.c_size_t(0), scale(1, FLOAT),
                                   ad.handle, A.address, scale(0, FLOAT), cd.handle, C.address) == 0, recent_error()
    np.testing.assert_allclose(C.read(), REDUCTIONS[op](a, (0, 2)), rtol=1e-5, atol=1e-6)


def test_reduce_tensor_flattened_indices_are_the_first_extreme(handle):
    a = np.array([[3, 1, 4, 1], [5, 9, 2, 9]], np.float64).reshape(2, 4, 1, 1)
    ad, cd = Desc(FLOAT, (2, 4, 1, 1)), Desc(FLOAT, (2, 1, 1, 1))
    A, C = DeviceTensor(ad, a), DeviceTensor(cd, np.zeros((2, 1, 1, 1)))
    for op, values, where in ((R_MIN, [1, 2], [1, 2]), (R_MAX, [4, 9], [2, 1])):
        desc = reduce_desc(op, indices=FLATTENED)
        size = ctypes.c_size_t()
        assert lib().mcdnnGetReductionIndicesSize(handle, desc, ad.handle, cd.handle, ctypes.byref(size)) == 0
        assert size.value == 2 * 4
        I = DeviceTensor(Desc(INT32, (2, 1, 1)), np.zeros((2, 1, 1)))
        assert lib().mcdnnReduceTensor(handle, desc, I.address, size, None, ctypes.c_size_t(0), scale(1, FLOAT),
                                       ad.handle, A.address, scale(0, FLOAT), cd.handle, C.address) == 0
        assert C.read().ravel().tolist() == values and I.read().ravel().tolist() == where
        assert lib().mcdnnReduceTensor(handle, desc, I.address, ctypes.c_size_t(4), None, ctypes.c_size_t(0),
                                       scale(1, FLOAT), ad.handle, A.address, scale(0, FLOAT), cd.handle,
                                       C.address) == BAD_PARAM   # indices buffer too small


def test_reduce_tensor_errors(handle):
    ad = Desc(FLOAT, (2, 3, 4, 5))
    A = DeviceTensor(ad, np.ones(ad.dims))

    def run(desc, c):
        C = DeviceTensor(c, np.zeros(c.dims))
        return lib().mcdnnReduceTensor(handle, desc, None, ctypes.c_size_t(0), None, ctypes.c_size_t(0),
                                       scale(1, FLOAT), ad.handle, A.address, scale(0, FLOAT), c.handle, C.address)
    assert run(reduce_desc(R_ADD), Desc(FLOAT, (2, 2, 1, 1))) == BAD_PARAM   # neither A's nor 1
    assert run(reduce_desc(R_ADD), Desc(FLOAT, ad.dims)) == BAD_PARAM       # nothing reduced
    assert run(reduce_desc(R_ADD, DOUBLE), Desc(FLOAT, (1, 3, 4, 5))) == NOT_SUPPORTED
    assert run(reduce_desc(R_MAX, indices=FLATTENED, indices_type=1), Desc(FLOAT, (1, 3, 4, 5))) == NOT_SUPPORTED
    d = c_void_p()
    assert lib().mcdnnCreateReduceTensorDescriptor(ctypes.byref(d)) == 0
    assert lib().mcdnnSetReduceTensorDescriptor(d, 9, FLOAT, 0, 0, 0) == BAD_PARAM
    assert lib().mcdnnSetReduceTensorDescriptor(d, 0, FLOAT, 0, 2, 0) == BAD_PARAM
    assert lib().mcdnnSetReduceTensorDescriptor(d, 0, FLOAT, 0, 0, 4) == BAD_PARAM


def transform_desc(nb, fmt=0, before=None, after=None, fold=None):
    d = c_void_p()
    assert lib().mcdnnCreateTensorTransformDescriptor(ctypes.byref(d)) == 0
    arr = lambda values, t=ctypes.c_int32: None if values is None else (t * nb)(*values)  # noqa: E731
    assert lib().mcdnnSetTensorTransformDescriptor(d, ctypes.c_uint32(nb), fmt, arr(before), arr(after),
                                                   arr(fold, ctypes.c_uint32), 0) == 0, recent_error()
    return d


def test_transform_tensor_ex_pads_and_changes_layout(handle):
    x = np.random.default_rng(7).standard_normal((2, 3, 4, 5))
    t = transform_desc(4, 1, before=[0, 1, 1, 0], after=[0, 0, 1, 2])
    src = Desc(FLOAT, x.shape)
    dst = c_void_p()
    assert lib().mcdnnCreateTensorDescriptor(ctypes.byref(dst)) == 0
    size = ctypes.c_size_t()
    assert lib().mcdnnInitTransformDest(t, src.handle, dst, ctypes.byref(size)) == 0, recent_error()
    dims = (2, 4, 6, 7)
    assert size.value == 4 * int(np.prod(dims))
    dst_desc = Desc(FLOAT, dims, nhwc_strides(dims))      # what InitTransformDest set: NHWC
    S, D = DeviceTensor(src, x), DeviceTensor(dst_desc, np.zeros(dims))
    assert lib().mcdnnTransformTensorEx(handle, t, scale(1, FLOAT), src.handle, S.address, scale(0, FLOAT), dst,
                                        D.address) == 0, recent_error()
    expected = np.zeros(dims)
    expected[:, 1:, 1:5, :5] = x
    np.testing.assert_allclose(D.read(), expected.astype(np.float32))
    lib().mcdnnDestroyTensorDescriptor(dst)


def test_transform_errors(handle):
    t = transform_desc(4, fold=[1, 1, 2, 1])
    src, dst = Desc(FLOAT, (1, 1, 4, 4)), Desc(FLOAT, (1, 1, 4, 4))
    S, D = DeviceTensor(src, np.ones(src.dims)), DeviceTensor(dst, np.ones(dst.dims))
    assert lib().mcdnnTransformTensorEx(handle, t, scale(1, FLOAT), src.handle, S.address, scale(0, FLOAT),
                                        dst.handle, D.address) == NOT_SUPPORTED
    plain = transform_desc(4)
    wrong = Desc(FLOAT, (1, 1, 4, 5))
    assert lib().mcdnnTransformTensorEx(handle, plain, scale(1, FLOAT), src.handle, S.address, scale(0, FLOAT),
                                        wrong.handle, D.address) == BAD_PARAM
    d = c_void_p()
    assert lib().mcdnnCreateTensorTransformDescriptor(ctypes.byref(d)) == 0
    assert lib().mcdnnSetTensorTransformDescriptor(d, ctypes.c_uint32(2), 0, None, None, None, 0) == BAD_PARAM
    assert lib().mcdnnSetTensorTransformDescriptor(d, ctypes.c_uint32(4), 0, None, None, None, 2) == BAD_PARAM


def test_transform_filter_between_layouts(handle):
    w = np.random.default_rng(8).standard_normal((4, 3, 2, 2))
    src, dst = c_void_p(), c_void_p()
    for d, fmt in ((src, 0), (dst, 1)):
        assert lib().mcdnnCreateFilterDescriptor(ctypes.byref(d)) == 0
        assert lib().mcdnnSetFilter4dDescriptor(d, FLOAT, fmt, *w.shape) == 0
    S = DeviceTensor(Desc(FLOAT, w.shape), w)
    D = DeviceTensor(Desc(FLOAT, w.shape, nhwc_strides(w.shape)), np.zeros(w.shape))
    t = transform_desc(4, 1)
    assert lib().mcdnnTransformFilter(handle, t, scale(1, FLOAT), src, S.address, scale(0, FLOAT), dst,
                                      D.address) == 0, recent_error()
    np.testing.assert_allclose(D.read(), w.astype(np.float32))
    assert D.storage().reshape(4, 2, 2, 3).transpose(0, 3, 1, 2).tolist() == w.astype(np.float32).tolist()


class Algorithm(ctypes.Structure):   # mcdnnAlgorithm_t: a union of the algorithm enumerations
    _fields_ = [("algo", c_int)]


def test_algorithm_descriptor_save_and_restore(handle):
    d, e = c_void_p(), c_void_p()
    assert lib().mcdnnCreateAlgorithmDescriptor(ctypes.byref(d)) == 0
    assert lib().mcdnnCreateAlgorithmDescriptor(ctypes.byref(e)) == 0
    assert lib().mcdnnSetAlgorithmDescriptor(d, Algorithm(2)) == 0
    size = ctypes.c_size_t()
    assert lib().mcdnnGetAlgorithmSpaceSize(handle, d, ctypes.byref(size)) == 0
    space = ctypes.create_string_buffer(size.value)
    assert lib().mcdnnSaveAlgorithm(handle, d, space, size) == 0
    assert lib().mcdnnRestoreAlgorithm(handle, space, size, e) == 0
    got = Algorithm()
    assert lib().mcdnnGetAlgorithmDescriptor(e, ctypes.byref(got)) == 0 and got.algo == 2
    assert lib().mcdnnRestoreAlgorithm(handle, ctypes.create_string_buffer(size.value), size, e) == BAD_PARAM
    assert lib().mcdnnSaveAlgorithm(handle, d, space, ctypes.c_size_t(size.value - 1)) == BAD_PARAM
    perf = (c_void_p * 2)()
    assert lib().mcdnnCreateAlgorithmPerformance(perf, 2) == 0
    assert lib().mcdnnSetAlgorithmPerformance(c_void_p(perf[1]), d, 9, ctypes.c_float(1.5), ctypes.c_size_t(64)) == 0
    algo, status, time_ms, memory = c_void_p(), c_int(), ctypes.c_float(), ctypes.c_size_t()
    assert lib().mcdnnGetAlgorithmPerformance(c_void_p(perf[1]), ctypes.byref(algo), ctypes.byref(status),
                                              ctypes.byref(time_ms), ctypes.byref(memory)) == 0
    assert (algo.value, status.value, time_ms.value, memory.value) == (d.value, 9, 1.5, 64)
    assert lib().mcdnnDestroyAlgorithmPerformance(perf, 2) == 0
    assert lib().mcdnnGetAlgorithmPerformance(c_void_p(perf[1]), None, None, None, None) == BAD_PARAM   # destroyed
    for x in (d, e):
        assert lib().mcdnnDestroyAlgorithmDescriptor(x) == 0
    assert lib().mcdnnSetAlgorithmDescriptor(d, Algorithm(1)) == BAD_PARAM


def test_callback_is_recorded():
    CALLBACK = ctypes.CFUNCTYPE(None, c_int, c_void_p, c_void_p, ctypes.c_char_p)
    fn, data = CALLBACK(lambda *args: None), c_void_p(1234)
    assert lib().mcdnnSetCallback(ctypes.c_uint(0b1110), data, fn) == 0
    mask, udata, fptr = ctypes.c_uint(), c_void_p(), c_void_p()
    assert lib().mcdnnGetCallback(ctypes.byref(mask), ctypes.byref(udata), ctypes.byref(fptr)) == 0
    assert (mask.value, udata.value, fptr.value) == (0b1110, 1234, ctypes.cast(fn, c_void_p).value)
    assert lib().mcdnnGetCallback(None, ctypes.byref(udata), ctypes.byref(fptr)) == BAD_PARAM
    assert lib().mcdnnSetCallback(ctypes.c_uint(0), None, None) == 0
