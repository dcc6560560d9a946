"""HCCL AllReduce per transport: 16 MiB of fp32 across 2 and 4 ranks against the floor of the same
bytes through one NumPy add and one copy (target <= 3x on shared memory), and the per-call latency
of a 4-byte AllReduce (targets <= 50 us in-process, <= 200 us over shared memory). Multi-process
runs set OPEMU_THREADS=1 (one NumPy thread per rank on a 2-core host)."""
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

import opemu
from common import HERE, median_seconds, row
from opemu import cli

BIG = 16 << 20


def build(tmp):
    home = opemu.prefix()
    output = Path(tmp) / "hccl_driver"
    subprocess.run(["g++", "-O2", str(HERE / "c" / "hccl_driver.cpp"), "-o", str(output), "-I%s/include" % home,
                    "-L%s/lib64" % home, "-lhccl", "-lascendcl"], check=True)
    return output


def allreduce_us(driver, transport, ranks, nbytes, iterations):
    env = dict(cli.run_environment(), OPEMU_THREADS="1")
    out = subprocess.run([str(driver), transport, str(ranks), str(nbytes), str(iterations)], capture_output=True,
                         text=True, env=env, timeout=600)
    if out.returncode != 0:
        return None
    values = [float(line.split()[1]) for line in out.stdout.splitlines() if line.startswith("allreduce_us")]
    return values[0] if values else None


def transports():
    names = ["inproc", "shm"]
    if (Path(opemu.prefix()) / "lib64" / "libopemu_gloo.so").exists():
        names.append("gloo")
    return names


def main():
    a, b, c, d = (np.ones(BIG // 4, np.float32) for _ in range(4))
    floor_ms = (median_seconds(lambda: np.add(a, b, out=c)) + median_seconds(lambda: np.copyto(d, c))) * 1e3
    with tempfile.TemporaryDirectory() as tmp:
        driver = build(tmp)
        for transport in transports():
            for ranks in (2, 4):
                us = allreduce_us(driver, transport, ranks, BIG, 5)
                if us is None:
                    print("AllReduce 16 MiB fp32 %s %d ranks: failed" % (transport, ranks))
                    continue
                row("AllReduce 16 MiB fp32, %s, %d ranks" % (transport, ranks), us / 1e3, "ms", reference=floor_ms,
                    reference_name="numpy add+copy", ratio=3.0 if transport == "shm" else None)
        for transport, target in (("inproc", 50), ("shm", 200), ("gloo", None)):
            if transport not in transports():
                continue
            us = allreduce_us(driver, transport, 2, 4, 300)
            if us is not None:
                row("AllReduce 4 bytes, %s, 2 ranks, per call" % transport, us, "us", target=target)
