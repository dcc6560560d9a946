"""The misuse suite: every exported entry point is called with null pointers and with garbage
(random, misaligned, foreign) handles, in a child process (tests/misuse_driver.py). The process
must never crash or hang; a garbage handle must never give success, and the status must be the
one the vendor documents for an invalid argument of that API family.

Bounded in CI (OPEMU_MISUSE_EXAMPLES=2 random draws per entry point); raise it for a longer run.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from opemu import support
from opemu.core.headers import enum
from opemu.core.status import ACL, ACLNN

from conftest import opemu_only

pytestmark = [opemu_only]

DRIVER = Path(__file__).with_name("misuse_driver.py")
EXAMPLES = int(os.environ.get("OPEMU_MISUSE_EXAMPLES", "2"))
SEED = int(os.environ.get("OPEMU_MISUSE_SEED", "20261122"))
CHILD_TIMEOUT = 300
# Arguments the vendor documents as unused, so garbage there is no misuse: cudnnQueryRuntimeError's
# tag is reserved, and its handle is not consulted in RAWCODE mode.
UNUSED = {"mcdnnQueryRuntimeError"}
# Reference §2.8: a copy or set of count 0 returns success before anything else is looked at (the
# mc runtime answers zero-length transfers the same way).
ZERO_COUNT_FIRST = {"aclrtMemcpyAsync", "aclrtMemsetAsync", "aclrtMemcpy2dAsync", "aclrtMemsetD32Async", "mcMemcpyAsync",
                    "mcMemsetAsync"}


def documented_invalid_statuses():
    mcdnn = enum("mcdnn/mcdnn_ops_infer.h", "mcdnnStatus_t")
    mc = enum("mcr/mc_runtime_types.h", "mcError_t")
    return {
        "aclnnStatus": {ACLNN["ACLNN_ERR_PARAM_NULLPTR"], ACLNN["ACLNN_ERR_PARAM_INVALID"],
                        ACLNN["ACLNN_ERR_INNER_NULLPTR"], ACLNN["ACLNN_ERR_RUNTIME_ERROR"]},
        "aclError": {ACL["ACL_ERROR_INVALID_PARAM"], ACL["ACL_ERROR_RT_PARAM_INVALID"], ACL["ACL_ERROR_RT_CONTEXT_NULL"],
                     ACL["ACL_ERROR_API_NOT_SUPPORT"]},
        "mcdnnStatus_t": {mcdnn["MCDNN_STATUS_BAD_PARAM"], mcdnn["MCDNN_STATUS_NOT_SUPPORTED"]},
        "mcError_t": {mc["mcErrorInvalidValue"], mc["mcErrorInvalidResourceHandle"], mc["mcErrorInvalidMemcpyDirection"],
                      mc["mcErrorNotSupported"]},
    }


@pytest.fixture(scope="module")
def sweep():
    """Runs the driver to the end, restarting it after each crash or hang."""
    names = sorted(support.c_entry_points())
    results, crashes, start = [], [], 0
    while start < len(names):
        try:
            child = subprocess.run([sys.executable, str(DRIVER), str(SEED), str(EXAMPLES), str(start)],
                                   capture_output=True, text=True, timeout=CHILD_TIMEOUT)
            output, ended = child.stdout, child.stdout.rstrip().endswith("done")
            failure = None if ended else "crashed (exit %d)" % child.returncode
        except subprocess.TimeoutExpired as timeout:
            output, ended, failure = (timeout.stdout or b"").decode(), False, "hung"
        lines = output.splitlines()
        results += [line.split() for line in lines if line.startswith("result ")]
        if ended:
            break
        last = [line.split() for line in lines if line.startswith("begin ")][-1]
        crashes.append("%s (%s) %s" % (last[2], last[3], failure))
        start = int(last[1]) + 1
    return results, crashes


def test_no_entry_point_crashes_or_hangs(sweep):
    results, crashes = sweep
    assert crashes == []
    assert {r[2] for r in results} == set(support.c_entry_points())


def test_garbage_handles_never_succeed(sweep):
    statuses = documented_invalid_statuses()
    table = support.c_entry_points()
    wrong = []
    for _, _, name, scenario, result, garbage, count in sweep[0]:
        if name in ZERO_COUNT_FIRST and count == "0":
            continue
        if garbage == "1" and name not in UNUSED and table[name]["returns"] in statuses:
            if int(result) not in statuses[table[name]["returns"]]:
                wrong.append("%s %s -> %s" % (name, scenario, result))
    assert wrong == []


def test_every_handle_taking_entry_point_was_given_garbage(sweep):
    table = support.c_entry_points()
    tried = {r[2] for r in sweep[0] if r[5] == "1"}
    assert tried == {name for name, meta in table.items() if "handle" in meta["abi"]}


def test_huge_dimensions_on_small_memory_are_an_access_fault_not_a_crash():
    import ctypes
    import numpy as np
    from acl import DeviceTensor, recent_error, run_two_phase
    weight = DeviceTensor(np.ones((4, 3), np.float32), shape=(1 << 40, 3))  # 2^40 rows over 48 bytes
    indices = DeviceTensor(np.array([(1 << 40) - 1], np.int64))
    out = DeviceTensor(np.zeros((1, 3), np.float32))
    status = run_two_phase("aclnnEmbedding", *(ctypes.c_void_p(t.handle) for t in (weight, indices, out)))
    assert status[:2] == (0, 507015)  # phase 1 cannot know; the kernel's access faults, as on hardware
    assert "runs past the end of its allocation" in recent_error()
