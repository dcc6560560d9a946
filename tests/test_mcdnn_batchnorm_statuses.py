"""Every documented status of mcDNN batch normalization, its Ex routines and the normalization family: NULL
pointers, descriptors, modes, fused ops and size queries (mcdnn.md §3.1, §3.9)."""
import numpy as np
import pytest

from mc import (BAD_PARAM, BFLOAT16, DOUBLE, FLOAT, HALF, INT8, NOT_SUPPORTED, Desc, c_double, c_int, c_size_t, call,
                handle, lib, recent_error)
from mc_batchnorm import (DIMS, EPS, NORM_PER_CHANNEL, OPS_ACTIVATION, OPS_ADD_ACTIVATION, OPS_BN, PER_ACTIVATION,
                          SPATIAL, TANH, bn, derived, device_bytes, ex_backward, ex_forward, make_activation,
                          norm_backward, norm_inference, norm_size_query, norm_training, size_query)


@pytest.mark.parametrize("name", ["alpha", "beta", "x", "y", "bnScale", "bnBias"])
def test_forward_training_null_pointer_is_bad_param(bn, name):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training(**{name: None}) == BAD_PARAM
    assert name in recent_error()


def test_tensors_outside_4_and_5_dimensions_are_bad_param(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    d3, d6 = Desc(FLOAT, (3, 4, 30)), Desc(FLOAT, (3, 4, 5, 6, 1, 1))
    assert b.training(xd=d3, yd=d3) == BAD_PARAM
    assert "only 4-D and 5-D" in recent_error()
    assert b.training(xd=d6, yd=d6) == BAD_PARAM
    assert b.backward(xd=d3, dyd=d3, dxd=d3) == BAD_PARAM
    assert lib().mcdnnDeriveBNTensorDescriptor(Desc(FLOAT, DIMS).handle, d3.handle, SPATIAL) == BAD_PARAM


def test_parameter_descriptor_that_does_not_fit_the_mode_is_bad_param(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    per_activation = derived(b.xd, PER_ACTIVATION)
    assert b.training(pd=per_activation) == BAD_PARAM
    assert "1, 4, 1, 1" in recent_error()
    assert b.training(mode=PER_ACTIVATION) == BAD_PARAM      # 1xCx1x1 for per-activation
    assert b.backward(pd=per_activation) == BAD_PARAM
    assert b.training(pd=Desc(FLOAT, (1, 4, 1, 1, 1))) == BAD_PARAM


def test_save_pair_with_one_null_is_bad_param(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert call("mcdnnBatchNormalizationForwardTraining", b.handle, c_int(SPATIAL), b.s(1), b.s(0), b.xd.handle,
                b.X.address, b.xd.handle, b.Y.address, b.pd.handle, b.S.address, b.B.address, c_double(0.1),
                b.RM.address, b.RV.address, c_double(EPS), b.SM.address, None) == BAD_PARAM
    assert "only together" in recent_error()
    assert b.backward(savedInvVariance=None) == BAD_PARAM


def test_running_pair_with_one_null_is_bad_param(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert call("mcdnnBatchNormalizationForwardTraining", b.handle, c_int(SPATIAL), b.s(1), b.s(0), b.xd.handle,
                b.X.address, b.xd.handle, b.Y.address, b.pd.handle, b.S.address, b.B.address, c_double(0.1),
                None, b.RV.address, c_double(EPS), b.SM.address, b.SI.address) == BAD_PARAM
    assert "resultRunningMean" in recent_error()


def test_epsilon_below_the_minimum_is_bad_param(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training(eps=-1e-7) == BAD_PARAM
    assert "MCDNN_BN_MIN_EPSILON" in recent_error()
    assert b.backward(eps=-1.0) == BAD_PARAM
    assert b.training(eps=float("nan")) == BAD_PARAM
    assert b.training(eps=0.0) == 0                          # MCDNN_BN_MIN_EPSILON is 0.0
    assert norm_training(b, eps=-1e-3) == BAD_PARAM           # the normalization family: epsilon >= 0
    assert norm_backward(b, eps=-1e-3) == BAD_PARAM


def test_x_y_dims_or_data_types_that_differ_are_bad_param(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    other = Desc(FLOAT, (3, 4, 5, 7))
    assert b.training(yd=other) == BAD_PARAM
    assert b.training(yd=Desc(HALF, DIMS)) == BAD_PARAM
    assert b.backward(dyd=other) == BAD_PARAM
    assert b.backward(dxd=Desc(DOUBLE, DIMS)) == BAD_PARAM


@pytest.mark.parametrize("name", ["alphaDataDiff", "betaDataDiff", "alphaParamDiff", "betaParamDiff", "x", "dy", "dx",
                                  "bnScale", "dBnScaleResult", "dBnBiasResult"])
def test_backward_null_pointer_is_bad_param(bn, name):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training() == 0
    assert b.backward(**{name: None}) == BAD_PARAM
    assert name in recent_error()


def test_a_call_like_one_that_passed_is_checked_for_what_changed(bn):
    """The verdict of a passing call is kept: a null pointer, a bad epsilon or another descriptor in the same
    call is still refused, and new scaling factors are read."""
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training() == 0
    assert b.backward() == 0, recent_error()
    dx = b.DX.read()
    for name in ("dx", "betaParamDiff", "savedMean"):
        assert b.backward(**{name: None}) == BAD_PARAM
        assert name in recent_error()
    assert b.backward(eps=-1.0) == BAD_PARAM
    assert b.backward(dxd=Desc(FLOAT, DIMS[:3] + (DIMS[3] + 1,))) == BAD_PARAM
    assert b.backward(alphas=(2.0, 0.0, 1.0, 0.0)) == 0, recent_error()
    np.testing.assert_allclose(b.DX.read(), 2 * dx, rtol=1e-6)


def test_data_type_configurations_outside_the_tables_are_not_supported(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training(xd=Desc(INT8, DIMS), yd=Desc(INT8, DIMS)) == NOT_SUPPORTED
    assert b.training(pd=Desc(DOUBLE, (1, 4, 1, 1))) == NOT_SUPPORTED   # FLOAT data needs float parameters
    h = bn(HALF, DIMS, SPATIAL)
    assert h.training(pd=Desc(HALF, (1, 4, 1, 1))) == NOT_SUPPORTED
    bf = bn(BFLOAT16, DIMS, SPATIAL)
    assert bf.training() == 0                                 # ForwardTraining lists PSEUDO_BFLOAT16_CONFIG
    assert bf.backward() == NOT_SUPPORTED                      # Backward does not
    assert ex_forward(bf) == NOT_SUPPORTED                     # nor ForwardTrainingEx
    assert "supported configurations" in recent_error()


def test_invalid_mode_and_ops_are_bad_param(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training(mode=3) == BAD_PARAM
    assert "mcdnnBatchNormMode_t" in recent_error()
    assert ex_forward(b, ops=3) == BAD_PARAM
    assert lib().mcdnnDeriveBNTensorDescriptor(Desc(FLOAT, DIMS).handle, b.xd.handle, 7) == BAD_PARAM
    assert norm_training(b, algo=2) == BAD_PARAM
    assert "mcdnnNormAlgo_t" in recent_error()


def test_fused_ops_without_an_activation_descriptor_or_their_tensors_are_bad_param(bn):
    b = bn(HALF, DIMS, SPATIAL, "nhwc")
    act = make_activation()
    R = device_bytes(4096)
    assert ex_forward(b, OPS_ACTIVATION, None, reserve=R.address, rs_size=4096) == BAD_PARAM
    assert "activationDesc" in recent_error()
    assert ex_forward(b, OPS_ADD_ACTIVATION, act, reserve=R.address, rs_size=4096) == BAD_PARAM  # z missing
    assert ex_forward(b, OPS_ADD_ACTIVATION, act, reserve=R.address, rs_size=4096, z=b.Z.address,
                      zd=Desc(HALF, (3, 4, 5, 7)).handle) == BAD_PARAM
    assert ex_backward(b, OPS_ACTIVATION, act, reserve=R.address, rs_size=4096, bias=b.B.address) == BAD_PARAM
    assert "yData" in recent_error()
    assert ex_backward(b, OPS_ACTIVATION, act, reserve=R.address, rs_size=4096, y=b.Y.address,
                       yd=b.xd.handle) == BAD_PARAM
    assert "bnBiasData" in recent_error()
    assert ex_backward(b, OPS_ADD_ACTIVATION, act, reserve=R.address, rs_size=4096, y=b.Y.address, yd=b.xd.handle,
                       bias=b.B.address) == BAD_PARAM                                          # dz missing


def test_a_reserve_space_smaller_than_its_query_is_bad_param(bn):
    b = bn(FLOAT, DIMS, SPATIAL, "nhwc")
    act = make_activation()
    _, rs = size_query("mcdnnGetBatchNormalizationTrainingExReserveSpaceSize", b.handle, c_int(b.mode),
                       c_int(OPS_ACTIVATION), act, b.xd.handle)
    R = device_bytes(rs)
    assert ex_forward(b, OPS_ACTIVATION, act, reserve=R.address, rs_size=rs - 1) == BAD_PARAM
    assert "reserveSpaceSizeInBytes" in recent_error()
    assert ex_forward(b, OPS_ACTIVATION, act, reserve=None, rs_size=0) == BAD_PARAM


def test_fused_ops_outside_nhwc_relu_or_the_z_table_are_not_supported(bn):
    b = bn(FLOAT, DIMS, SPATIAL, "nchw")
    act, tanh = make_activation(), make_activation(TANH)
    R = device_bytes(4096)
    assert ex_forward(b, OPS_ACTIVATION, act, reserve=R.address, rs_size=4096) == NOT_SUPPORTED
    assert "NHWC" in recent_error()
    n = bn(FLOAT, DIMS, SPATIAL, "nhwc")
    assert ex_forward(n, OPS_ACTIVATION, tanh, reserve=R.address, rs_size=4096) == NOT_SUPPORTED
    assert "RELU" in recent_error()
    assert ex_forward(n, OPS_ADD_ACTIVATION, act, reserve=R.address, rs_size=4096, z=n.Z.address,
                      zd=n.xd.handle) == NOT_SUPPORTED               # z only with HALF data
    assert norm_training(b, OPS_ACTIVATION, act, reserve=R.address, rs_size=4096) == NOT_SUPPORTED
    assert size_query("mcdnnGetBatchNormalizationTrainingExReserveSpaceSize", b.handle, c_int(SPATIAL),
                      c_int(OPS_ACTIVATION), tanh, n.xd.handle)[0] == NOT_SUPPORTED


def test_group_count_other_than_one_is_not_supported(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert norm_training(b, groups=2) == NOT_SUPPORTED
    assert "groupCnt" in recent_error()
    assert norm_backward(b, groups=0) == NOT_SUPPORTED
    assert norm_inference(b, groups=2) == NOT_SUPPORTED
    assert norm_size_query("mcdnnGetNormalizationTrainingReserveSpaceSize", b.handle, c_int(1), c_int(0), c_int(0),
                           None, b.xd.handle, groups=2)[0] == NOT_SUPPORTED
    sb, mv = Desc(FLOAT, (1, 1, 1, 1)), Desc(FLOAT, (1, 1, 1, 1))
    assert lib().mcdnnDeriveNormTensorDescriptor(sb.handle, mv.handle, b.xd.handle, 1, 2) == NOT_SUPPORTED
    assert lib().mcdnnDeriveNormTensorDescriptor(sb.handle, mv.handle, b.xd.handle, 5, 1) == BAD_PARAM


def test_normalization_mean_var_descriptor_must_fit_the_mode(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert norm_training(b, mvd=derived(b.xd, PER_ACTIVATION)) == BAD_PARAM
    assert "normMeanVarDesc" in recent_error()


def test_size_queries_check_their_descriptors_and_output(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    args = (b.handle, c_int(SPATIAL), c_int(OPS_BN), b.xd.handle, None, b.xd.handle, b.pd.handle, None)
    assert call("mcdnnGetBatchNormalizationForwardTrainingExWorkspaceSize", *args, None) == BAD_PARAM
    d3 = Desc(FLOAT, (3, 4, 30))
    assert size_query("mcdnnGetBatchNormalizationForwardTrainingExWorkspaceSize", b.handle, c_int(SPATIAL),
                      c_int(OPS_BN), d3.handle, None, d3.handle, b.pd.handle, None)[0] == BAD_PARAM
    assert size_query("mcdnnGetBatchNormalizationBackwardExWorkspaceSize", b.handle, c_int(SPATIAL), c_int(OPS_BN),
                      b.xd.handle, None, Desc(FLOAT, (3, 4, 5, 7)).handle, None, b.xd.handle, b.pd.handle,
                      None)[0] == BAD_PARAM
    assert size_query("mcdnnGetBatchNormalizationTrainingExReserveSpaceSize", b.handle, c_int(SPATIAL),
                      c_int(OPS_BN), None, d3.handle)[0] == BAD_PARAM
    assert norm_size_query("mcdnnGetNormalizationForwardTrainingWorkspaceSize", b.handle, c_int(NORM_PER_CHANNEL),
                           c_int(OPS_BN), c_int(0), b.xd.handle, None, b.xd.handle,
                           derived(b.xd, PER_ACTIVATION).handle, None, b.pd.handle) == (BAD_PARAM, 12345)


def _named_call(name, args, null):
    """Calls `name` with (parameter, value) pairs, the parameter named `null` passed as NULL."""
    assert null in dict(args), null
    return call(name, *[None if n == null else v for n, v in args])


def ex_forward_args(b):
    return [("handle", b.handle), ("mode", c_int(b.mode)), ("bnOps", c_int(OPS_BN)), ("alpha", b.s(1)),
            ("beta", b.s(0)), ("xDesc", b.xd.handle), ("xData", b.X.address), ("zDesc", None), ("zData", None),
            ("yDesc", b.xd.handle), ("yData", b.Y.address), ("bnScaleBiasMeanVarDesc", b.pd.handle),
            ("bnScale", b.S.address), ("bnBias", b.B.address), ("factor", c_double(0.1)),
            ("resultRunningMean", b.RM.address), ("resultRunningVariance", b.RV.address), ("epsilon", c_double(EPS)),
            ("resultSaveMean", b.SM.address), ("resultSaveInvVariance", b.SI.address), ("activationDesc", None),
            ("workspace", None), ("workSpaceSizeInBytes", c_size_t(0)), ("reserveSpace", None),
            ("reserveSpaceSizeInBytes", c_size_t(0))]


def ex_backward_args(b):
    return [("handle", b.handle), ("mode", c_int(b.mode)), ("bnOps", c_int(OPS_BN)), ("alphaDataDiff", b.s(1)),
            ("betaDataDiff", b.s(0)), ("alphaParamDiff", b.s(1)), ("betaParamDiff", b.s(0)), ("xDesc", b.xd.handle),
            ("xData", b.X.address), ("yDesc", None), ("yData", None), ("dyDesc", b.xd.handle),
            ("dyData", b.DY.address), ("dzDesc", None), ("dzData", None), ("dxDesc", b.xd.handle),
            ("dxData", b.DX.address), ("dBnScaleBiasDesc", b.pd.handle), ("bnScaleData", b.S.address),
            ("bnBiasData", None), ("dBnScaleData", b.DS.address), ("dBnBiasData", b.DB.address),
            ("epsilon", c_double(EPS)), ("savedMean", b.SM.address), ("savedInvVariance", b.SI.address),
            ("activationDesc", None), ("workSpace", None), ("workSpaceSizeInBytes", c_size_t(0)),
            ("reserveSpace", None), ("reserveSpaceSizeInBytes", c_size_t(0))]


@pytest.mark.parametrize("null", ["alpha", "beta", "xData", "yData", "bnScale", "bnBias", "resultSaveMean",
                                  "resultRunningVariance"])
def test_forward_training_ex_null_pointer_is_bad_param(bn, null):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert _named_call("mcdnnBatchNormalizationForwardTrainingEx", ex_forward_args(b), null) == BAD_PARAM
    assert null in recent_error() or "only together" in recent_error()


@pytest.mark.parametrize("null", ["alphaDataDiff", "betaDataDiff", "alphaParamDiff", "betaParamDiff", "xData",
                                  "dyData", "dxData", "bnScaleData", "dBnScaleData", "dBnBiasData", "savedMean"])
def test_backward_ex_null_pointer_is_bad_param(bn, null):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training() == 0
    assert _named_call("mcdnnBatchNormalizationBackwardEx", ex_backward_args(b), null) == BAD_PARAM
    assert null in recent_error() or "only together" in recent_error()


def test_ex_routines_with_all_their_pointers_succeed(bn):
    """The argument lists the NULL tests start from are valid: each failure above is the NULL's."""
    b = bn(FLOAT, DIMS, SPATIAL)
    assert call("mcdnnBatchNormalizationForwardTrainingEx", *[v for _, v in ex_forward_args(b)]) == 0
    assert call("mcdnnBatchNormalizationBackwardEx", *[v for _, v in ex_backward_args(b)]) == 0


@pytest.mark.parametrize("routine", ["training", "backward"])
def test_normalization_null_pointer_is_bad_param(bn, routine):
    b = bn(FLOAT, DIMS, SPATIAL)
    if routine == "training":
        b.B = type("Null", (), {"address": None})()          # normBias NULL
        assert norm_training(b) == BAD_PARAM
        assert "normBias" in recent_error()
    else:
        assert norm_training(b) == 0
        b.DB = type("Null", (), {"address": None})()         # dNormBiasData NULL
        assert norm_backward(b) == BAD_PARAM
        assert "dNormBiasData" in recent_error()
