"""Timed in the torch_npu environment (bench/torch_on_npu.py starts it): one training step of the workload's
MLP and GPT-style model on torch_npu+opemu and on torch's CPU in the same process, and a tiny torch_npu op.
Prints `name milliseconds` lines; a step whose operators opemu does not implement yet prints nothing."""
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "npu_wheel"))
import workload  # noqa: E402  (the models the tests train; imports torch_npu)


def per_call_ms(fn, calls, blocks=3):
    """Mean time of a call over a block of `calls`, the best of `blocks` blocks: what a loop of such calls costs
    (a single call's best would hide the hand-offs between the app's thread and the task queue's)."""
    fn()
    best = float("inf")
    for _ in range(blocks):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e3


def step_ms(make, inputs, labels, where, calls):
    torch.manual_seed(0)
    model = make().to(where)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x, y = inputs.to(where), labels.to(where)

    def step():
        opt.zero_grad()
        out = model(x)
        F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1)).backward()
        opt.step()
        if where != "cpu":
            torch.npu.synchronize()
    return per_call_ms(step, calls)


def main():
    x = torch.ones(16).npu()
    print("tiny_npu_add", per_call_ms(lambda: (x.add_(1), torch.npu.synchronize()), 200))
    y = torch.ones(16)
    print("tiny_cpu_add", per_call_ms(lambda: y.add_(1), 200))
    cases = {"mlp": (workload._mlp, torch.randn(128, 16), torch.randint(0, 4, (128,)), 10)}
    for name, (make, inputs, labels, calls) in cases.items():
        try:
            npu = step_ms(make, inputs, labels, "npu", calls)
        except RuntimeError:
            continue  # an operator opemu does not implement yet
        print("%s_step_npu" % name, npu)
        print("%s_step_cpu" % name, step_ms(make, inputs, labels, "cpu", calls))


if __name__ == "__main__":
    main()
