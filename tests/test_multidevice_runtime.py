"""The runtime calls multi-device programs make before their collectives (hccl_test's device set-up
among them): the overflow mode, a stream's failure mode, access between emulated devices."""
import ctypes

import pytest

import acl

ACL_ERROR_INVALID_PARAM, ACL_ERROR_FEATURE_UNSUPPORTED = 100000, 200006
SATURATION, INFNAN = 0, 1
CONTINUE_ON_FAILURE, STOP_ON_FAILURE = 0, 1
ACL_STREAM_ATTR_FAILURE_MODE = 1


def test_the_overflow_mode_is_inf_nan_and_saturation_is_refused_not_ignored():
    lib = acl.lib()
    assert lib.aclrtSetDeviceSatMode(INFNAN) == 0
    mode = ctypes.c_int(-1)
    assert lib.aclrtGetDeviceSatMode(ctypes.byref(mode)) == 0 and mode.value == INFNAN
    assert lib.aclrtSetDeviceSatMode(SATURATION) == ACL_ERROR_FEATURE_UNSUPPORTED
    assert "not emulated" in acl.recent_error()
    assert lib.aclrtSetDeviceSatMode(2) == ACL_ERROR_INVALID_PARAM
    assert lib.aclrtGetDeviceSatMode(None) == ACL_ERROR_INVALID_PARAM


@pytest.mark.parametrize("mode", [CONTINUE_ON_FAILURE, STOP_ON_FAILURE])
def test_a_streams_failure_mode_is_set_and_reported_as_its_attribute(mode):
    lib = acl.lib()
    stream = ctypes.c_void_p()
    assert lib.aclrtCreateStream(ctypes.byref(stream)) == 0
    assert lib.aclrtSetStreamFailureMode(stream, ctypes.c_uint64(mode)) == 0
    value = ctypes.c_uint64(99)
    assert lib.aclrtGetStreamAttribute(stream, ACL_STREAM_ATTR_FAILURE_MODE, ctypes.byref(value)) == 0
    assert value.value == mode
    assert lib.aclrtSetStreamFailureMode(stream, ctypes.c_uint64(2)) == ACL_ERROR_INVALID_PARAM
    lib.aclrtDestroyStream(stream)


def test_emulated_devices_can_access_each_other():
    lib = acl.lib()
    can = ctypes.c_int32(0)
    assert lib.aclrtDeviceCanAccessPeer(ctypes.byref(can), 0, 1) == 0 and can.value == 1
