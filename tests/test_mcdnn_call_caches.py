"""What the per-call caches of the mcDNN bridge must not change: a descriptor is read at every call, so
setting it again between two calls (same C object, new content) changes what the next call computes,
a descriptor destroyed after a call is refused at the next, and a call bound to its buffers once reads
their contents at every call."""
import ctypes

import numpy as np
import pytest

from mc import BAD_PARAM, EXECUTION_FAILED, FLOAT, Desc, DeviceTensor, Handle, call, lib, recent_error, scale


@pytest.fixture(scope="module")
def handle():
    h = Handle()
    yield h.handle
    h.destroy()


def activation(mode, coef=0.0):
    desc = ctypes.c_void_p()
    assert lib().mcdnnCreateActivationDescriptor(ctypes.byref(desc)) == 0
    assert lib().mcdnnSetActivationDescriptor(desc, mode, 0, coef) == 0
    return desc


def relu_backward(handle, act, desc, y, dy, x, dx):
    return call("mcdnnActivationBackward", handle, act, scale(1, FLOAT), desc.handle, y.address, desc.handle,
                dy.address, desc.handle, x.address, scale(0, FLOAT), desc.handle, dx.address)


def test_activation_descriptor_set_again_is_read_at_the_next_call(handle):
    x = np.array([-2.0, -0.5, 0.5, 2.0], np.float32).reshape(1, 1, 1, 4)
    dy = np.full(x.shape, 3.0, np.float32)
    desc = Desc(FLOAT, x.shape)
    act = activation(1)  # RELU
    X, Y, DY, DX = DeviceTensor(desc, x), DeviceTensor(desc, np.maximum(x, 0)), DeviceTensor(desc, dy), \
        DeviceTensor(desc)
    assert relu_backward(handle, act, desc, Y, DY, X, DX) == 0, recent_error()
    np.testing.assert_array_equal(DX.read(), np.where(x > 0, dy, 0))
    assert lib().mcdnnSetActivationDescriptor(act, 5, 0, ctypes.c_double(0.0)) == 0  # IDENTITY
    assert relu_backward(handle, act, desc, Y, DY, X, DX) == 0, recent_error()
    np.testing.assert_array_equal(DX.read(), dy)
    lib().mcdnnDestroyActivationDescriptor(act)


@pytest.mark.parametrize("mode, derivative", [(1, lambda x, y: x > 0), (0, lambda x, y: y * (1 - y)),
                                              (2, lambda x, y: 1 - y * y)], ids=["relu", "sigmoid", "tanh"])
def test_the_same_buffers_with_new_contents_are_read_at_the_next_call(handle, mode, derivative):
    """The second call on the same buffers runs the kernel call the first one bound (mcdnn.prepared)."""
    rng = np.random.default_rng(mode)
    desc = Desc(FLOAT, (2, 3, 2, 2))
    act = activation(mode)
    X, Y, DY, DX = (DeviceTensor(desc, rng.uniform(-1, 1, desc.dims)) for _ in range(4))
    assert relu_backward(handle, act, desc, Y, DY, X, DX) == 0, recent_error()
    x, y, dy = (rng.uniform(-1, 1, desc.dims).astype(np.float32) for _ in range(3))
    for tensor, values in ((X, x), (Y, y), (DY, dy)):
        storage = tensor.storage()
        tensor.view(storage)[...] = values
        assert lib().mcMemcpy(tensor.address, storage.ctypes.data, storage.nbytes, 1) == 0
    assert relu_backward(handle, act, desc, Y, DY, X, DX) == 0, recent_error()
    wide = [v.astype(np.float64) for v in (x, y, dy)]
    np.testing.assert_allclose(DX.read(), wide[2] * derivative(wide[0], wide[1]), rtol=1e-6, atol=1e-7)
    lib().mcdnnDestroyActivationDescriptor(act)


def test_tensor_descriptor_set_again_is_read_at_the_next_call(handle):
    x = np.arange(-4, 4, dtype=np.float32).reshape(1, 1, 2, 4)
    desc = Desc(FLOAT, x.shape)
    act = activation(1)
    X, Y, DY, DX = (DeviceTensor(desc, v) for v in (x, np.maximum(x, 0), np.ones_like(x), np.zeros_like(x)))
    assert relu_backward(handle, act, desc, Y, DY, X, DX) == 0, recent_error()
    np.testing.assert_array_equal(DX.read(), (x > 0).astype(np.float32))
    # the same descriptor now covers the first row only: the second row of dx keeps what it holds
    second = DeviceTensor(desc, np.full(x.shape, 7.0, np.float32))
    assert lib().mcdnnSetTensorNdDescriptor(desc.handle, FLOAT, 4, (ctypes.c_int * 4)(1, 1, 1, 4),
                                            (ctypes.c_int * 4)(8, 8, 4, 1)) == 0
    assert relu_backward(handle, act, desc, Y, DY, X, second) == 0, recent_error()
    storage = second.storage()
    np.testing.assert_array_equal(storage[:4], np.zeros(4, np.float32))
    np.testing.assert_array_equal(storage[4:], np.full(4, 7.0, np.float32))
    lib().mcdnnDestroyActivationDescriptor(act)


def after_a_passing_call(handle):
    """A RELU backward on ones that passed: (activation descriptor, tensor descriptor, X, Y, DY, DX)."""
    x = np.ones((1, 1, 2, 2), np.float32)
    desc = Desc(FLOAT, x.shape)
    act = activation(1)
    X, Y, DY, DX = (DeviceTensor(desc, x) for _ in range(4))
    assert relu_backward(handle, act, desc, Y, DY, X, DX) == 0, recent_error()
    return act, desc, X, Y, DY, DX


def test_descriptor_destroyed_after_a_call_is_refused_at_the_next(handle):
    act, desc, X, Y, DY, DX = after_a_passing_call(handle)
    lib().mcdnnDestroyActivationDescriptor(act)
    assert relu_backward(handle, act, desc, Y, DY, X, DX) == BAD_PARAM
    assert "activationDesc" in recent_error()


def test_a_null_pointer_after_a_passing_call_is_still_bad_param(handle):
    act, desc, X, Y, DY, DX = after_a_passing_call(handle)
    assert call("mcdnnActivationBackward", handle, act, scale(1, FLOAT), desc.handle, Y.address, desc.handle,
                DY.address, desc.handle, X.address, None, desc.handle, DX.address) == BAD_PARAM
    assert "beta" in recent_error()
    assert call("mcdnnActivationBackward", handle, act, scale(1, FLOAT), desc.handle, Y.address, desc.handle,
                None, desc.handle, X.address, scale(0, FLOAT), desc.handle, DX.address) == BAD_PARAM
    lib().mcdnnDestroyActivationDescriptor(act)


def test_in_place_with_other_strides_after_a_passing_call_is_still_bad_param(handle):
    """dy == dx with different strides is BAD_PARAM though the same descriptors passed with dy != dx."""
    dims = (1, 2, 2, 3)
    packed, padded = Desc(FLOAT, dims), Desc(FLOAT, dims, (16, 8, 4, 1))
    act = activation(1)
    Y, DY = DeviceTensor(packed, np.ones(dims)), DeviceTensor(packed, np.ones(dims))
    X, DX = DeviceTensor(padded, np.ones(dims)), DeviceTensor(padded)

    def backward(dx):
        return call("mcdnnActivationBackward", handle, act, scale(1, FLOAT), packed.handle, Y.address, packed.handle,
                    DY.address, padded.handle, X.address, scale(0, FLOAT), padded.handle, dx)
    assert backward(DX.address) == 0, recent_error()
    assert backward(DY.address) == BAD_PARAM
    assert "in place" in recent_error()
    lib().mcdnnDestroyActivationDescriptor(act)


def test_a_buffer_freed_after_a_call_is_an_illegal_address_at_the_next(handle):
    """Views are kept between calls only while no device memory goes away: the freed dx is refused."""
    act, desc, X, Y, DY, DX = after_a_passing_call(handle)
    freed = DX.address
    DX.free()
    DX.address = freed
    assert relu_backward(handle, act, desc, Y, DY, X, DX) == EXECUTION_FAILED
    assert "illegal memory access" in recent_error()
    DX.address = None
    lib().mcdnnDestroyActivationDescriptor(act)


def pooling_backward(handle, pool, ydesc, xdesc, Y, DY, X, DX):
    return call("mcdnnPoolingBackward", handle, pool, scale(1, FLOAT), ydesc.handle, Y.address, ydesc.handle,
                DY.address, xdesc.handle, X, scale(0, FLOAT), xdesc.handle, DX.address)


def test_pooling_descriptor_set_again_is_checked_and_read_at_the_next_call(handle):
    """Pooling keeps a passing check's verdict and its geometry per descriptor content: a descriptor set
    again is judged again (max pooling needs x, average pooling does not) and pools as now set."""
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    xdesc, ydesc = Desc(FLOAT, x.shape), Desc(FLOAT, (1, 1, 2, 2))
    pool = ctypes.c_void_p()
    assert lib().mcdnnCreatePoolingDescriptor(ctypes.byref(pool)) == 0
    assert lib().mcdnnSetPooling2dDescriptor(pool, 1, 0, 2, 2, 0, 0, 2, 2) == 0   # average, counting padding
    X, Y, DY, DX = (DeviceTensor(xdesc, x), DeviceTensor(ydesc, np.zeros((1, 1, 2, 2), np.float32)),
                    DeviceTensor(ydesc, np.full((1, 1, 2, 2), 4.0, np.float32)), DeviceTensor(xdesc))
    assert pooling_backward(handle, pool, ydesc, xdesc, Y, DY, None, DX) == 0, recent_error()   # x unread
    np.testing.assert_array_equal(DX.read(), np.ones(x.shape, np.float32))
    assert lib().mcdnnSetPooling2dDescriptor(pool, 0, 0, 2, 2, 0, 0, 2, 2) == 0   # max: x must be given
    assert pooling_backward(handle, pool, ydesc, xdesc, Y, DY, None, DX) == BAD_PARAM
    assert "must not be null for max pooling" in recent_error()
    assert lib().mcdnnSetPooling2dDescriptor(pool, 0, 0, 1, 1, 0, 0, 2, 2) == 0   # 1x1 windows
    Y = DeviceTensor(ydesc, x[:, :, ::2, ::2].copy())   # the 1x1 windows' maxima
    assert pooling_backward(handle, pool, ydesc, xdesc, Y, DY, X.address, DX) == 0, recent_error()
    expected = np.zeros(x.shape, np.float32)
    expected[:, :, ::2, ::2] = 4.0
    np.testing.assert_array_equal(DX.read(), expected)
    lib().mcdnnDestroyPoolingDescriptor(pool)
