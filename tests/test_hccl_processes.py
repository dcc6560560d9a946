"""HCCL across processes on one host (shared memory, or Gloo when forced), started with subprocess
as launchers start them; the root info moves through a file or a torch TCPStore. Faults end with
the vendor's error within the configured timeouts."""
import json
import os
import subprocess
import sys

import pytest

import hccl
from conftest import ROOT, opemu_only

pytestmark = [opemu_only]
WORKER = ROOT / "tests" / "hccl_worker.py"
ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, ACL_ERROR_RT_SUSPECT_REMOTE_ERROR = 507046, 507057


def launch(scenario, size, where, env=None, timeout=180, ranks=None):
    environment = dict(os.environ, OPEMU_THREADS="1", **(env or {}))
    procs = [subprocess.Popen([sys.executable, str(WORKER), scenario, str(r), str(size), str(where)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
             for r in (range(size) if ranks is None else ranks)]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=timeout)
        lines = [line for line in out.splitlines() if line.startswith("{")]
        results.append(json.loads(lines[-1]) if lines else {"exit": p.returncode, "stderr": err[-2000:]})
    return results


def test_processes_on_one_host_meet_in_shared_memory_and_match_the_reference(tmp_path):
    results = launch("ops", 3, tmp_path / "root")
    assert all(r.get("init") == 0 for r in results), results
    assert all(r["shared_memory"] for r in results)
    assert [r["failures"] for r in results] == [[], [], []]


def test_a_sub_communicator_meets_through_the_parents_rendezvous(tmp_path):
    results = launch("subcomm", 3, tmp_path / "root")
    assert [r.get("sub") for r in results] == [0, None, 0], results
    assert [r.get("value") for r in (results[0], results[2])] == [4, 4]


def test_gloo_forced_on_one_host_gives_the_same_bits(tmp_path):
    if not _gloo_built():
        pytest.skip("opemu was built without Gloo (libgloo-dev absent)")
    results = launch("ops", 2, tmp_path / "root", env={"OPEMU_HCCL_TRANSPORT": "gloo"})
    assert all(r.get("init") == 0 for r in results), results
    assert not any(r["shared_memory"] for r in results)
    assert [r["failures"] for r in results] == [[], []]


def test_root_info_through_a_torch_tcpstore_as_torch_npu_moves_it(tmp_path):
    from torch.distributed import TCPStore
    store = TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False)
    results = launch("sum", 2, "tcp://127.0.0.1:%d" % store.port)
    assert [r.get("sum") for r in results] == [3, 3], results


@pytest.mark.parametrize("transport", ["shm", "gloo"])
def test_a_killed_rank_fails_the_survivors_collective_promptly(tmp_path, transport):
    if transport == "gloo" and not _gloo_built():
        pytest.skip("opemu was built without Gloo")
    results = launch("peer_killed", 3, tmp_path / "root", env={"OPEMU_HCCL_TRANSPORT": transport,
                                                                  "OPEMU_HCCL_EXEC_TIMEOUT": "30"})
    survivors = results[:2]
    assert all(r["status"] == ACL_ERROR_RT_SUSPECT_REMOTE_ERROR for r in survivors), results
    assert all(r["seconds"] < 10 for r in survivors)  # death is seen, not waited out
    assert all("Heartbeat Lost Occurred" in r["message"] for r in survivors)
    assert all(r["async"] == hccl.E_REMOTE for r in survivors)


def test_a_silent_rank_fails_the_others_after_the_execution_timeout(tmp_path):
    results = launch("silent_peer", 2, tmp_path / "root", env={"OPEMU_HCCL_EXEC_TIMEOUT": "1",
                                                                 "SILENT_SECONDS": "4"})
    waiting = results[0]
    assert waiting["status"] == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, results
    assert 0.9 < waiting["seconds"] < 4
    assert "Stuck Occurred" in waiting["message"] and waiting["async"] == hccl.E_TIMEOUT


def test_mismatched_counts_fail_every_process_naming_both_sides(tmp_path):
    results = launch("mismatch", 2, tmp_path / "root", env={"OPEMU_HCCL_EXEC_TIMEOUT": "30"})
    assert all(r["status"] == ACL_ERROR_RT_SUSPECT_REMOTE_ERROR for r in results), results
    assert all("count=8" in r["message"] and "count=4" in r["message"] for r in results)
    assert all(r["async"] == hccl.E_PARA for r in results)


def test_a_root_info_whose_root_is_gone_fails_with_tcp_connect_after_the_connect_timeout(tmp_path):
    dead = tmp_path / "dead_root"
    subprocess.run([sys.executable, "-c", STALE_ROOT, str(dead)], check=True, env=dict(os.environ, OPEMU_THREADS="1"),
                   timeout=120)
    [rank1] = launch("ops", 2, dead, env={"OPEMU_HCCL_CONNECT_TIMEOUT": "1"}, ranks=[1])  # no rank 0 to rewrite it
    assert rank1["init"] == hccl.E_TCP_CONNECT, rank1
    assert "no rendezvous answers" in rank1["message"]


STALE_ROOT = r"""
import ctypes, os, sys
sys.path.insert(0, %r)
import hccl
info = hccl.RootInfo()
assert hccl.call("HcclGetRootInfo", ctypes.byref(info)) == 0
open(sys.argv[1], "wb").write(bytes(info))
""" % str(ROOT / "tests")


def _gloo_built():
    from opemu import paths
    return (paths.library().parent / "libopemu_gloo.so").exists()


def test_an_hccl_test_shaped_program_under_mpiexec_reports_success_for_every_size(tmp_path):
    """The app's own MPI (the mpich wheel) launches the ranks, as hccl_test is run with mpirun."""
    from pathlib import Path
    from conftest import toolkit
    from opemu import cli
    mpi = Path(sys.prefix)
    if not (mpi / "bin" / "mpiexec").exists() or not (mpi / "include" / "mpi.h").exists():
        pytest.skip("the mpich wheel (test extra) is not installed")
    program = tmp_path / "all_reduce_test"
    home = toolkit()
    build = subprocess.run(["g++", "-std=c++11", "-Wall", "-Werror", str(ROOT / "tests" / "c" / "hccl_test_allreduce.cpp"),
                            "-o", str(program), "-I%s/include" % home, "-I%s/include" % mpi, "-L%s/lib64" % home,
                            "-L%s/lib" % mpi, "-Wl,-rpath,%s/lib" % mpi, "-Wl,--copy-dt-needed-entries", "-lhccl",
                            "-lascendcl", "-lmpi"], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    environment = dict(os.environ, OPEMU_THREADS="1", **cli.environment(home))
    run = subprocess.run([str(mpi / "bin" / "mpiexec"), "-n", "4", str(program), "-b", "8K", "-e", "256K", "-f", "4",
                          "-d", "fp32", "-o", "sum", "-p", "8", "-n", "5", "-w", "2"],
                         capture_output=True, text=True, env=environment, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = [line for line in run.stdout.splitlines() if line[:1].isdigit()]
    assert len(rows) == 3 and all(row.endswith("success") for row in rows), run.stdout
    assert "check result failed" not in run.stdout
