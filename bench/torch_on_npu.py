"""PyTorch through Huawei's unchanged torch_npu on opemu against the same work on torch's CPU, in one process
of the torch_npu environment (tests/npu_wheel/torch_npu_environment.py): the cost of a tiny op a user feels,
and training steps of the tests' models."""
import os
import subprocess
import sys
from pathlib import Path

import opemu
from opemu import cli

from common import HERE, row

sys.path.insert(0, str(HERE.parent / "tests" / "npu_wheel"))
import torch_npu_environment  # noqa: E402

STEP_RATIO = 1.5  # a training step where the matmuls dominate, against torch's CPU


def main():
    env = dict(os.environ, **cli.environment(opemu.prefix()))
    env["PYTHONPATH"] = str(torch_npu_environment.ensure())
    done = subprocess.run([sys.executable, str(HERE / "torch_on_npu_driver.py")], capture_output=True, text=True,
                          env=env, check=True)
    ms = dict((k, float(v)) for k, v in (line.split() for line in done.stdout.splitlines()))
    row("tiny torch_npu add_ on 16 elements + synchronize", ms["tiny_npu_add"] * 1e3, "us",
        reference=ms["tiny_cpu_add"] * 1e3, reference_name="torch CPU add_")
    for name in ("mlp", "gpt"):
        if "%s_step_npu" % name in ms:
            row("%s training step on torch_npu (AdamW)" % name, ms["%s_step_npu" % name], "ms",
                reference=ms["%s_step_cpu" % name], reference_name="torch CPU step",
                ratio=STEP_RATIO if name == "gpt" else None)
