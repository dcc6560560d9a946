"""Train a small MLP with AdamW on the emulated Ascend device through Huawei's torch_npu, and print the
losses. Run it under opemu:

    opemu exec -- python train_mlp.py            # on "npu" (torch_npu on opemu)
    python train_mlp.py --device cpu             # the same loop on the CPU, for comparison

The data and the initial weights are made on the CPU from a fixed seed, so both runs start equal."""
import argparse

import torch
import torch.nn as nn


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="npu")
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    if args.device.startswith("npu"):
        import torch_npu  # noqa: F401  (torch auto-loads it too; explicit for older torch)

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))
    inputs, labels = torch.randn(128, 16), torch.randint(0, 4, (128,))
    model, inputs, labels = model.to(args.device), inputs.to(args.device), labels.to(args.device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    for step in range(args.steps):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(inputs), labels)
        loss.backward()
        optimizer.step()
        print("step %2d  loss %.7f" % (step, loss.item()))


if __name__ == "__main__":
    main()
