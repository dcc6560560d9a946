"""ops-nn activation/, foreach/ and optim/: one line per family with a member of the family's heaviest kind,
through the C ABI in this process against PyTorch CPU doing the same work, timed in alternating blocks
(common.best_of) so both sides meet the same load.

  activation forward   Mish (exp, log1p, tanh per element) at 16M fp32            ≤ 1.2x torch
  activation backward  GeluBackward (the tanh form's derivative) at 16M fp32       ≤ 1.2x torch
  gated units          SwiGlu over (4096, 8192) → (4096, 4096) fp32                 ≤ 1.2x torch
  foreach              ForeachAddScalarV2 over 100 tensors of 64K fp32              ≤ 1.2x torch._foreach_add
  fused optimizer      FusedAdamw over 100 tensors of 64K fp32                      ≤ 1.2x torch._fused_adamw_"""
import ctypes

import numpy as np
import torch

from aclnn_ops import Acl
from common import best_of, row

ELEMENTS = 16 * 1024 * 1024
TENSORS, EACH = 100, 64 * 1024


def tensor_list(acl, handles):
    acl.lib.aclCreateTensorList.restype = ctypes.c_void_p
    raw = (ctypes.c_void_p * len(handles))(*[h.value for h in handles])
    return ctypes.c_void_p(acl.lib.aclCreateTensorList(raw, ctypes.c_uint64(len(handles))))


def pairs(acl):
    """(name, size, our call, the peer's call, peer name, target ratio)."""
    rng = np.random.default_rng(0)
    x, grad = (rng.standard_normal(ELEMENTS, dtype=np.float32) for _ in range(2))
    tx, tgrad = torch.from_numpy(x), torch.from_numpy(grad)
    dx, dgrad, dout = acl.tensor(x), acl.tensor(grad), acl.tensor(np.zeros(ELEMENTS, np.float32))
    gated = rng.standard_normal((4096, 8192), dtype=np.float32)
    tgated = torch.from_numpy(gated)
    dgated, dhalf = acl.tensor(gated), acl.tensor(np.zeros((4096, 4096), np.float32))
    lists = [[rng.random(EACH, np.float32) for _ in range(TENSORS)] for _ in range(4)]
    tlists = [[torch.from_numpy(a.copy()) for a in group] for group in lists]
    dlists = [tensor_list(acl, [acl.tensor(a) for a in group]) for group in lists]
    steps = [torch.tensor(3.0) for _ in range(TENSORS)]
    dsteps = tensor_list(acl, [acl.tensor(np.array([3.0], np.float32)) for _ in range(TENSORS)])
    flat = "16M fp32"
    return [
        ("Mish", flat, acl.call("aclnnMish", dx, dout), lambda: torch.nn.functional.mish(tx), "PyTorch CPU", 1.2),
        ("GeluBackward", flat, acl.call("aclnnGeluBackward", dgrad, dx, dout),
         lambda: torch.ops.aten.gelu_backward(tgrad, tx, approximate="tanh"), "PyTorch CPU", 1.2),
        ("SwiGlu", "4096x8192 fp32", acl.call("aclnnSwiGlu", dgated, ctypes.c_int64(-1), dhalf),
         lambda: torch.nn.functional.silu(tgated[:, :4096]) * tgated[:, 4096:], "PyTorch CPU", 1.2),
        ("ForeachAddScalarV2", "100x64K fp32", acl.call("aclnnForeachAddScalarV2", dlists[0], acl.scalar(0.5),
                                                         dlists[1]),
         lambda: torch._foreach_add(tlists[0], 0.5), "torch._foreach_add", 1.2),
        ("FusedAdamw", "100x64K fp32", acl.call("aclnnFusedAdamw", dlists[0], dlists[1], dlists[2], dlists[3], None,
                                                 dsteps, None, None, ctypes.c_double(1e-3), ctypes.c_double(0.9),
                                                 ctypes.c_double(0.999), ctypes.c_double(0.01),
                                                 ctypes.c_double(1e-8), ctypes.c_bool(False), ctypes.c_bool(False)),
         lambda: torch._fused_adamw_(tlists[0], tlists[1], tlists[2], tlists[3], [], steps, lr=1e-3, beta1=0.9,
                                     beta2=0.999, weight_decay=0.01, eps=1e-8, amsgrad=False, maximize=False),
         "torch._fused_adamw_", 1.2),
    ]


def main():
    for name, size, ours, theirs, peer, ratio in pairs(Acl()):
        ours_ms, theirs_ms = best_of(ours, theirs, rounds=3, calls=2)
        row("aclnn%s %s (best of 6)" % (name, size), ours_ms, "ms", target=ratio * theirs_ms, reference=theirs_ms,
            reference_name=peer)
