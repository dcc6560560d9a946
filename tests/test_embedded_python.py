"""The embedded interpreter is the Python opemu was built for, whatever `python3` PATH finds first
(cron, sudo or a minimal PATH can put another install of the same version there)."""
import os
import sys

from conftest import opemu_only, run_program

pytestmark = [opemu_only]


def decoy_python(root):
    """A `python3` whose home has a standard library that cannot start an interpreter."""
    version = "python%d.%d" % sys.version_info[:2]
    (root / "bin").mkdir()
    (root / "lib" / version / "encodings").mkdir(parents=True)
    (root / "lib" / version / "os.py").write_text("raise ImportError('the decoy standard library')\n")
    (root / "lib" / version / "encodings" / "__init__.py").write_text("raise ImportError('the decoy')\n")
    for name in ("python3", version):
        executable = root / "bin" / name
        executable.write_text("#!/bin/sh\nexit 1\n")
        executable.chmod(0o755)
    return root / "bin"


def test_an_operator_runs_with_another_python3_first_on_path(embedding_sample, tmp_path):
    path = "%s:%s" % (decoy_python(tmp_path), os.environ["PATH"])
    result = run_program(embedding_sample, env={"PATH": path})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "result[0] is: 4.000000" in result.stdout


def test_starting_the_operators_leaves_scipy_unimported():
    """A process's first call imports every operator module; SciPy (~170 ms to import, more than half
    of that start) is imported by the few routines that use it, when they first run."""
    import subprocess
    import sys
    code = "import sys, opemu.ops as o; o.load_all(); print(sorted(m for m in sys.modules if m.startswith('scipy')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
