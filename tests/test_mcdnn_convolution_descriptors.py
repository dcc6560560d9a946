"""mcDNN filter and convolution descriptors through the C ABI: round trips, defaults, output dimensions and the
documented errors of the descriptors and of the forward routine."""
import ctypes

from mc import (BAD_PARAM, DOUBLE, FLOAT, HALF, INT8, NOT_SUPPORTED, Desc, DeviceTensor, c_int, c_void_p, handle, ints,
                lib, scale)
from mc_convolution import (CASES, CONVOLUTION, CROSS_CORRELATION, DEFAULT_MATH, FWD_IMPLICIT, NCHW, NHWC, Conv,
                            Filter, make)


def test_filter_descriptor_round_trip():
    f = Filter(HALF, (8, 3, 5, 5), NHWC)
    dtype, fmt, k, c, h, w = (c_int() for _ in range(6))
    assert lib().mcdnnGetFilter4dDescriptor(f.handle, *(ctypes.byref(v) for v in (dtype, fmt, k, c, h, w))) == 0
    assert (dtype.value, fmt.value, k.value, c.value, h.value, w.value) == (HALF, NHWC, 8, 3, 5, 5)
    size = ctypes.c_size_t()
    assert lib().mcdnnGetFilterSizeInBytes(f.handle, ctypes.byref(size)) == 0 and size.value == 8 * 3 * 25 * 2


def test_filter_descriptor_errors():
    f = c_void_p()
    assert lib().mcdnnCreateFilterDescriptor(ctypes.byref(f)) == 0
    assert lib().mcdnnSetFilter4dDescriptor(f, FLOAT, NCHW, 0, 3, 3, 3) == BAD_PARAM
    assert lib().mcdnnSetFilter4dDescriptor(f, 99, NCHW, 1, 3, 3, 3) == BAD_PARAM
    assert lib().mcdnnSetFilter4dDescriptor(f, FLOAT, 7, 1, 3, 3, 3) == BAD_PARAM
    assert lib().mcdnnSetFilterNdDescriptor(f, FLOAT, NCHW, 9, ints([1] * 9)) == NOT_SUPPORTED
    assert lib().mcdnnDestroyFilterDescriptor(f) == 0
    assert lib().mcdnnSetFilter4dDescriptor(f, FLOAT, NCHW, 1, 3, 3, 3) == BAD_PARAM   # destroyed


def test_convolution_descriptor_round_trip_and_defaults():
    c = c_void_p()
    assert lib().mcdnnCreateConvolutionDescriptor(ctypes.byref(c)) == 0
    groups, math = c_int(), c_int()
    assert lib().mcdnnGetConvolutionGroupCount(c, ctypes.byref(groups)) == 0 and groups.value == 1
    assert lib().mcdnnGetConvolutionMathType(c, ctypes.byref(math)) == 0 and math.value == DEFAULT_MATH
    assert lib().mcdnnSetConvolution2dDescriptor(c, 1, 2, 3, 4, 5, 6, CONVOLUTION, HALF) == 0
    out = [c_int() for _ in range(8)]
    assert lib().mcdnnGetConvolution2dDescriptor(c, *(ctypes.byref(v) for v in out)) == 0
    assert [v.value for v in out] == [1, 2, 3, 4, 5, 6, CONVOLUTION, HALF]
    lib().mcdnnDestroyConvolutionDescriptor(c)


def test_convolution_descriptor_errors():
    c = c_void_p()
    assert lib().mcdnnCreateConvolutionDescriptor(ctypes.byref(c)) == 0
    assert lib().mcdnnSetConvolution2dDescriptor(c, -1, 0, 1, 1, 1, 1, CONVOLUTION, FLOAT) == BAD_PARAM
    assert lib().mcdnnSetConvolution2dDescriptor(c, 0, 0, 0, 1, 1, 1, CONVOLUTION, FLOAT) == BAD_PARAM
    assert lib().mcdnnSetConvolution2dDescriptor(c, 0, 0, 1, 1, 1, 0, CONVOLUTION, FLOAT) == BAD_PARAM
    assert lib().mcdnnSetConvolution2dDescriptor(c, 0, 0, 1, 1, 1, 1, 2, FLOAT) == BAD_PARAM
    assert lib().mcdnnSetConvolutionNdDescriptor(c, 7, ints([0] * 7), ints([1] * 7), ints([1] * 7), 0,
                                                 FLOAT) == NOT_SUPPORTED
    assert lib().mcdnnSetConvolutionGroupCount(c, 0) == BAD_PARAM
    assert lib().mcdnnSetConvolutionMathType(c, 4) == BAD_PARAM
    assert lib().mcdnnSetConvolutionReorderType(c, 2) == BAD_PARAM
    lib().mcdnnDestroyConvolutionDescriptor(c)


def test_output_dim_errors():
    x_desc, f = Desc(FLOAT, (1, 4, 5, 5)), Filter(FLOAT, (2, 3, 3, 3))
    conv = Conv((0, 0), (1, 1), (1, 1))
    dims = ints([0] * 4)
    assert lib().mcdnnGetConvolutionNdForwardOutputDim(conv.handle, x_desc.handle, f.handle, 4, dims) == BAD_PARAM
    f2 = Filter(FLOAT, (2, 4, 7, 7))
    assert lib().mcdnnGetConvolutionNdForwardOutputDim(conv.handle, x_desc.handle, f2.handle, 4, dims) == BAD_PARAM
    f3 = Filter(FLOAT, (2, 4, 3, 3))
    n, c, h, w = (c_int() for _ in range(4))
    assert lib().mcdnnGetConvolution2dForwardOutputDim(conv.handle, x_desc.handle, f3.handle, *(
        ctypes.byref(v) for v in (n, c, h, w))) == 0
    assert (n.value, c.value, h.value, w.value) == (1, 2, 3, 3)


def test_forward_routine_errors(handle):
    x, w, x_desc, f, conv, y_desc = make(FLOAT, CASES[0], CROSS_CORRELATION)
    xd, wd, yd = DeviceTensor(x_desc, x), DeviceTensor(f, w), DeviceTensor(y_desc)

    def run(xdesc=x_desc.handle, fdesc=f.handle, cdesc=conv.handle, ydesc=y_desc.handle, algo=FWD_IMPLICIT):
        return lib().mcdnnConvolutionForward(handle, scale(1.0, FLOAT), xdesc, xd.address, fdesc, wd.address, cdesc,
                                             algo, None, ctypes.c_size_t(0), scale(0.0, FLOAT), ydesc, yd.address)
    assert run(ydesc=Desc(FLOAT, (2, 6, 9, 9)).handle) == BAD_PARAM            # wrong output dims
    assert run(ydesc=Desc(DOUBLE, y_desc.dims).handle) == BAD_PARAM            # data types differ
    assert run(fdesc=None) == BAD_PARAM
    assert run(algo=42) == BAD_PARAM
    assert run(xdesc=Desc(INT8, x_desc.dims).handle, fdesc=Filter(INT8, f.dims).handle,
               ydesc=Desc(INT8, y_desc.dims).handle) == NOT_SUPPORTED
    half_conv = Conv((1, 1), (1, 1), (1, 1), compute=HALF)
    assert run(cdesc=half_conv.handle) == NOT_SUPPORTED                         # FLOAT data, HALF compute
