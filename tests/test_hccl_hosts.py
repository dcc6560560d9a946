"""Several hosts, simulated by network namespaces joined by a veth pair (their addresses are this
test's own, inside namespaces it makes): ranks on different "hosts" pick Gloo by themselves (a
namespace is a host of its own), and a rank table names rank 0's host by its host_ip. Opt-in
(OPEMU_TEST_HOSTS=1: they change the machine's network set-up, and take seconds each); skipped
without the rights to make namespaces (root, CAP_NET_ADMIN) or without Gloo."""
import json
import os
import subprocess
import sys
import uuid

import pytest

from conftest import ROOT, opemu_only
from test_hccl_processes import WORKER, _gloo_built

pytestmark = [opemu_only, pytest.mark.skipif(os.environ.get("OPEMU_TEST_HOSTS") != "1",
                                              reason="hosts as network namespaces: OPEMU_TEST_HOSTS=1")]


def ip(*args, check=True):
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check)


@pytest.fixture(scope="module")
def hosts():
    """Two namespaces, 10.231.x.1 and 10.231.x.2 on a veth pair between them."""
    if not _gloo_built():
        pytest.skip("opemu was built without Gloo (libgloo-dev absent)")
    tag = uuid.uuid4().hex[:6]
    names = ["opemu-a-" + tag, "opemu-b-" + tag]
    try:
        if ip("netns", "add", names[0], check=False).returncode != 0:
            pytest.skip("cannot make network namespaces here (needs root or CAP_NET_ADMIN, and iproute2)")
    except FileNotFoundError:
        pytest.skip("iproute2 (ip) is not installed")
    subnet = 10 + int(tag[:2], 16) % 200
    addresses = ["10.231.%d.1" % subnet, "10.231.%d.2" % subnet]
    try:
        ip("netns", "add", names[1])
        ip("link", "add", "va" + tag, "type", "veth", "peer", "name", "vb" + tag)
        for name, link, address in zip(names, ("va" + tag, "vb" + tag), addresses):
            ip("link", "set", link, "netns", name)
            ip("-n", name, "addr", "add", address + "/24", "dev", link)
            ip("-n", name, "link", "set", link, "up")
            ip("-n", name, "link", "set", "lo", "up")
        yield list(zip(names, addresses))
    finally:
        for name in names:
            ip("netns", "del", name, check=False)


def run(hosts, scenario, where, env=None):
    environment = dict(os.environ, OPEMU_THREADS="1", OPEMU_HCCL_CONNECT_TIMEOUT="60", **(env or {}))
    procs = []
    for rank, (name, address) in enumerate(hosts):
        procs.append(subprocess.Popen(["ip", "netns", "exec", name, sys.executable, str(WORKER), scenario, str(rank),
                                       str(len(hosts)), str(where)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True, env=dict(environment, HCCL_IF_IP=address)))
    results = []
    for p in procs:
        out, err = p.communicate(timeout=240)
        lines = [line for line in out.splitlines() if line.startswith("{")]
        results.append(json.loads(lines[-1]) if lines else {"exit": p.returncode, "stderr": err[-2000:]})
    return results


def test_ranks_on_two_hosts_choose_gloo_and_match_the_reference(hosts, tmp_path):
    results = run(hosts, "ops", tmp_path / "root")
    assert all(r.get("init") == 0 for r in results), results
    assert not any(r["shared_memory"] for r in results)
    assert [r["failures"] for r in results] == [[], []]


def test_a_rank_table_names_rank_0s_host_by_its_host_ip(hosts, tmp_path):
    servers = [{"server_id": "node_%d" % i, "host_ip": address,
                "device": [{"device_id": "0", "device_ip": "192.168.9.%d" % i, "host_port": "29511",
                            "rank_id": str(i)}]} for i, (_, address) in enumerate(hosts)]
    path = tmp_path / "rank_table.json"
    path.write_text(json.dumps({"status": "completed", "version": "1.2", "server_list": servers,
                                "super_pod_list": [{"super_pod_id": "0", "server_list": [{"server_id": "node_0"},
                                                                                         {"server_id": "node_1"}]}]}))
    results = run(hosts, "mismatch", "ranktable:%s" % path, env={"OPEMU_HCCL_EXEC_TIMEOUT": "30"})
    assert all(r.get("init") == 0 for r in results), results
    assert all("count=8" in r["message"] and "count=4" in r["message"] for r in results)  # met, then disagreed
