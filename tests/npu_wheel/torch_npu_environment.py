"""The torch_npu tests' own environment: Huawei's unchanged torch_npu wheel, installed apart from the
test environment's site-packages.

torch auto-loads every installed device extension at `import torch` (the `torch.backends` entry
point), so a torch_npu in the test environment would make every torch-oracle test load it, and fail
where opemu's libraries are not on the loader's path. It is installed instead with `pip --target`
into build/torch_npu-<version>/ (beside the build trees, ignored by git), without dependencies: its
torch is the test environment's own (the same pin), pyyaml comes along. Only the torch_npu tests'
subprocesses put that directory on PYTHONPATH.

`python tests/npu_wheel/torch_npu_environment.py` installs it (the test-environment setup calls it); the tests
call `ensure()`, which installs it on first use when missing."""
import os
import subprocess
import sys
from pathlib import Path

TORCH_NPU = "torch-npu==2.13.0"
DIRECTORY = Path(__file__).resolve().parents[2] / "build" / "torch_npu-2.13.0"


def installed():
    return (DIRECTORY / "torch_npu" / "__init__.py").is_file() and (DIRECTORY / "yaml").is_dir()


def ensure():
    """The directory holding torch_npu and pyyaml, installed first when missing."""
    if not installed():
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--upgrade",
                        "--target", str(DIRECTORY), TORCH_NPU, "pyyaml"], check=True,
                       env=dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1"))
    return DIRECTORY


if __name__ == "__main__":
    print(ensure())
