"""Where the toolkit-shaped prefix (include/, lib64/, lib/, set_env.sh) lives.

An install puts it inside the package (site-packages/opemu/prefix); an editable install keeps the
Python sources in the checkout while the prefix is installed into site-packages, and a plain CMake
build leaves it in build/prefix. OPEMU_PREFIX overrides all of them."""
import os
import sys
from pathlib import Path

_LIBRARY = Path("lib64") / "libopemu.so"
_SOURCE_ROOT = Path(__file__).resolve().parents[2]


def _candidates():
    if os.environ.get("OPEMU_PREFIX"):
        yield Path(os.environ["OPEMU_PREFIX"])
    yield Path(__file__).resolve().parent / "prefix"
    for entry in sys.path:
        yield Path(entry or ".") / "opemu" / "prefix"
    yield _SOURCE_ROOT / "build" / "prefix"


def prefix() -> Path:
    for candidate in _candidates():
        if (candidate / _LIBRARY).is_file():
            return candidate.resolve()
    raise FileNotFoundError("opemu's prefix was not found: install opemu (pip install .) or set OPEMU_PREFIX")


def include_dir() -> Path:
    """The headers: the installed copy, or the checkout's when nothing is built yet."""
    try:
        return prefix() / "include"
    except FileNotFoundError:
        return _SOURCE_ROOT / "include"


def library() -> Path:
    return prefix() / _LIBRARY
