"""ops-nn's index/, pooling/, conv/, loss/ and rnn/ families: one line each for a large call through the C ABI in
this process against PyTorch CPU doing the same work, and the host cost of tiny two-phase calls (from ctypes,
phase 1 + phase 2 + sync)."""
import ctypes

import numpy as np
import torch
import torch.nn.functional as F

from common import best_of, median_seconds, row
from nn_families import TINY_US, Tensors
from opemu.ops.aclnn.pooling.max_pool import mask_shape

I64, B = ctypes.c_int64, ctypes.c_bool


def _tensor_list(acl, handles):
    acl.lib.aclCreateTensorList.restype = ctypes.c_void_p
    raw = (ctypes.c_void_p * len(handles))(*[h.value for h in handles])
    return ctypes.c_void_p(acl.lib.aclCreateTensorList(raw, ctypes.c_uint64(len(handles))))


def large_pairs(acl, rng):
    f = np.float32
    table = rng.standard_normal((32768, 1024)).astype(f)
    rows = rng.integers(0, 32768, 16384)
    gathered = np.empty((16384, 1024), f)
    t_table, t_rows = torch.from_numpy(table), torch.from_numpy(rows)
    images = rng.standard_normal((16, 64, 112, 112)).astype(f)
    t_images = torch.from_numpy(images)
    pooled = np.empty((16, 64, 56, 56), f)
    mask = np.empty(mask_shape(images.shape, (2, 2), (56, 56)), np.int8)
    conv_x = rng.standard_normal((16, 64, 56, 56)).astype(f)
    conv_w = rng.standard_normal((64, 64, 3, 3)).astype(f)
    conv_y = np.empty((16, 64, 56, 56), f)
    t_cx, t_cw = torch.from_numpy(conv_x), torch.from_numpy(conv_w)
    a, b = rng.standard_normal((4096, 4096)).astype(f), rng.standard_normal((4096, 4096)).astype(f)
    t_a, t_b = torch.from_numpy(a), torch.from_numpy(b)
    lstm = torch.nn.LSTM(256, 256)
    seq = torch.randn(64, 32, 256)
    params = [acl.tensor(p.detach().numpy()) for p in lstm._flat_weights]
    zeros = np.zeros((1, 32, 256), f)
    ints = acl.int_array
    return [
        ("GatherV2", "16384 of 32768x1024 fp32 rows",
         acl.call("aclnnGatherV2", acl.tensor(table), I64(0), acl.tensor(rows), acl.tensor(gathered)),
         lambda: torch.index_select(t_table, 0, t_rows)),
        ("MaxPool2dWithMask", "16x64x112x112 fp32, 2x2/2",
         acl.call("aclnnMaxPool2dWithMask", acl.tensor(images), ints([2, 2]), ints([2, 2]), ints([0, 0]),
                  ints([1, 1]), B(False), acl.tensor(pooled), acl.tensor(mask)),
         lambda: F.max_pool2d(t_images, 2, 2, return_indices=True)),
        ("AvgPool2d", "16x64x112x112 fp32, 2x2/2",
         acl.call("aclnnAvgPool2d", acl.tensor(images), ints([2, 2]), ints([2, 2]), ints([0, 0]), B(False), B(True),
                  I64(0), ctypes.c_int8(0), acl.tensor(pooled)),
         lambda: F.avg_pool2d(t_images, 2, 2)),
        ("Convolution", "16x64x56x56 * 64x64x3x3 fp32",
         acl.call("aclnnConvolution", acl.tensor(conv_x), acl.tensor(conv_w), None, ints([1, 1]), ints([1, 1]),
                  ints([1, 1]), B(False), ints([0, 0]), I64(1), acl.tensor(conv_y), ctypes.c_int8(0)),
         lambda: F.conv2d(t_cx, t_cw, None, 1, 1)),
        ("MseLoss", "4096x4096 fp32, mean",
         acl.call("aclnnMseLoss", acl.tensor(a), acl.tensor(b), I64(1), acl.tensor(np.zeros((), f))),
         lambda: F.mse_loss(t_a, t_b)),
        ("LSTM", "64 steps x 32 x 256, inference",
         acl.call("aclnnLSTM", acl.tensor(seq.numpy()), _tensor_list(acl, params),
                  _tensor_list(acl, [acl.tensor(zeros), acl.tensor(zeros)]), None, B(True), I64(1),
                  ctypes.c_double(0), B(False), B(False), B(False), acl.tensor(np.empty((64, 32, 256), f)),
                  acl.tensor(zeros.copy()), acl.tensor(zeros.copy()), None, None, None, None, None, None, None),
         lambda: lstm(seq)),
    ]


def tiny_calls(acl, rng):
    f = np.float32
    x, index, out = acl.tensor(np.ones((8, 4), f)), acl.tensor(np.array([1, 3])), acl.tensor(np.ones((2, 4), f))
    img, pooled = acl.tensor(np.ones((1, 2, 4, 4), f)), acl.tensor(np.ones((1, 2, 2, 2), f))
    mask = acl.tensor(np.ones(mask_shape((1, 2, 4, 4), (2, 2), (2, 2)), np.int8))
    w, y = acl.tensor(np.ones((2, 2, 3, 3), f)), acl.tensor(np.ones((1, 2, 4, 4), f))
    ints = acl.int_array
    return [
        ("GatherV2", acl.call("aclnnGatherV2", x, I64(0), index, out)),
        ("MaxPool2dWithMask", acl.call("aclnnMaxPool2dWithMask", img, ints([2, 2]), ints([2, 2]), ints([0, 0]),
                                       ints([1, 1]), B(False), pooled, mask)),
        ("Convolution", acl.call("aclnnConvolution", img, w, None, ints([1, 1]), ints([1, 1]), ints([1, 1]),
                                 B(False), ints([0, 0]), I64(1), y, ctypes.c_int8(0))),
    ]


def main():
    acl, rng = Tensors(), np.random.default_rng(0)
    torch.set_grad_enabled(False)
    for name, call in tiny_calls(acl, rng):
        row("tiny aclnn%s from ctypes, phase 1+2+sync (median)" % name, median_seconds(call, 400, 20) * 1e6, "us",
            target=TINY_US)
    for name, size, ours, theirs in large_pairs(acl, rng):
        ours_ms, theirs_ms = best_of(ours, theirs, rounds=3, calls=2)
        row("aclnn%s %s (best of 6)" % (name, size), ours_ms, "ms", reference=theirs_ms,
            reference_name="PyTorch CPU", ratio=1.2)


if __name__ == "__main__":
    main()
