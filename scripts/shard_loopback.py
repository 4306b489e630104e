#!/usr/bin/env python3
"""The loopback sharding measurement of docs/5-workloads-and-scale-out.md ("Sharding"): three
`dbf0 server` processes (nio, one event loop each) and, per round, back to back, batched bench runs
against one of them through the plain load generator, through the sharded load generator
(--sharded-client), through the library's ShardedKeyValueClient (--sharded-client --library-client),
and against all three. For each run it prints ops/s and the CPU each process used, read from
/proc/PID/stat 2.5 s into the run (after JVM start and the 1 s warm-up) and 4 s later: % of one
core, and the servers' CPU-µs per operation at the run's measured rate; the client's CPU-µs per
operation is the bench's own figure for its measured interval (process_cpu_us_per_op). Linux only.

    scripts/shard-loopback.sh [ROUNDS]  (default 4; BASE_PORT, BATCH, THREADS override 9411, 100, 4)
    VARIANTS=plain,one-shard,three-shards,three-shards-3x scripts/shard-loopback.sh 6
    DBF0_JAR=path/to/dbf0.jar scripts/shard-loopback.sh   (that jar, not ./dbf0's build)

The variants run in one order in odd rounds and in the reverse order in even ones.
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

ALL_VARIANTS = ("plain", "one-shard", "one-shard-library", "three-shards", "three-shards-3x")
# three-shards-3x sends frames of 3 x BATCH operations, so each server's part is about BATCH, as
# with one server; not run unless VARIANTS names it
VARIANTS = tuple(os.environ.get("VARIANTS", ",".join(ALL_VARIANTS[:4])).split(","))


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    base = int(os.environ.get("BASE_PORT", "9411"))
    batch = os.environ.get("BATCH", "100")
    threads = os.environ.get("THREADS", "4")
    # DBF0_JAR runs that jar (servers and bench) instead of ./dbf0's build
    jar = os.environ.get("DBF0_JAR")
    dbf0 = ["java", "-jar", jar] if jar else [str(REPO / "dbf0")]
    ports = [base, base + 1, base + 2]
    servers = [
        subprocess.Popen(
            [*dbf0, "server", "--server-model", "nio", "--threads", "1", "--port", str(p)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for p in ports
    ]
    one = f"127.0.0.1:{base}"
    three = ",".join(f"127.0.0.1:{p}" for p in ports)
    args = {
        "plain": ["--connect", one],
        "one-shard": ["--connect", one, "--sharded-client"],
        "one-shard-library": ["--connect", one, "--sharded-client", "--library-client"],
        "three-shards": ["--connect", three],
        "three-shards-3x": ["--connect", three],
    }
    assert set(VARIANTS) <= set(ALL_VARIANTS) and VARIANTS[0] == "plain", (
        "VARIANTS: plain first, then any of " + str(ALL_VARIANTS)
    )
    rates = {v: [] for v in VARIANTS}
    cpu = {v: [] for v in VARIANTS}
    try:
        time.sleep(4)
        jvms = [java_pid(s.pid) for s in servers]
        for r in range(1, rounds + 1):
            # Every SET adds a key, so the servers' maps grow all session long: alternate the order
            # of the variants, so that no variant always meets the larger map.
            for variant in VARIANTS if r % 2 else VARIANTS[::-1]:
                bench = subprocess.Popen(
                    [
                        *dbf0,
                        "bench",
                        "1",
                        threads,
                        "concurrent",
                        "16",
                        "64",
                        "0.1",
                        "PT6S",
                        "--warmup",
                        "PT1S",
                        "--client-mode",
                        "batched",
                        "--batch",
                        str(int(batch) * (3 if variant.endswith("-3x") else 1)),
                        "--pipeline",
                        "2",
                        *args[variant],
                    ],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    text=True,
                )
                time.sleep(2.5)
                pids = jvms + [java_pid(bench.pid)]
                t0, c0 = time.monotonic(), [cpu_seconds(p) for p in pids]
                time.sleep(4)
                t1, c1 = time.monotonic(), [cpu_seconds(p) for p in pids]
                out, _ = bench.communicate(timeout=60)
                result = json.loads(out.strip().splitlines()[-1])
                rate = result["ops_per_sec"]
                rates[variant].append(rate)
                used = [(b - a) / (t1 - t0) * 100 for a, b in zip(c0, c1)]
                server_us = sum(b - a for a, b in zip(c0[:3], c1[:3])) / (rate * (t1 - t0)) * 1e6
                client_us = result.get(
                    "process_cpu_us_per_op", float("nan")
                )  # its whole measured interval
                cpu[variant].append((server_us, client_us))
                print(
                    f"round {r} {variant:17s} {rate:>11,.0f} ops/s  errors {result['errors']}  "
                    f"CPU % of a core: servers {used[0]:.0f} {used[1]:.0f} {used[2]:.0f}, "
                    f"client {used[3]:.0f}  "
                    f"CPU-us/op: servers {server_us:.3f}, client {client_us:.3f}",
                    flush=True,
                )
    finally:
        for s in servers:
            s.terminate()
        for s in servers:
            s.wait(10)
    base_rates = rates["plain"]
    for variant in VARIANTS[1:]:
        ratios = [v / p for v, p in zip(rates[variant], base_rates)]
        print(
            f"{variant:17s} / plain: per-round {' '.join(f'{x:.2f}' for x in ratios)}  "
            f"median {statistics.median(ratios):.2f}"
        )
    for three in ("three-shards", "three-shards-3x"):
        if three in VARIANTS and "one-shard" in VARIANTS:
            ratios = [t / o for t, o in zip(rates[three], rates["one-shard"])]
            print(
                f"{three} / one-shard: per-round {' '.join(f'{x:.2f}' for x in ratios)}  "
                f"median {statistics.median(ratios):.2f}"
            )
    for variant in VARIANTS[1:]:
        ratios = [v[1] / p[1] for v, p in zip(cpu[variant], cpu["plain"])]
        print(
            f"client CPU-us/op, {variant} / plain: per-round "
            f"{' '.join(f'{x:.2f}' for x in ratios)}  median {statistics.median(ratios):.2f}"
        )
    print(
        "medians ops/s: " + ", ".join(f"{v} {statistics.median(rates[v]):,.0f}" for v in VARIANTS)
    )
    print(
        "medians CPU-us/op (servers, client): "
        + ", ".join(
            f"{v} {statistics.median(c[0] for c in cpu[v]):.3f} "
            f"{statistics.median(c[1] for c in cpu[v]):.3f}"
            for v in VARIANTS
        )
    )


if __name__ == "__main__":
    main()
