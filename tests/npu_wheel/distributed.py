"""One rank of torch.distributed on torch_npu, started by torchrun (test_torch_npu.py): the process group
with backend "hccl" (torch_npu's ProcessGroupHCCL over opemu's libhccl.so), an all_reduce and a broadcast;
the rank prints one JSON line of what it got. (torch_npu's all_gather pads its input with
aclnnConstantPadNd first, an operator opemu does not implement yet.)"""
import json
import os

import torch
import torch.distributed as dist
import torch_npu  # noqa: F401

rank, size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
torch.npu.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("hccl")
summed = torch.arange(6, dtype=torch.float32, device="npu") * (rank + 1)
dist.all_reduce(summed)
sent = torch.full((3,), float(rank + 10), device="npu")
dist.broadcast(sent, src=size - 1)
print(json.dumps({"rank": rank, "all_reduce": summed.cpu().tolist(), "broadcast": sent.cpu().tolist()}),
      flush=True)
dist.destroy_process_group()
