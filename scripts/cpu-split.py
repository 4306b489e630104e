#!/usr/bin/env python3
"""CPU time per operation of one dbf0 server process and one bench client process, for the
sharding layer's cost (docs/5-workloads-and-scale-out.md, "Sharding"). Starts `dbf0 server` (nio,
one event loop), then per round runs a batched read-heavy bench against it, once with the plain
load generator and once through the library's ShardedKeyValueClient (--sharded-client
--library-client); reads both processes' CPU ticks from /proc/PID/stat 2.5 s into the run (after
JVM start and the 1 s warm-up) and 4 s later, and divides by the operations of those 4 s at the
run's measured rate. Linux only.

    .venv/bin/python scripts/cpu-split.py [ROUNDS] [PORT]      (defaults: 3 rounds, port 9424)
"""

import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from dbf0lab.processes import cpu_seconds, java_pid  # noqa: E402


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    port = sys.argv[2] if len(sys.argv) > 2 else "9424"
    dbf0 = str(REPO / "dbf0")
    server = subprocess.Popen(
        [dbf0, "server", "--server-model", "nio", "--threads", "1", "--port", port],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(3)
        for r in range(rounds):
            for variant in ([], ["--sharded-client", "--library-client"]):
                bench = subprocess.Popen(
                    [
                        dbf0,
                        "bench",
                        "1",
                        "1",
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
                        "1000",
                        "--connect",
                        "127.0.0.1:" + port,
                        *variant,
                    ],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    text=True,
                )
                time.sleep(2.5)
                # ./dbf0 is a shell script: the JVM is its child, or itself after exec
                jvm = java_pid(bench.pid)
                t0, s0, c0 = time.monotonic(), cpu_seconds(java_pid(server.pid)), cpu_seconds(jvm)
                time.sleep(4)
                t1, s1, c1 = time.monotonic(), cpu_seconds(java_pid(server.pid)), cpu_seconds(jvm)
                out, _ = bench.communicate(timeout=60)
                result = json.loads(out.strip().splitlines()[-1])
                ops = result["ops_per_sec"] * (t1 - t0)
                name = "library-client" if variant else "plain"
                print(
                    f"round {r} {name:14s} {result['ops_per_sec']:>11,.0f} ops/s; CPU-s per "
                    f"million ops: server {(s1 - s0) / ops * 1e6:.3f}, client "
                    f"{(c1 - c0) / ops * 1e6:.3f}",
                    flush=True,
                )
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
