"""Attention (ops-transformer attention/): a training-sized FlashAttentionScore forward (BNSD fp16,
S=2048, D=128) through the C ABI against PyTorch CPU's scaled_dot_product_attention on the same fp16
tensors, timed in alternating blocks; and the call overhead of a decode-shaped IncreFlashAttention
(one query row over a 16-row cache), the per-token call of an inference loop."""
import ctypes

import numpy as np
import torch

from aclnn_ops import Acl
from common import best_of, median_seconds, row

HEADS, SEQ, DIM = 8, 2048, 128
FORWARD_RATIO, DECODE_US = 1.5, 50


def forward_pair(acl):
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((1, HEADS, SEQ, DIM)).astype(np.float16) for _ in range(3))
    tq, tk, tv = (torch.from_numpy(t) for t in (q, k, v))
    stats = [acl.tensor(np.zeros((1, HEADS, SEQ, 8), np.float32)) for _ in range(2)]
    out = acl.tensor(np.zeros_like(q))
    scale = 1 / np.sqrt(DIM)
    ours = acl.call("aclnnFlashAttentionScore", acl.tensor(q), acl.tensor(k), acl.tensor(v), None, None, None, None,
                    None, ctypes.c_double(scale), ctypes.c_double(1.0), ctypes.c_int64(2147483647),
                    ctypes.c_int64(2147483647), ctypes.c_int64(HEADS), ctypes.c_char_p(b"BNSD"), ctypes.c_int64(0),
                    ctypes.c_int64(0), *stats, None, out)
    return ours, lambda: torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, scale=scale)


def decode_call(acl):
    rng = np.random.default_rng(1)
    q = rng.standard_normal((1, 1, 2 * 16)).astype(np.float16)
    k, v = (rng.standard_normal((1, 16, 2 * 16)).astype(np.float16) for _ in range(2))
    lists = []
    create = acl.lib.aclCreateTensorList
    create.restype = ctypes.c_void_p
    for t in (k, v):
        items = (ctypes.c_void_p * 1)(acl.tensor(t).value)
        lists.append(ctypes.c_void_p(create(items, ctypes.c_uint64(1))))
    return acl.call("aclnnIncreFlashAttention", acl.tensor(q), *lists, None, None, None, ctypes.c_int64(2),
                    ctypes.c_double(0.25), ctypes.c_char_p(b"BSH"), ctypes.c_int64(2), acl.tensor(np.zeros_like(q)))


def main():
    acl = Acl()
    ours, theirs = forward_pair(acl)
    ours_ms, theirs_ms = best_of(ours, theirs, rounds=3, calls=1)
    row("aclnnFlashAttentionScore BNSD fp16 B1 N%d S%d D%d (best of 3)" % (HEADS, SEQ, DIM), ours_ms, "ms",
        target=FORWARD_RATIO * theirs_ms, reference=theirs_ms, reference_name="PyTorch CPU SDPA")
    row("aclnnIncreFlashAttention decode call, 1 x 16 rows, phase 1+2+sync (median)",
        median_seconds(decode_call(acl), repeat=2000, warmup=100) * 1e6, "us", target=DECODE_US)
