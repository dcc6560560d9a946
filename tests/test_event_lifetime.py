"""A stream waiting on an event keeps the wait when the app destroys the event before
synchronising (CANN 8 allows destroying an event with pending waits), with deferred streams."""
import os
import subprocess
import sys
import textwrap

from conftest import ROOT, opemu_only

pytestmark = [opemu_only]

PROGRAM = textwrap.dedent("""
    import ctypes, sys
    sys.path.insert(0, %r)
    import acl
    L, c = acl.lib(), ctypes
    V = c.c_void_p
    for name in ("aclrtRecordEvent", "aclrtStreamWaitEvent"):
        getattr(L, name).argtypes = [V, V]
    L.aclrtDestroyEvent.argtypes = [V]
    L.aclrtMemcpyAsync.argtypes = [V, c.c_size_t, V, c.c_size_t, c.c_int, V]
    s1, s2, e, src, dst = V(), V(), V(), V(), V()
    assert L.aclrtCreateStream(c.byref(s1)) == 0 and L.aclrtCreateStream(c.byref(s2)) == 0
    assert L.aclrtMalloc(c.byref(src), 4, 0) == 0 and L.aclrtMalloc(c.byref(dst), 4, 0) == 0
    zero, value, out = c.c_int(0), c.c_int(42), c.c_int(-1)
    for d in (src, dst):
        assert L.aclrtMemcpy(d, 4, c.byref(zero), 4, 1) == 0
    assert L.aclrtCreateEvent(c.byref(e)) == 0
    assert L.aclrtMemcpyAsync(src, 4, c.addressof(value), 4, 1, s1) == 0
    assert L.aclrtRecordEvent(e, s1) == 0
    assert L.aclrtStreamWaitEvent(s2, e) == 0
    assert L.aclrtDestroyEvent(e) == 0           # before either stream ran
    assert L.aclrtMemcpyAsync(dst, 4, src, 4, 3, s2) == 0
    assert L.aclrtSynchronizeStream(s2) == 0
    assert L.aclrtMemcpy(c.byref(out), 4, dst, 4, 2) == 0
    print("copied", out.value)
""") % str(ROOT / "tests")


def test_wait_survives_destroying_its_event():
    env = dict(os.environ, OPEMU_STREAM="deferred")
    result = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "copied 42" in result.stdout  # the wait ran s1's copy first; losing it copied the stale 0
