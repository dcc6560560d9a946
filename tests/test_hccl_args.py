"""Bad arguments get the vendor's HcclResult at the call, with a message (EI0003's fields), and
nothing is queued: null pointers, counts, data types and reductions, roots, buffers outside device
memory or on another device, a stream of another device, a destroyed communicator."""
import ctypes

import numpy as np
import pytest

import acl
import hccl
from hccl import E_NOT_SUPPORT, E_PARA, E_PTR, SUCCESS, call, u64


@pytest.fixture(scope="module")
def world():
    w = hccl.World(2)
    w.send = w.buffer(0, np.zeros(16, np.float32))
    w.recv = w.buffer(0, np.zeros(16, np.float32))
    yield w
    w.close()


def allreduce(world, send=None, recv=None, count=4, dtype=hccl.FP32, op=hccl.SUM, comm=None, stream=None):
    return call("HcclAllReduce", send if send is not None else world.send.address,
                recv if recv is not None else world.recv.address, u64(count), dtype, op,
                comm if comm is not None else world.comms[0], stream if stream is not None else world.streams[0])


def message():
    return acl.recent_error() or ""


@pytest.mark.parametrize("which, name", [("stream", "stream"), ("comm", "comm"), ("send", "sendBuf"),
                                         ("recv", "recvBuf")])
def test_a_null_pointer_is_hccl_e_ptr_named_in_the_vendors_order(world, which, name):
    args = {which: ctypes.c_void_p(0)}
    assert allreduce(world, **args) == E_PTR
    assert "value [nullptr] for parameter [%s]" % name in message()


def test_a_zero_count_allreduce_succeeds_before_any_check(world):
    assert call("HcclAllReduce", None, None, u64(0), 999, 999, None, None) == SUCCESS


def test_a_count_above_the_maximum_is_hccl_e_para(world):
    assert allreduce(world, count=0x800000000) == E_PARA
    assert "parameter [count]" in message()


@pytest.mark.parametrize("dtype", [hccl.UINT8, hccl.UINT16, hccl.UINT32, hccl.INT128, hccl.HIF8, hccl.FP8E4M3,
                                   13, 255])
def test_a_type_reductions_do_not_take_is_hccl_e_not_support(world, dtype):
    assert allreduce(world, dtype=dtype) == E_NOT_SUPPORT
    assert "parameter [dataType]" in message()


def test_int128_is_not_even_moved(world):
    assert call("HcclAllGather", world.send.address, world.recv.address, u64(1), hccl.INT128, world.comms[0],
                world.streams[0]) == E_NOT_SUPPORT


@pytest.mark.parametrize("dtype", [hccl.INT16, hccl.BF16])
def test_prod_of_int16_or_bf16_is_hccl_e_not_support(world, dtype):
    assert allreduce(world, dtype=dtype, op=hccl.PROD) == E_NOT_SUPPORT
    assert "reduce op prod" in message()


@pytest.mark.parametrize("op", [4, 255, -1])
def test_an_unknown_reduction_is_hccl_e_not_support(world, op):
    assert allreduce(world, op=op) == E_NOT_SUPPORT
    assert "parameter [op]" in message()


def test_a_root_outside_the_communicator_is_hccl_e_para(world):
    assert call("HcclBroadcast", world.send.address, u64(4), hccl.FP32, 2, world.comms[0],
                world.streams[0]) == E_PARA
    assert "a rank in 0 ~ 1" in message()


def test_host_memory_is_not_a_device_buffer(world):
    host = np.zeros(16, np.float32)
    assert allreduce(world, send=ctypes.c_void_p(host.ctypes.data)) == E_PARA
    assert "not inside a live device allocation" in message()


def test_a_buffer_running_past_its_allocation_is_hccl_e_para(world):
    assert allreduce(world, count=1 << 20) == E_PARA
    assert "run past the end of its device allocation" in message()


def test_memory_of_another_device_is_hccl_e_para(world):
    other = world.buffer(1, np.zeros(4, np.float32))
    assert allreduce(world, recv=other.address) == E_PARA
    assert "memory of device 1" in message()


def test_a_stream_of_another_device_is_hccl_e_para(world):
    assert allreduce(world, stream=world.streams[1]) == E_PARA
    assert "stream belongs to device 1" in message()


def test_a_destroyed_communicator_is_hccl_e_para():
    w = hccl.World(1)
    buf = w.buffer(0, np.zeros(4, np.float32))
    comm = w.comms[0]
    assert call("HcclCommDestroy", comm) == SUCCESS
    assert call("HcclAllReduce", buf.address, buf.address, u64(4), hccl.FP32, hccl.SUM, comm, w.streams[0]) == E_PARA
    assert "a live communicator" in message()
    assert call("HcclCommDestroy", comm) == E_PARA
    buf.free()


def test_scatter_reads_no_send_buffer_on_other_ranks_but_the_root_needs_one(world):
    assert call("HcclScatter", None, world.recv.address, u64(2), hccl.FP32, 1, world.comms[0],
                world.streams[0]) == SUCCESS
    assert call("HcclScatter", None, world.recv.address, u64(2), hccl.FP32, 1, world.comms[1],
                world.streams[1]) == E_PTR
    scratch = world.buffer(1, np.arange(4, dtype=np.float32))
    recv1 = world.buffer(1, np.zeros(2, np.float32))
    assert call("HcclScatter", scratch.address, recv1.address, u64(2), hccl.FP32, 1, world.comms[1],
                world.streams[1]) == SUCCESS
    assert world.sync() == [0, 0]
    assert (world.recv.read(count=2) == [0, 1]).all() and (recv1.read() == [2, 3]).all()


def test_alltoall_send_and_receive_types_must_be_equal(world):
    assert call("HcclAlltoAll", world.send.address, u64(2), hccl.FP32, world.recv.address, u64(2), hccl.INT32,
                world.comms[0], world.streams[0]) == E_PARA
    assert "recvType int32 differs from sendType float32" in message()


def test_a_rank_sending_to_itself_is_hccl_e_para(world):
    assert call("HcclSend", world.send.address, u64(4), hccl.FP32, 0, world.comms[0], world.streams[0]) == E_PARA


def test_communicator_queries_answer_and_check_their_pointers(world):
    size, rank = ctypes.c_uint32(), ctypes.c_uint32()
    assert call("HcclGetRankSize", world.comms[1], ctypes.byref(size)) == SUCCESS and size.value == 2
    assert call("HcclGetRankId", world.comms[1], ctypes.byref(rank)) == SUCCESS and rank.value == 1
    assert call("HcclGetRankSize", world.comms[1], None) == E_PTR
    assert call("HcclGetRankId", None, ctypes.byref(rank)) == E_PTR
    name = ctypes.create_string_buffer(128)
    assert call("HcclGetCommName", world.comms[0], name) == SUCCESS and name.value
    found = ctypes.c_void_p()
    assert call("HcclCommGetHandleWithName", name, ctypes.byref(found)) == SUCCESS
    assert found.value == world.comms[0].value
    assert call("HcclCommGetHandleWithName", b"no such communicator", ctypes.byref(found)) == 6  # HCCL_E_NOT_FOUND


def test_error_strings_and_the_config_capability(world):
    assert call("HcclGetErrorString", 9) == b"timeout"
    assert call("HcclGetCommConfigCapability") == 12  # HCCL_COMM_CONFIG_RESERVED: every field understood
    value = ctypes.c_int32(1)
    assert call("HcclSetConfig", 0, value) == SUCCESS
    got = ctypes.c_int32(-1)
    assert call("HcclGetConfig", 0, ctypes.byref(got)) == SUCCESS and got.value == 1
    assert call("HcclSetConfig", 0, ctypes.c_int32(3)) == E_PARA


def test_comm_init_all_refuses_repeated_and_unknown_devices():
    comms = (ctypes.c_void_p * 2)()
    assert call("HcclCommInitAll", 2, (ctypes.c_int32 * 2)(1, 1), comms) == E_PARA
    assert "listed twice" in message()
    assert call("HcclCommInitAll", 2, (ctypes.c_int32 * 2)(0, 99), comms) == E_PARA
    assert call("HcclCommInitAll", 0, (ctypes.c_int32 * 1)(0), comms) == E_PARA
    assert call("HcclCommInitAll", 2, None, comms) == E_PTR
