#!/usr/bin/env python3
"""What routing by the slot map costs (docs/7-cluster.md, "Scale-out measured"): one `dbf0 server`
that is a one-node cluster (nio, one event loop, all 16,384 slots), and per round, back to back,
the same bench run through the plain load generator (--connect) and through the cluster-aware one
(--cluster, which learns the slot map and places every key by its slot). Both send every key to
the same node, so the difference is the routing. For each run it prints ops/s, the server's CPU per
operation (from /proc/PID/stat, 2.5 s into the run and 4 s later) and the client's (the bench's own
process_cpu_us_per_op), then the per-round ratios cluster/plain and their medians. Linux only.

    python3 scripts/cluster_routing.py [ROUNDS]     (default 4)
    MODES=pipelined,batched SET_FRAC=0.0 python3 scripts/cluster_routing.py 4

MODES picks pipelined (16 in flight) and/or batched (frames of 1,000); SET_FRAC is the bench's
setFrac (default 0.1; 0.0 keeps the map empty, so that the client is the side that limits);
PORT (default 9541) and DBF0_JAR (that jar instead of ./dbf0's build) as in shard_loopback.py.
Odd rounds run plain first, even rounds cluster first.
"""

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from dbf0lab.processes import cpu_seconds, java_pid  # noqa: E402

MODE_FLAGS = {
    "pipelined": ["--client-mode", "pipelined", "--pipeline", "16"],
    "batched": ["--client-mode", "batched", "--batch", "1000"],
}


def run_once(dbf0: list[str], server_pid: int, mode: str, target: list[str]) -> tuple:
    """One bench run: (ops/s, errors, server CPU-µs/op, client CPU-µs/op)."""
    bench = subprocess.Popen(
        [*dbf0, "bench", "1", "4", "concurrent", "16", "64", os.environ.get("SET_FRAC", "0.1")]
        + ["PT6S", "--warmup", "PT1S", *MODE_FLAGS[mode], *target],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(2.5)  # past the JVM's start and the 1 s warm-up
    t0, s0 = time.monotonic(), cpu_seconds(server_pid)
    time.sleep(4)
    t1, s1 = time.monotonic(), cpu_seconds(server_pid)
    out, err = bench.communicate(timeout=60)
    if bench.returncode != 0 or not out.strip():
        sys.exit(f"cluster_routing.py: bench failed (exit {bench.returncode}): {err.strip()}")
    result = json.loads(out.strip().splitlines()[-1])
    rate = result["ops_per_sec"]
    server_us = (s1 - s0) / (rate * (t1 - t0)) * 1e6
    return rate, result["errors"], server_us, result.get("process_cpu_us_per_op", float("nan"))


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    port = os.environ.get("PORT", "9541")
    modes = os.environ.get("MODES", "pipelined,batched").split(",")
    unknown = [m for m in modes if m not in MODE_FLAGS]
    if unknown:
        sys.exit(f"cluster_routing.py: MODES must name pipelined and/or batched, got {unknown}")
    jar = os.environ.get("DBF0_JAR")
    dbf0 = ["java", "-jar", jar] if jar else [str(REPO / "dbf0")]
    node = f"127.0.0.1:{port}"
    server = subprocess.Popen(
        [*dbf0, "server", "--server-model", "nio", "--threads", "1", "--port", port]
        + ["--cluster-nodes", node],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    targets = {"plain": ["--connect", node], "cluster": ["--cluster", node]}
    try:
        time.sleep(4)
        server_pid = java_pid(server.pid)
        for mode in modes:
            runs: dict[str, list[tuple]] = {"plain": [], "cluster": []}
            for r in range(1, rounds + 1):
                for variant in ("plain", "cluster") if r % 2 else ("cluster", "plain"):
                    rate, errors, server_us, client_us = run_once(
                        dbf0, server_pid, mode, targets[variant]
                    )
                    runs[variant].append((rate, server_us, client_us))
                    print(
                        f"{mode} round {r} {variant:7s} {rate:>11,.0f} ops/s  errors {errors}  "
                        f"CPU-us/op: server {server_us:.3f}, client {client_us:.3f}",
                        flush=True,
                    )
            pairs = list(zip(runs["cluster"], runs["plain"]))
            for label, i in (("ops/s", 0), ("client CPU-us/op", 2), ("server CPU-us/op", 1)):
                ratios = [c[i] / p[i] for c, p in pairs]
                print(
                    f"{mode} cluster/plain {label}: per round "
                    + " ".join(f"{x:.2f}" for x in ratios)
                    + f"  median {statistics.median(ratios):.2f}",
                    flush=True,
                )
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
