"""Huawei's unchanged torch_npu wheel on opemu: it loads, finds the device, copies, and trains the same
models to the same losses as PyTorch on the CPU.

The wheel lives outside the test environment (environment.py says why); every test here runs Python in a
process of its own, with the prefix's set_env.sh exported (what `opemu exec` does) and the wheel on
PYTHONPATH. The workload runs once for the module (workload.py), each test reads its part."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import opemu
from opemu import cli

import torch_npu_environment as environment

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PARTS = ("device", "copies", "mlp", "cnn", "gpt", "unsupported")
# The aclnn operators each model's training step reaches on torch_npu that opemu does not implement yet.
MISSING = {
    "mlp": "ForeachAddcmulScalarV2 ForeachLerpScalar",
    "cnn": "",
    "gpt": "Stack",
}


def needs(model):
    if not MISSING[model]:
        return pytest.mark.usefixtures()  # nothing missing: the test must pass
    return pytest.mark.xfail(strict=True, reason="operators not implemented yet: " + MISSING[model])


def torch_npu_env(**extra):
    env = dict(os.environ)
    env.update(cli.environment(opemu.prefix()))
    env["PYTHONPATH"] = os.pathsep.join([str(environment.ensure()), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.update(extra)
    return env


def run_python(*args, env, timeout=900):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=timeout)


@pytest.fixture(scope="module")
def results():
    done = run_python(str(HERE / "workload.py"), *PARTS, env=torch_npu_env())
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def part(results, name):
    entry = results[name]
    assert "error" in entry or "ok" in entry
    assert "error" not in entry, entry["error"] + "\n" + entry["trace"]
    return entry["ok"]


def test_torch_npu_imports_and_finds_the_emulated_devices(results):
    found = part(results, "device")
    assert found["available"] and found["count"] == 8 and found["current"] == 0
    assert found["name"] == "Ascend910B1"


def test_copies_between_host_and_device_keep_every_value(results):
    assert part(results, "copies") == dict.fromkeys(
        ("h2d2h", "d2d", "non_contiguous", "slice", "to_half", "to_int64", "copy_into"), True)


@needs("mlp")
def test_mlp_trained_with_adamw_has_the_cpu_losses(results):
    losses = part(results, "mlp")
    np.testing.assert_allclose(losses["npu"], losses["cpu"], rtol=1e-5)
    assert losses["npu"][-1] < losses["npu"][0]


@needs("cnn")
def test_cnn_training_steps_have_the_cpu_losses(results):
    losses = part(results, "cnn")
    np.testing.assert_allclose(losses["npu"], losses["cpu"], rtol=1e-4)


@needs("gpt")
def test_gpt_style_training_steps_have_the_cpu_losses(results):
    losses = part(results, "gpt")
    np.testing.assert_allclose(losses["npu"], losses["cpu"], rtol=1e-4)


def test_an_operator_opemu_does_not_implement_is_a_torch_error_with_opemus_message(results):
    outcome = part(results, "unsupported")
    assert outcome["raised"] == "RuntimeError"
    assert "is not supported by opemu" in outcome["message"]


@needs("mlp")
def test_the_readme_sample_trains_on_npu(tmp_path):
    sample = ROOT / "samples" / "torch" / "train_mlp.py"
    npu = run_python(str(sample), "--steps", "5", env=torch_npu_env())
    cpu = run_python(str(sample), "--steps", "5", "--device", "cpu", env=torch_npu_env())
    assert npu.returncode == 0, npu.stderr[-4000:]
    losses = [[float(line.split()[-1]) for line in run.stdout.splitlines() if line.startswith("step")]
              for run in (npu, cpu)]
    assert len(losses[0]) == 5
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-5)


def test_torch_without_opemus_libraries_loads_with_autoload_off():
    """Where torch_npu is installed but opemu's libraries are not on the loader's path, TORCH_DEVICE_BACKEND_
    AUTOLOAD=0 keeps `import torch` working (the escape the README names)."""
    env = dict(os.environ, PYTHONPATH=str(environment.ensure()), TORCH_DEVICE_BACKEND_AUTOLOAD="0")
    env.pop("LD_LIBRARY_PATH", None)
    done = run_python("-c", "import torch; print(torch.ones(2).sum().item())", env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "2.0"


def test_the_test_environment_itself_never_loads_torch_npu():
    import torch  # noqa: F401
    assert "torch_npu" not in sys.modules
