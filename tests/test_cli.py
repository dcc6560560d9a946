"""The `opemu` command: prefix, env, run, samples, exec, info."""
import subprocess
import sys

import opemu
from conftest import ROOT, opemu_only

pytestmark = [opemu_only]


def opemu_cli(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "opemu.cli", *args], capture_output=True, text=True, **kwargs)


def test_prefix_is_toolkit_shaped():
    prefix = opemu_cli("prefix").stdout.strip()
    assert prefix == str(opemu.prefix())
    for part in ("include/acl/acl.h", "include/aclnnop/aclnn_embedding.h", "lib64/libascendcl.so", "lib/libascendcl.so",
                 "set_env.sh"):
        assert (opemu.prefix() / part).exists(), part


def test_env_prints_the_set_env_exports():
    text = opemu_cli("env").stdout
    for name in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_OPP_PATH", "MACA_PATH", "LD_LIBRARY_PATH"):
        assert "export %s=" % name in text
    sourced = subprocess.run(["bash", "-c", "source %s/set_env.sh && echo $ASCEND_HOME_PATH && echo $LD_LIBRARY_PATH"
                              % opemu.prefix()], capture_output=True, text=True).stdout.split()
    assert sourced[0] == str(opemu.prefix())
    assert sourced[1].startswith(str(opemu.prefix()) + "/lib64")


def test_run_builds_and_runs_a_sample():
    result = opemu_cli("run", str(ROOT / "samples" / "aclnn" / "embedding.cpp"))
    assert result.returncode == 0, result.stderr
    assert "result[0] is: 4.000000" in result.stdout


def test_samples_prints_a_table():
    result = opemu_cli("samples")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "aclnn/embedding.cpp" in result.stdout and "pass" in result.stdout
    assert " 0 failed" in result.stdout


def test_exec_puts_opemu_first_on_the_library_path():
    result = opemu_cli("exec", "--", "sh", "-c", "echo $LD_LIBRARY_PATH")
    assert result.stdout.startswith(str(opemu.prefix() / "lib64"))


def test_info_lists_names_and_implemented_entry_points():
    text = opemu_cli("info").stdout
    assert "libascendcl.so" in text and "libopapi_nn.so" in text
    assert "  aclnnEmbeddingGetWorkspaceSize" in text and "  aclrtMalloc" in text
    assert "  aclDumpOpTensors" not in text
    listed = [line[2:] for line in text.splitlines() if line.startswith("  ")]
    assert not any(name.startswith("_Z") for name in listed)  # fp16_t.h's members as the header names them
    members = [i for i, name in enumerate(listed) if name.startswith("op::")]
    assert members and members == list(range(len(listed) - len(members), len(listed)))
