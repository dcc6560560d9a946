"""Every HCCL operation, data type and reduction on ranks in one process (HcclCommInitAll, one
thread queueing for every rank), against the independent rank-order reference, bit for bit."""
import ctypes

import numpy as np
import pytest

import acl
import hccl
from hccl import SUCCESS, call, u64, ptr



COUNT = 37  # not a multiple of the ranks: chunks of different sizes


@pytest.fixture
def world3():
    w = hccl.World(3)
    yield w
    w.close()


def reducing_cases():
    for dtype in hccl.REDUCING:
        for op in hccl.OPS:
            if not (op == hccl.PROD and dtype in (hccl.INT16, hccl.BF16)):
                yield dtype, op


@pytest.mark.parametrize("dtype, op", list(reducing_cases()))
def test_allreduce_is_the_rank_order_reduction_on_every_rank(world3, dtype, op):
    inputs = [hccl.sample(dtype, COUNT, seed=r) for r in range(3)]
    sends = [world3.buffer(r, inputs[r]) for r in range(3)]
    recvs = [world3.buffer(r, np.zeros_like(inputs[r])) for r in range(3)]
    for r in range(3):
        assert call("HcclAllReduce", sends[r].address, recvs[r].address, u64(COUNT), dtype, op, world3.comms[r],
                    world3.streams[r]) == SUCCESS, acl.recent_error()
    assert world3.sync() == [0, 0, 0]
    expected = hccl.reference(inputs, op)
    for r in range(3):
        assert hccl.bits(recvs[r].read()).tobytes() == hccl.bits(expected).tobytes()


@pytest.mark.parametrize("dtype", [hccl.FP16, hccl.INT32])
def test_allreduce_in_place_reads_and_writes_one_buffer(world3, dtype):
    inputs = [hccl.sample(dtype, COUNT, seed=10 + r) for r in range(3)]
    bufs = [world3.buffer(r, inputs[r]) for r in range(3)]
    for r in range(3):
        assert call("HcclAllReduce", bufs[r].address, bufs[r].address, u64(COUNT), dtype, hccl.SUM, world3.comms[r],
                    world3.streams[r]) == SUCCESS
    world3.sync()
    expected = hccl.reference(inputs, hccl.SUM)
    assert all(hccl.bits(b.read()).tobytes() == hccl.bits(expected).tobytes() for b in bufs)


@pytest.mark.parametrize("dtype, op", [(hccl.FP32, hccl.SUM), (hccl.BF16, hccl.MAX), (hccl.INT8, hccl.PROD),
                                       (hccl.UINT64, hccl.MIN)])
def test_reduce_leaves_the_reduction_in_the_roots_buffer_only(world3, dtype, op):
    inputs = [hccl.sample(dtype, COUNT, seed=20 + r) for r in range(3)]
    sends = [world3.buffer(r, inputs[r]) for r in range(3)]
    recvs = [world3.buffer(r, np.zeros_like(inputs[r])) for r in range(3)]
    for r in range(3):
        assert call("HcclReduce", sends[r].address, recvs[r].address, u64(COUNT), dtype, op, 1, world3.comms[r],
                    world3.streams[r]) == SUCCESS
    world3.sync()
    assert hccl.bits(recvs[1].read()).tobytes() == hccl.bits(hccl.reference(inputs, op)).tobytes()
    assert not recvs[0].read().view(np.uint8).any() and not recvs[2].read().view(np.uint8).any()


@pytest.mark.parametrize("dtype, op", list(reducing_cases()))
def test_reduce_scatter_gives_rank_i_the_reduction_of_block_i(world3, dtype, op):
    inputs = [hccl.sample(dtype, 3 * 5, seed=30 + r) for r in range(3)]
    sends = [world3.buffer(r, inputs[r]) for r in range(3)]
    recvs = [world3.buffer(r, np.zeros(5, inputs[r].dtype)) for r in range(3)]
    for r in range(3):
        assert call("HcclReduceScatter", sends[r].address, recvs[r].address, u64(5), dtype, op, world3.comms[r],
                    world3.streams[r]) == SUCCESS
    world3.sync()
    expected = hccl.reference(inputs, op)
    for r in range(3):
        assert hccl.bits(recvs[r].read()).tobytes() == hccl.bits(expected[5 * r:5 * r + 5]).tobytes()


def test_reduce_scatter_v_reduces_blocks_of_their_own_counts_and_displacements(world3):
    counts, displs = [2, 0, 5], [6, 0, 1]  # overlapping blocks and an empty one are allowed
    inputs = [hccl.sample(hccl.FP16, 8, seed=40 + r) for r in range(3)]
    sends = [world3.buffer(r, inputs[r]) for r in range(3)]
    recvs = [world3.buffer(r, np.zeros(max(counts[r], 1), np.float16)) for r in range(3)]
    c, d = (ctypes.c_uint64 * 3)(*counts), (ctypes.c_uint64 * 3)(*displs)
    for r in range(3):
        assert call("HcclReduceScatterV", sends[r].address, c, d, recvs[r].address, u64(counts[r]), hccl.FP16,
                    hccl.SUM, world3.comms[r], world3.streams[r]) == SUCCESS, acl.recent_error()
    world3.sync()
    expected = hccl.reference(inputs, hccl.SUM)
    for r in (0, 2):
        want = expected[displs[r]:displs[r] + counts[r]]
        assert hccl.bits(recvs[r].read(count=counts[r])).tobytes() == hccl.bits(want).tobytes()


@pytest.mark.parametrize("dtype", hccl.MOVING)
def test_allgather_puts_rank_i_block_at_offset_i_on_every_rank(world3, dtype):
    inputs = [hccl.sample(dtype, 7, seed=50 + r) for r in range(3)]
    sends = [world3.buffer(r, inputs[r]) for r in range(3)]
    recvs = [world3.buffer(r, np.zeros(21, inputs[r].dtype)) for r in range(3)]
    for r in range(3):
        assert call("HcclAllGather", sends[r].address, recvs[r].address, u64(7), dtype, world3.comms[r],
                    world3.streams[r]) == SUCCESS, acl.recent_error()
    world3.sync()
    expected = np.concatenate(inputs)
    assert all(hccl.bits(b.read()).tobytes() == hccl.bits(expected).tobytes() for b in recvs)


def test_allgather_in_place_with_the_send_buffer_inside_the_receive_buffer(world3):
    data = [hccl.sample(hccl.INT32, 4, seed=60 + r) for r in range(3)]
    recvs = []
    for r in range(3):
        full = np.zeros(12, np.int32)
        full[4 * r:4 * r + 4] = data[r]
        recvs.append(world3.buffer(r, full))
    for r in range(3):
        assert call("HcclAllGather", recvs[r].at(4 * r), recvs[r].address, u64(4), hccl.INT32, world3.comms[r],
                    world3.streams[r]) == SUCCESS
    world3.sync()
    assert all((b.read() == np.concatenate(data)).all() for b in recvs)


def test_allgather_v_places_blocks_at_their_displacements(world3):
    counts, displs = [3, 1, 2], [3, 0, 7]
    data = [hccl.sample(hccl.FP32, counts[r], seed=70 + r) for r in range(3)]
    sends = [world3.buffer(r, data[r]) for r in range(3)]
    recvs = [world3.buffer(r, np.full(9, -1, np.float32)) for r in range(3)]
    c, d = (ctypes.c_uint64 * 3)(*counts), (ctypes.c_uint64 * 3)(*displs)
    for r in range(3):
        assert call("HcclAllGatherV", sends[r].address, u64(counts[r]), recvs[r].address, c, d, hccl.FP32,
                    world3.comms[r], world3.streams[r]) == SUCCESS, acl.recent_error()
    world3.sync()
    expected = np.full(9, -1, np.float32)
    for r in range(3):
        expected[displs[r]:displs[r] + counts[r]] = data[r]
    assert all((b.read() == expected).all() for b in recvs)


@pytest.mark.parametrize("dtype", [hccl.BF16, hccl.FP8E5M2, hccl.UINT64])
def test_broadcast_copies_the_roots_buffer_to_every_rank(world3, dtype):
    data = [hccl.sample(dtype, 9, seed=80 + r) for r in range(3)]
    bufs = [world3.buffer(r, data[r]) for r in range(3)]
    for r in range(3):
        assert call("HcclBroadcast", bufs[r].address, u64(9), dtype, 2, world3.comms[r], world3.streams[r]) == SUCCESS
    world3.sync()
    assert all(hccl.bits(b.read()).tobytes() == hccl.bits(data[2]).tobytes() for b in bufs)


def test_scatter_sends_block_i_of_the_roots_buffer_to_rank_i(world3):
    data = hccl.sample(hccl.INT16, 12, seed=90)
    send = world3.buffer(0, data)
    recvs = [world3.buffer(r, np.zeros(4, np.int16)) for r in range(3)]
    for r in range(3):
        assert call("HcclScatter", send.address if r == 0 else None, recvs[r].address, u64(4), hccl.INT16, 0,
                    world3.comms[r], world3.streams[r]) == SUCCESS, acl.recent_error()
    world3.sync()
    assert all((recvs[r].read() == data[4 * r:4 * r + 4]).all() for r in range(3))


@pytest.mark.parametrize("dtype", [hccl.FP16, hccl.INT8, hccl.FP8E4M3])
def test_alltoall_sends_block_j_to_rank_j(world3, dtype):
    data = [hccl.sample(dtype, 3 * 4, seed=100 + r) for r in range(3)]
    sends = [world3.buffer(r, data[r]) for r in range(3)]
    recvs = [world3.buffer(r, np.zeros_like(data[r])) for r in range(3)]
    for r in range(3):
        assert call("HcclAlltoAll", sends[r].address, u64(4), dtype, recvs[r].address, u64(4), dtype, world3.comms[r],
                    world3.streams[r]) == SUCCESS
    world3.sync()
    for j in range(3):
        expected = np.concatenate([data[i][4 * j:4 * j + 4] for i in range(3)])
        assert hccl.bits(recvs[j].read()).tobytes() == hccl.bits(expected).tobytes()


def alltoallv_layout():
    """send[i][j]: what rank i sends rank j (elements)."""
    return [[1, 0, 3], [2, 2, 0], [0, 4, 1]]


def test_alltoallv_follows_each_ranks_counts_and_displacements(world3):
    m = alltoallv_layout()
    data = [np.arange(100 * r, 100 * r + sum(m[r]), dtype=np.int64) for r in range(3)]
    sends = [world3.buffer(r, data[r]) for r in range(3)]
    recvs = [world3.buffer(r, np.full(sum(m[i][r] for i in range(3)), -1, np.int64)) for r in range(3)]
    arrays = []
    for r in range(3):
        sc = [m[r][j] for j in range(3)]
        sd = list(np.cumsum([0] + sc[:-1]))
        rc = [m[i][r] for i in range(3)]
        rd = list(np.cumsum([0] + rc[:-1]))
        arrays.append([(ctypes.c_uint64 * 3)(*map(int, a)) for a in (sc, sd, rc, rd)])
        assert call("HcclAlltoAllV", sends[r].address, arrays[r][0], arrays[r][1], hccl.INT64, recvs[r].address,
                    arrays[r][2], arrays[r][3], hccl.INT64, world3.comms[r], world3.streams[r]) == SUCCESS
    world3.sync()
    for j in range(3):
        expected = np.concatenate([data[i][sum(m[i][:j]):sum(m[i][:j]) + m[i][j]] for i in range(3)])
        assert (recvs[j].read() == expected).all()


def test_alltoallvc_takes_one_count_matrix_on_every_rank(world3):
    m = alltoallv_layout()
    matrix = (ctypes.c_uint64 * 9)(*[m[i][j] for i in range(3) for j in range(3)])
    data = [np.arange(100 * r, 100 * r + sum(m[r]), dtype=np.uint16) for r in range(3)]
    sends = [world3.buffer(r, data[r]) for r in range(3)]
    recvs = [world3.buffer(r, np.zeros(sum(m[i][r] for i in range(3)), np.uint16)) for r in range(3)]
    for r in range(3):
        assert call("HcclAlltoAllVC", sends[r].address, matrix, hccl.UINT16, recvs[r].address, hccl.UINT16,
                    world3.comms[r], world3.streams[r]) == SUCCESS, acl.recent_error()
    world3.sync()
    for j in range(3):
        expected = np.concatenate([data[i][sum(m[i][:j]):sum(m[i][:j]) + m[i][j]] for i in range(3)])
        assert (recvs[j].read() == expected).all()


def test_send_and_recv_match_in_order_per_pair(world3):
    first, second = np.arange(6, dtype=np.float32), np.arange(6, 12, dtype=np.float32)
    a, b = world3.buffer(0, first), world3.buffer(0, second)
    x, y = world3.buffer(2, np.zeros(6, np.float32)), world3.buffer(2, np.zeros(6, np.float32))
    assert call("HcclRecv", x.address, u64(6), hccl.FP32, 0, world3.comms[2], world3.streams[2]) == SUCCESS
    assert call("HcclRecv", y.address, u64(6), hccl.FP32, 0, world3.comms[2], world3.streams[2]) == SUCCESS
    assert call("HcclSend", a.address, u64(6), hccl.FP32, 2, world3.comms[0], world3.streams[0]) == SUCCESS
    assert call("HcclSend", b.address, u64(6), hccl.FP32, 2, world3.comms[0], world3.streams[0]) == SUCCESS
    assert world3.sync() == [0, 0, 0]
    assert (x.read() == first).all() and (y.read() == second).all()


def ring_items(world, rank, send, recv):
    n = world.n
    items = (hccl.SendRecvItem * 2)(hccl.SendRecvItem(0, send.address, 5, hccl.INT32, (rank + 1) % n),
                                    hccl.SendRecvItem(1, recv.address, 5, hccl.INT32, (rank - 1) % n))
    return items


def test_batch_send_recv_completes_a_ring(world3):
    data = [np.full(5, r, np.int32) for r in range(3)]
    sends = [world3.buffer(r, data[r]) for r in range(3)]
    recvs = [world3.buffer(r, np.zeros(5, np.int32)) for r in range(3)]
    for r in range(3):
        items = ring_items(world3, r, sends[r], recvs[r])
        assert call("HcclBatchSendRecv", items, 2, world3.comms[r], world3.streams[r]) == SUCCESS, acl.recent_error()
    assert world3.sync() == [0, 0, 0]
    assert all((recvs[r].read() == (r - 1) % 3).all() for r in range(3))


def test_group_start_end_posts_sends_and_receives_together(world3):
    data = [np.full(4, 10 + r, np.int32) for r in range(3)]
    sends = [world3.buffer(r, data[r]) for r in range(3)]
    recvs = [world3.buffer(r, np.zeros(4, np.int32)) for r in range(3)]
    assert call("HcclGroupStart") == SUCCESS
    for r in range(3):
        assert call("HcclSend", sends[r].address, u64(4), hccl.INT32, (r + 1) % 3, world3.comms[r],
                    world3.streams[r]) == SUCCESS
        assert call("HcclRecv", recvs[r].address, u64(4), hccl.INT32, (r - 1) % 3, world3.comms[r],
                    world3.streams[r]) == SUCCESS
    assert call("HcclGroupEnd") == SUCCESS
    assert world3.sync() == [0, 0, 0]
    assert all((recvs[r].read() == 10 + (r - 1) % 3).all() for r in range(3))


def test_barrier_completes_once_every_rank_reached_it(world3):
    for r in range(3):
        assert call("HcclBarrier", world3.comms[r], world3.streams[r]) == SUCCESS
    assert world3.sync() == [0, 0, 0]


def test_eight_ranks_reduce_in_rank_order(monkeypatch):
    with hccl.World(8) as w:
        inputs = [hccl.sample(hccl.BF16, 101, seed=200 + r) for r in range(8)]
        sends = [w.buffer(r, inputs[r]) for r in range(8)]
        for r in range(8):
            assert call("HcclAllReduce", sends[r].address, sends[r].address, u64(101), hccl.BF16, hccl.SUM, w.comms[r],
                        w.streams[r]) == SUCCESS
        assert w.sync() == [0] * 8
        expected = hccl.bits(hccl.reference(inputs, hccl.SUM)).tobytes()
        assert all(hccl.bits(s.read()).tobytes() == expected for s in sends)


def special(dtype, n):
    """Values where reductions differ most: NaNs of both signs and several payloads, signed zeros,
    infinities, the extremes of the type."""
    numpy = np.dtype(hccl.NUMPY[dtype])
    if np.issubdtype(numpy, np.integer):
        info = np.iinfo(numpy)
        base = np.array([info.min, info.max, info.max // 2 + 1, 0, 1, info.min + 1, info.max - 1], numpy)
    else:
        bits = np.uint32 if numpy.itemsize == 4 else np.uint64
        nans = np.array([0x7fc00000, 0xffc00000, 0x7f800001, 0x7fc12345], np.uint32) if numpy.itemsize == 4 else \
            np.array([0x7ff8000000000000, 0xfff8000000000000, 0x7ff0000000000001], np.uint64)
        base = np.concatenate([nans.astype(bits).view(numpy),
                               np.array([0.0, -0.0, np.inf, -np.inf, np.finfo(numpy).max, -np.finfo(numpy).tiny,
                                         1.5, -2.25], numpy)])
    rng = np.random.default_rng(n)
    return [rng.permutation(np.tile(base, 3))[:17] for _ in range(n)]


@pytest.mark.parametrize("dtype", [hccl.INT8, hccl.INT32, hccl.INT64, hccl.UINT64, hccl.FP32, hccl.FP64])
@pytest.mark.parametrize("op", hccl.OPS)
def test_the_c_twin_gives_numpys_bits_on_special_values(world3, monkeypatch, dtype, op):
    inputs = special(dtype, 3)
    results = {}
    for kernels in ("c", "numpy"):
        monkeypatch.setenv("OPEMU_KERNELS", kernels)
        bufs = [world3.buffer(r, inputs[r]) for r in range(3)]
        for r in range(3):
            assert call("HcclAllReduce", bufs[r].address, bufs[r].address, u64(17), dtype, op, world3.comms[r],
                        world3.streams[r]) == SUCCESS
        assert world3.sync() == [0, 0, 0]
        results[kernels] = [hccl.bits(b.read()).tobytes() for b in bufs]
    assert results["c"] == results["numpy"]
    reduced = np.frombuffer(results["c"][0], inputs[0].dtype)
    expected = hccl.reference(inputs, op)
    finite = ~np.isnan(expected) if not np.issubdtype(expected.dtype, np.integer) else np.ones(17, bool)
    assert hccl.bits(reduced[finite]).tobytes() == hccl.bits(expected[finite]).tobytes()
    assert (np.isnan(reduced) == ~finite).all()
