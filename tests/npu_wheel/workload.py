"""What the torch_npu tests run in a process of their own (torch_npu on PYTHONPATH, opemu's prefix in the
environment): each part runs on the emulated NPU and, where there is something to compare, the same
computation on the CPU; one JSON object on the last line of stdout holds every part's result, or the error
it ended with, so one failing part does not hide the others.

    python workload.py PART [PART …]     parts: device, copies, mlp, cnn, gpt, unsupported"""
import json
import math
import sys
import traceback

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu  # noqa: F401


def device():
    return {"available": torch.npu.is_available(), "count": torch.npu.device_count(),
            "current": torch.npu.current_device(), "name": torch.npu.get_device_name(0)}


def copies():
    x = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    on = x.npu()
    back = {"h2d2h": on.cpu().tolist() == x.tolist(),
            "d2d": on.clone().cpu().tolist() == x.tolist(),
            "non_contiguous": on.t().contiguous().cpu().tolist() == x.t().contiguous().tolist(),
            "slice": on[1:3, ::2].cpu().tolist() == x[1:3, ::2].tolist(),
            "to_half": on.half().cpu().tolist() == x.half().tolist(),
            "to_int64": on.long().cpu().tolist() == x.long().tolist(),
            "copy_into": torch.zeros(4, 6).npu().copy_(on).cpu().tolist() == x.tolist()}
    return back


def _mlp():
    return nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))


def _cnn():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Dropout(0.0), nn.Flatten(), nn.Linear(8 * 8 * 8, 10))


V, D, HEADS, T = 64, 32, 4, 16


class RMSNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = RMSNorm(D), nn.LayerNorm(D)
        self.qkv, self.proj = nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.up, self.down = nn.Linear(D, 4 * D), nn.Linear(4 * D, D)

    def forward(self, x):
        b = x.shape[0]
        q, k, v = self.qkv(self.norm1(x)).view(b, T, 3, HEADS, D // HEADS).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(D // HEADS)
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool, device=x.device), 1)
        y = (scores.masked_fill(causal, float("-inf")).softmax(-1) @ v).transpose(1, 2).reshape(b, T, D)
        x = x + self.proj(y)
        h = self.up(self.norm2(x))
        return x + self.down(F.gelu(h) * F.silu(h))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens, self.positions = nn.Embedding(V, D), nn.Embedding(T, D)
        self.blocks = nn.Sequential(Block(), Block())
        self.head = nn.Linear(D, V)

    def forward(self, idx):
        x = self.tokens(idx) + self.positions(torch.arange(T, device=idx.device))
        return self.head(self.blocks(x))


def _losses(make, inputs, labels, optimizer, steps, where):
    torch.manual_seed(0)
    model = make().to(where)
    opt = optimizer(model.parameters())
    x, y = inputs.to(where), labels.to(where)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        out = model(x)
        loss = F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def _both(make, inputs, labels, optimizer, steps):
    return {"cpu": _losses(make, inputs, labels, optimizer, steps, "cpu"),
            "npu": _losses(make, inputs, labels, optimizer, steps, "npu")}


def mlp():
    torch.manual_seed(1)
    return _both(_mlp, torch.randn(128, 16), torch.randint(0, 4, (128,)),
                 lambda p: torch.optim.AdamW(p, lr=1e-2), 20)


def cnn():
    torch.manual_seed(1)
    return _both(_cnn, torch.randn(16, 3, 16, 16), torch.randint(0, 10, (16,)),
                 lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), 3)


def gpt():
    torch.manual_seed(1)
    return _both(GPT, torch.randint(0, V, (4, T)), torch.randint(0, V, (4, T)),
                 lambda p: torch.optim.AdamW(p, lr=1e-3), 3)


def unsupported():
    """An operator opemu does not implement: torch_npu's error, with opemu's message, not a crash."""
    image, grid = torch.randn(1, 1, 4, 4).npu(), torch.zeros(1, 2, 2, 2).npu()
    try:
        F.grid_sample(image, grid, align_corners=False).cpu()
    except RuntimeError as error:
        return {"raised": type(error).__name__, "message": str(error)}
    return {"raised": None}


def main(parts):
    results = {}
    for part in parts:
        try:
            results[part] = {"ok": globals()[part]()}
        except Exception as error:  # the part's failure is its result; the next part still runs
            results[part] = {"error": "%s: %s" % (type(error).__name__, error), "trace": traceback.format_exc()}
    print(json.dumps(results))


if __name__ == "__main__":
    main(sys.argv[1:])
