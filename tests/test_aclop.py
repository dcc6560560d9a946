"""The single-operator API (acl_op.h, acl_op_compiler.h) and the rest of what a framework binary links at
load: tensor descriptions and attributes as live C objects, operators by GE type string through one table,
the profiling hooks, the rt kernel functions and the runtime queries frameworks ask. In process, through
ctypes on the vendor-named libraries, as acl.py does."""
import ctypes

import numpy as np
import pytest
import torch

import acl
import conftest
from opemu.core import dtypes

C = ctypes
FLOAT, FLOAT16, INT32, INT64 = (dtypes.acl(n) for n in ("FLOAT", "FLOAT16", "INT32", "INT64"))
ND, NCHW, NC1HWC0 = 2, 0, 3
SUCCESS, INVALID_PARAM, OP_NOT_FOUND = 0, 100000, 100024
OP_INPUT_NOT_MATCH, OP_ATTR_NOT_MATCH, FORMAT_NOT_MATCH = 100021, 100023, 100027


def _library(name):
    return C.CDLL(str(conftest.toolkit() / "lib64" / ("lib%s.so" % name)), mode=C.RTLD_GLOBAL)


@pytest.fixture(scope="module")
def L():
    acl.lib()
    lib = _library("ascendcl")
    compiler = _library("acl_op_compiler")
    for name in ("aclCreateTensorDesc", "aclopCreateAttr", "aclCreateDataBuffer", "aclGetTensorDescName"):
        getattr(lib, name).restype = C.c_void_p
    lib.aclCreateTensorDesc.argtypes = [C.c_int, C.c_int, C.POINTER(C.c_int64), C.c_int]
    lib.aclCreateDataBuffer.argtypes = [C.c_void_p, C.c_size_t]
    lib.aclrtMalloc.argtypes = [C.POINTER(C.c_void_p), C.c_size_t, C.c_int]
    lib.aclrtMemcpy.argtypes = [C.c_void_p, C.c_size_t, C.c_void_p, C.c_size_t, C.c_int]
    lib.aclGetTensorDescSize.restype = lib.aclGetTensorDescElementCount.restype = C.c_size_t
    lib.aclGetTensorDescNumDims.restype = C.c_size_t
    for name in ("aclDestroyTensorDesc", "aclopDestroyAttr", "aclDestroyDataBuffer", "aclGetTensorDescType",
                 "aclGetTensorDescFormat", "aclGetTensorDescSize", "aclGetTensorDescElementCount",
                 "aclGetTensorDescNumDims", "aclGetTensorDescName"):
        getattr(lib, name).argtypes = [C.c_void_p]
    lib.aclopSetAttrInt.argtypes = [C.c_void_p, C.c_char_p, C.c_int64]
    lib.aclopSetAttrBool.argtypes = [C.c_void_p, C.c_char_p, C.c_uint8]
    lib.aclopSetAttrFloat.argtypes = [C.c_void_p, C.c_char_p, C.c_float]
    lib.aclopSetAttrDataType.argtypes = [C.c_void_p, C.c_char_p, C.c_int]
    lib.aclopSetAttrListInt.argtypes = [C.c_void_p, C.c_char_p, C.c_int, C.POINTER(C.c_int64)]
    lib.aclSetTensorFormat.argtypes = [C.c_void_p, C.c_int]
    lib.aclSetTensorPlaceMent.argtypes = [C.c_void_p, C.c_int]
    lib.aclSetTensorShape.argtypes = [C.c_void_p, C.c_int, C.POINTER(C.c_int64)]
    lib.aclSetTensorDescName.argtypes = [C.c_void_p, C.c_char_p]
    lib.aclGetTensorDescDimV2.argtypes = [C.c_void_p, C.c_size_t, C.POINTER(C.c_int64)]
    compiler.aclopCompileAndExecute.argtypes = [C.c_char_p, C.c_int, C.c_void_p, C.c_void_p, C.c_int, C.c_void_p,
                                                C.c_void_p, C.c_void_p, C.c_int, C.c_int, C.c_char_p, C.c_void_p]
    lib.aclopExecuteV2.argtypes = [C.c_char_p, C.c_int, C.c_void_p, C.c_void_p, C.c_int, C.c_void_p, C.c_void_p,
                                   C.c_void_p, C.c_void_p]
    lib.compiler = compiler
    return lib


def dims(values):
    return (C.c_int64 * max(len(values), 1))(*values)


class Operand:
    """An aclTensorDesc and an aclDataBuffer over device memory (or host memory, placed on the host)."""

    def __init__(self, L, array, fmt=ND, host=False):
        self.L, self.array = L, np.ascontiguousarray(array)
        self.desc = L.aclCreateTensorDesc(dtypes.ACL_OF[self.array.dtype], self.array.ndim, dims(self.array.shape), fmt)
        if host:
            self.address = C.c_void_p(self.array.ctypes.data)
            assert L.aclSetTensorPlaceMent(self.desc, 1) == SUCCESS
        else:
            self.address = C.c_void_p()
            assert L.aclrtMalloc(C.byref(self.address), max(self.array.nbytes, 1), 0) == 0
            L.aclrtMemcpy(self.address, self.array.nbytes, self.array.ctypes.data, self.array.nbytes, 1)
        self.buffer = L.aclCreateDataBuffer(self.address, self.array.nbytes)

    def read(self):
        out = np.empty_like(self.array)
        assert self.L.aclrtMemcpy(out.ctypes.data, out.nbytes, self.address, out.nbytes, 2) == 0
        return out


def execute(L, op_type, inputs, outputs, attr=None, entry="aclopCompileAndExecute"):
    descs_in = (C.c_void_p * max(len(inputs), 1))(*[o.desc for o in inputs])
    bufs_in = (C.c_void_p * max(len(inputs), 1))(*[o.buffer for o in inputs])
    descs_out = (C.c_void_p * max(len(outputs), 1))(*[o.desc for o in outputs])
    bufs_out = (C.c_void_p * max(len(outputs), 1))(*[o.buffer for o in outputs])
    if entry == "aclopExecuteV2":
        status = L.aclopExecuteV2(op_type.encode(), len(inputs), descs_in, bufs_in, len(outputs), descs_out, bufs_out,
                                  attr, None)
    else:
        status = L.compiler.aclopCompileAndExecute(op_type.encode(), len(inputs), descs_in, bufs_in, len(outputs),
                                                   descs_out, bufs_out, attr, 0, 0, None, None)
    assert L.aclrtSynchronizeStream(None) == 0
    return status


def attrs(L, **values):
    attr = L.aclopCreateAttr()
    for name, value in values.items():
        if isinstance(value, bool):
            assert L.aclopSetAttrBool(attr, name.encode(), value) == SUCCESS
        elif isinstance(value, tuple):
            assert L.aclopSetAttrListInt(attr, name.encode(), len(value), dims(value)) == SUCCESS
        else:
            assert L.aclopSetAttrInt(attr, name.encode(), value) == SUCCESS
    return attr


# ---- tensor descriptions ----

def test_a_tensor_description_reads_back_its_type_format_shape_and_name(L):
    desc = L.aclCreateTensorDesc(FLOAT16, 3, dims([2, 3, 4]), NCHW)
    L.aclSetTensorDescName(desc, b"x1")
    dim = C.c_int64()
    assert (L.aclGetTensorDescType(desc), L.aclGetTensorDescFormat(desc), L.aclGetTensorDescNumDims(desc)) == (FLOAT16, NCHW, 3)
    assert (L.aclGetTensorDescElementCount(desc), L.aclGetTensorDescSize(desc)) == (24, 48)
    assert L.aclGetTensorDescDimV2(desc, 2, C.byref(dim)) == SUCCESS and dim.value == 4
    assert C.string_at(L.aclGetTensorDescName(desc)) == b"x1"
    L.aclDestroyTensorDesc(desc)


def test_a_null_or_destroyed_description_reads_as_the_documented_defaults(L):
    desc = L.aclCreateTensorDesc(FLOAT, 1, dims([5]), ND)
    L.aclDestroyTensorDesc(desc)
    for d in (None, desc):
        assert (L.aclGetTensorDescType(d), L.aclGetTensorDescFormat(d), L.aclGetTensorDescNumDims(d),
                L.aclGetTensorDescSize(d)) == (-1, -1, 0, 0)
    assert L.aclSetTensorFormat(desc, ND) == INVALID_PARAM
    assert "not a live aclTensorDesc" in acl.recent_error()
    L.aclDestroyTensorDesc(desc)  # a second destroy of a dead description is refused, never a double free


def test_a_dimension_index_past_the_rank_is_invalid_param(L):
    desc = L.aclCreateTensorDesc(FLOAT, 2, dims([2, 3]), ND)
    dim = C.c_int64()
    assert L.aclGetTensorDescDimV2(desc, 2, C.byref(dim)) == INVALID_PARAM
    assert "index[2] must be less than dims num[2]" in acl.recent_error()
    L.aclDestroyTensorDesc(desc)


@pytest.mark.parametrize("count, values", [(-1, [1]), (1, [-3])], ids=["negative numDims", "dimension below -2"])
def test_a_description_of_an_impossible_shape_is_not_created(L, count, values):
    assert not L.aclCreateTensorDesc(FLOAT, count, dims(values), ND)
    assert acl.recent_error()


# ---- attributes ----

def test_attribute_setters_refuse_a_null_or_destroyed_attribute_set(L):
    assert L.aclopSetAttrInt(None, b"axis", 1) == INVALID_PARAM
    attr = L.aclopCreateAttr()
    L.aclopDestroyAttr(attr)
    assert L.aclopSetAttrInt(attr, b"axis", 1) == INVALID_PARAM
    assert "not a live aclopAttr" in acl.recent_error()


def test_setting_an_attribute_again_replaces_its_value(L):
    x = Operand(L, np.arange(6, dtype=np.float32).reshape(2, 3))
    y = Operand(L, np.zeros(6, np.float16).reshape(2, 3))
    attr = attrs(L, dst_type=INT32)
    assert L.aclopSetAttrDataType(attr, b"dst_type", FLOAT16) == SUCCESS
    assert execute(L, "Cast", [x], [y], attr) == SUCCESS
    np.testing.assert_array_equal(y.read(), x.array.astype(np.float16))


# ---- operators by GE type ----

def _binary(L, op_type, reference, entry="aclopCompileAndExecute"):
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((1, 4)).astype(np.float32) + 3
    x1, x2, y = Operand(L, a), Operand(L, b), Operand(L, np.zeros((3, 4), np.float32))
    assert execute(L, op_type, [x1, x2], [y], entry=entry) == SUCCESS
    np.testing.assert_allclose(y.read(), reference(torch.from_numpy(a), torch.from_numpy(b)).numpy(), rtol=1e-6)


@pytest.mark.parametrize("op_type, reference", [("Add", torch.add), ("Sub", torch.sub), ("Mul", torch.mul),
                                                ("RealDiv", torch.div), ("Maximum", torch.maximum)])
def test_elementwise_types_broadcast_as_torch(L, op_type, reference):
    _binary(L, op_type, reference)


def test_execute_v2_runs_the_same_table(L):
    _binary(L, "Add", torch.add, entry="aclopExecuteV2")


@pytest.mark.parametrize("t1, t2", [(False, False), (False, True), (True, False)])
def test_matmul_v2_transposes_its_operands_by_attribute(L, t1, t2):
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((4, 5)).astype(np.float32), rng.standard_normal((5, 6)).astype(np.float32)
    a_in, b_in = (a.T.copy() if t1 else a), (b.T.copy() if t2 else b)
    x1, x2, y = Operand(L, a_in), Operand(L, b_in), Operand(L, np.zeros((4, 6), np.float32))
    assert execute(L, "MatMulV2", [x1, x2], [y], attrs(L, transpose_x1=t1, transpose_x2=t2)) == SUCCESS
    np.testing.assert_allclose(y.read(), (torch.from_numpy(a) @ torch.from_numpy(b)).numpy(), rtol=1e-5, atol=1e-6)


def test_batch_matmul_takes_adj_attributes(L):
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((2, 3, 4)).astype(np.float32), rng.standard_normal((2, 5, 4)).astype(np.float32)
    x1, x2, y = Operand(L, a), Operand(L, b), Operand(L, np.zeros((2, 3, 5), np.float32))
    assert execute(L, "BatchMatMul", [x1, x2], [y], attrs(L, adj_x1=False, adj_x2=True)) == SUCCESS
    np.testing.assert_allclose(y.read(), (torch.from_numpy(a) @ torch.from_numpy(b).transpose(1, 2)).numpy(),
                               rtol=1e-5, atol=1e-6)


def test_reduce_sum_reads_its_axes_from_a_host_input(L):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x, axes = Operand(L, a), Operand(L, np.array([0, 2], np.int64), host=True)
    y = Operand(L, np.zeros((1, 3, 1), np.float32))
    assert execute(L, "ReduceSum", [x, axes], [y], attrs(L, keep_dims=True)) == SUCCESS, acl.recent_error()
    np.testing.assert_array_equal(y.read(), a.sum(axis=(0, 2), keepdims=True))


def test_fill_identity_and_zeros_like_write_their_output(L):
    shape, value = Operand(L, np.array([2, 2], np.int64), host=True), Operand(L, np.array([2.5], np.float32))
    y = Operand(L, np.zeros((2, 2), np.float32))
    assert execute(L, "Fill", [shape, value], [y]) == SUCCESS
    np.testing.assert_array_equal(y.read(), np.full((2, 2), 2.5, np.float32))
    copy = Operand(L, np.zeros((2, 2), np.float32))
    assert execute(L, "Identity", [y], [copy]) == SUCCESS
    np.testing.assert_array_equal(copy.read(), y.read())
    assert execute(L, "ZerosLike", [y], [copy]) == SUCCESS
    np.testing.assert_array_equal(copy.read(), np.zeros((2, 2), np.float32))


# ---- errors ----

def test_an_op_type_outside_the_table_is_op_not_found_naming_it(L):
    x = Operand(L, np.ones(4, np.float32))
    assert execute(L, "Erfinv", [x], [x]) == OP_NOT_FOUND
    assert "op type Erfinv is not supported by opemu" in acl.recent_error()


def test_operand_counts_that_do_not_fit_the_ir_are_op_input_not_match(L):
    x = Operand(L, np.ones(4, np.float32))
    assert execute(L, "Add", [x], [x]) == OP_INPUT_NOT_MATCH
    assert "Add takes 2 inputs (x1, x2), not 1" in acl.recent_error()


def test_a_required_attribute_left_unset_is_op_attr_not_match(L):
    x, y = Operand(L, np.ones(4, np.float32)), Operand(L, np.ones(4, np.float16))
    assert execute(L, "Cast", [x], [y], attrs(L)) == OP_ATTR_NOT_MATCH
    assert "Cast: the required attribute dst_type is not set" in acl.recent_error()


def test_a_private_storage_format_is_format_not_match(L):
    x, y = Operand(L, np.ones((1, 16, 2, 2), np.float32)), Operand(L, np.ones((1, 16, 2, 2), np.float32))
    assert L.aclSetTensorFormat(x.desc, NC1HWC0) == SUCCESS
    assert execute(L, "Relu", [x], [y]) == FORMAT_NOT_MATCH


def test_what_the_aclnn_check_refuses_is_invalid_param_with_its_message(L):
    x1, x2 = Operand(L, np.ones((2, 3), np.float32)), Operand(L, np.ones((4, 3), np.float32))
    assert execute(L, "Add", [x1, x2], [Operand(L, np.ones((2, 3), np.float32))]) == INVALID_PARAM
    assert "Add (aclnnAdd)" in acl.recent_error()


# ---- profiling hooks, rt kernels, runtime queries ----

def test_profiling_hash_ids_are_stable_and_name_their_string(L):
    prof = _library("profapi")
    prof.MsprofGetHashId.restype = C.c_uint64
    prof.MsprofGetHashId.argtypes = [C.c_char_p, C.c_size_t]
    prof.MsprofId2Str.argtypes = [C.c_uint64]
    prof.MsprofId2Str.restype = C.c_void_p
    first, again = prof.MsprofGetHashId(b"MatMul", 6), prof.MsprofGetHashId(b"MatMul", 6)
    assert first == again != prof.MsprofGetHashId(b"Add", 3)
    assert C.string_at(prof.MsprofId2Str(first)) == b"MatMul"
    assert prof.MsprofGetHashId(None, 0) == 2 ** 64 - 1


def test_profiling_reports_without_a_started_profiler_are_uninitialized(L):
    prof = _library("profapi")
    record = (C.c_uint8 * 40)()
    assert prof.MsprofReportApi(0, record) == 6         # MSPROF_ERROR_UNINITIALIZE
    assert prof.MsprofReportCompactInfo(0, None, 0) == -1
    prof.MsprofSysCycleTime.restype = C.c_uint64
    assert 0 < prof.MsprofSysCycleTime() <= prof.MsprofSysCycleTime()


def test_rt_kernel_launch_is_not_supported_with_a_message(L):
    rt = _library("runtime")
    assert rt.rtKernelLaunch(None, 1, None, 0, None, None) == 207000  # ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert "rtKernelLaunch (runtime/kernel.h) is not supported by opemu" in acl.recent_error()


@pytest.mark.parametrize("soc, bf16", [("Ascend910B1", 1), ("Ascend910_9391", 1), ("Ascend310P3", 0)])
def test_cann_attributes_follow_the_soc(L, monkeypatch, soc, bf16):
    monkeypatch.setenv("OPEMU_SOC", soc)
    value = C.c_int32()
    for attribute, expected in ((0, bf16), (1, bf16), (2, 1)):     # INF_NAN, BF16, JIT_COMPILE
        assert L.aclGetCannAttribute(attribute, C.byref(value)) == SUCCESS and value.value == expected
    assert L.aclGetCannAttribute(7, C.byref(value)) == INVALID_PARAM


def test_device_capability_is_the_platform_figures(L):
    value = C.c_int64()
    assert L.aclGetDeviceCapability(0, 0, C.byref(value)) == SUCCESS and value.value == 24
    assert L.aclGetDeviceCapability(0, 2, C.byref(value)) == SUCCESS and value.value == 192 << 20
    assert L.aclGetDeviceCapability(99, 0, C.byref(value)) == INVALID_PARAM


def test_sys_params_read_back_and_check_their_values(L):
    value = C.c_int64()
    L.aclrtSetSysParamOpt.argtypes = [C.c_int, C.c_int64]
    assert L.aclrtSetSysParamOpt(0, 1) == SUCCESS
    assert L.aclrtGetSysParamOpt(0, C.byref(value)) == SUCCESS and value.value == 1
    assert L.aclrtSetSysParamOpt(0, 4) == 107000       # ACL_ERROR_RT_PARAM_INVALID: levels are 0..3
    assert L.aclrtSetSysParamOpt(9, 1) == INVALID_PARAM
    assert L.aclrtCtxGetSysParamOpt(1, C.byref(value)) == 107021   # ACL_ERROR_RT_SYSPARAMOPT_NOT_SET
    assert L.aclrtSetSysParamOpt(0, 0) == SUCCESS


def test_capture_info_says_no_stream_is_capturing(L):
    status, model = C.c_int(-1), C.c_void_p(1)
    assert L.aclmdlRICaptureGetInfo(None, C.byref(status), C.byref(model)) == SUCCESS
    assert status.value == 0 and not model.value        # ACL_MODEL_RI_CAPTURE_STATUS_NONE
