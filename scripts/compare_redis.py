#!/usr/bin/env python3
"""Side by side with Redis: the same redis-benchmark runs against Redis and against dbf0.

Starts Debian's redis-server (no persistence, loopback, a free port) and a dbf0 server (loopback,
a free port), then runs two loops. The first is a warm-up: every test against each server with
--warmup-requests requests, not recorded, so that dbf0's JIT compiler has done its work. The
second measures: each redis-benchmark test against both in alternation (Redis, dbf0, Redis,
dbf0, ...), --pairs times, so that drift on a shared machine hits both alike. Every measured run
is appended to a JSONL file as soon as it finishes; the summary is the median, per test, of the
dbf0/Redis ratios of the pairs.

    python3 scripts/compare_redis.py                       # 3 pairs of the three standard tests
    python3 scripts/compare_redis.py --pairs 5 --requests 200000 --dbf0-model nio --dbf0-threads 2
    python3 scripts/compare_redis.py --tests c50,c1000     # 50 against 1,000 connections

Needs redis-server and redis-benchmark (scripts/install-test-tools.sh installs them) and
target/dbf0.jar (./build.sh).
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The three comparisons of the issue: 50 connections, 50 with pipelining, one connection.
STANDARD_TESTS = [
    {"name": "c50", "clients": 50, "pipeline": 1},
    {"name": "c50-P16", "clients": 50, "pipeline": 16},
    {"name": "c1", "clients": 1, "pipeline": 1},
]
# Run only when named in --tests: a thousand connections, where both servers' event loops are
# measured holding many clients. How much of its 50-connection rate each keeps is printed too.
EXTRA_TESTS = [
    {"name": "c1000", "clients": 1000, "pipeline": 1},
]
ALL_TESTS = STANDARD_TESTS + EXTRA_TESTS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def find_java() -> str:
    """The java of a JDK 21+, found the way the shell scripts find it (scripts/lib/jdk.sh)."""
    out = subprocess.run(["bash", "-c", f". '{ROOT}/scripts/lib/jdk.sh' && dbf0_find_jdk"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(out.stderr.strip() or "compare_redis: no JDK 21+ found")
    return str(Path(out.stdout.strip()) / "bin" / "java")


def wait_for_ping(port: int, what: str, process: subprocess.Popen, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"compare_redis: {what} exited with status {process.returncode} before answering")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"*1\r\n$4\r\nPING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            pass
        time.sleep(0.2)
    sys.exit(f"compare_redis: {what} on port {port} did not answer PING within {timeout:.0f} s")


def start_servers(args) -> tuple[dict, list[subprocess.Popen]]:
    redis_port, dbf0_port = free_port(), free_port()
    redis = subprocess.Popen(
        [args.redis_server, "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--daemonize", "no", "--protected-mode", "yes", "--loglevel", "warning"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dbf0 = subprocess.Popen(
        [args.java, *args.jvm_option, "-jar", str(args.jar), "server", "--bind", "127.0.0.1", "--port", str(dbf0_port),
         "--map", args.dbf0_map, "--server-model", args.dbf0_model, "--threads", str(args.dbf0_threads)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    processes = [redis, dbf0]
    try:
        wait_for_ping(redis_port, "redis-server", redis)
        wait_for_ping(dbf0_port, "dbf0", dbf0)
    except SystemExit:
        stop(processes)
        raise
    return {"redis": redis_port, "dbf0": dbf0_port}, processes


def stop(processes: list[subprocess.Popen]) -> None:
    for p in processes:
        if p.poll() is None:
            p.terminate()
    for p in processes:
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()


def run_benchmark(args, port: int, test: dict) -> list[dict]:
    """One redis-benchmark run; one row per command (SET, GET) with its rate and latencies."""
    command = [args.redis_benchmark, "-h", "127.0.0.1", "-p", str(port), "-t", "set,get", "-d", str(args.value_size),
               "-r", str(args.keyspace), "-n", str(args.requests), "-c", str(test["clients"]), "-P", str(test["pipeline"]),
               "--csv"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
    if result.returncode != 0:
        raise RuntimeError(f"redis-benchmark failed ({result.returncode}): {result.stderr.strip()[:300]}")
    rows = []
    for record in csv.DictReader(io.StringIO(result.stdout)):
        rows.append({
            "command": record["test"],
            "rps": float(record["rps"]),
            "p50_ms": float(record.get("p50_latency_ms") or "nan"),
            "p99_ms": float(record.get("p99_latency_ms") or "nan"),
        })
    if not rows:
        raise RuntimeError(f"redis-benchmark printed no CSV rows: {result.stdout[:300]!r}")
    return rows


def machine() -> dict:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    redis_version = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout.strip()
    return {"cpu": cpu, "cores": os.cpu_count(), "os": platform.platform(), "redis": redis_version,
            "when": datetime.now(timezone.utc).isoformat(timespec="seconds")}


def summarize(rows: list[dict]) -> list[dict]:
    """Per test and command: medians of each server's rate and the median of the pair ratios."""
    summary = []
    names = [t["name"] for t in ALL_TESTS]
    keys = sorted({(r["test"], r["command"]) for r in rows},
                  key=lambda k: (names.index(k[0]) if k[0] in names else len(names), k[0],
                                 {"SET": 0, "GET": 1}.get(k[1], 2), k[1]))
    for test, command in keys:
        by_pair: dict[int, dict[str, float]] = {}
        for r in rows:
            if r["test"] == test and r["command"] == command:
                by_pair.setdefault(r["pair"], {})[r["server"]] = r["rps"]
        ratios = [p["dbf0"] / p["redis"] for p in by_pair.values() if "dbf0" in p and "redis" in p and p["redis"] > 0]
        summary.append({
            "test": test, "command": command,
            "redis_rps": statistics.median(p["redis"] for p in by_pair.values() if "redis" in p),
            "dbf0_rps": statistics.median(p["dbf0"] for p in by_pair.values() if "dbf0" in p),
            "ratio": statistics.median(ratios) if ratios else float("nan"), "pairs": len(ratios),
        })
    return summary


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=3, help="Redis/dbf0 pairs per test (default: %(default)s)")
    parser.add_argument("--requests", type=int, default=1_000_000, help="redis-benchmark -n (default: %(default)s)")
    parser.add_argument("--value-size", type=int, default=64, help="redis-benchmark -d, bytes (default: %(default)s)")
    parser.add_argument("--keyspace", type=int, default=100_000, help="redis-benchmark -r (default: %(default)s)")
    parser.add_argument("--tests", default=",".join(t["name"] for t in STANDARD_TESTS),
                        help="comma-separated tests: c50, c50-P16 and c1 (the default: all three), and "
                             "c1000 (1,000 connections)")
    parser.add_argument("--dbf0-model", default="nio", choices=["pool", "virtual", "nio"],
                        help="dbf0's server model (default: %(default)s)")
    parser.add_argument("--dbf0-threads", type=int, default=2, help="dbf0's threads or event loops (default: %(default)s)")
    parser.add_argument("--dbf0-map", default="concurrent", help="dbf0's map backend (default: %(default)s)")
    parser.add_argument("--jvm-option", action="append", default=[], help="extra JVM option for dbf0 (repeatable)")
    parser.add_argument("--jar", type=Path, default=ROOT / "target" / "dbf0.jar", help="dbf0's runnable jar")
    parser.add_argument("--out", type=Path, default=None,
                        help="JSONL file to append to (default: benchmarks/results/redis-compare-HOST.jsonl)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds allowed per redis-benchmark run")
    parser.add_argument("--warmup-requests", type=int, default=300_000,
                        help="requests of a first, discarded pass against both servers, so that dbf0's JIT "
                             "compiler has done its work before anything is measured (default: %(default)s; 0: none)")
    args = parser.parse_args(argv)
    wanted = [name.strip() for name in args.tests.split(",") if name.strip()]
    unknown = sorted(set(wanted) - {t["name"] for t in ALL_TESTS})
    if unknown or not wanted:
        parser.exit(2, f"compare_redis: unknown test(s) {', '.join(unknown) or '(none given)'}; "
                       f"choose from {', '.join(t['name'] for t in ALL_TESTS)}\n")
    tests = [t for t in ALL_TESTS if t["name"] in wanted]

    for tool in ("redis_server", "redis_benchmark"):
        path = shutil.which(tool.replace("_", "-"))
        if path is None:
            parser.exit(2, f"compare_redis: {tool.replace('_', '-')} not found: run scripts/install-test-tools.sh\n")
        setattr(args, tool, path)
    if not args.jar.is_file():
        parser.exit(2, f"compare_redis: {args.jar} not found: run ./build.sh first\n")
    args.java = find_java()
    out = args.out or ROOT / "benchmarks" / "results" / f"redis-compare-{socket.gethostname()}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)

    where = machine()
    setup = {"dbf0_model": args.dbf0_model, "dbf0_threads": args.dbf0_threads, "dbf0_map": args.dbf0_map,
             "requests": args.requests, "value_size": args.value_size, "keyspace": args.keyspace}
    ports, processes = start_servers(args)
    rows = []
    try:
        if args.warmup_requests > 0:
            warm = argparse.Namespace(**{**vars(args), "requests": args.warmup_requests})
            for server in ("redis", "dbf0"):
                for test in tests:
                    run_benchmark(warm, ports[server], test)
            print(f"warm-up: {args.warmup_requests:,} requests per test against each server, not counted", flush=True)
        with out.open("a") as sink:
            for pair in range(args.pairs):
                for test in tests:
                    for server in ("redis", "dbf0"):
                        started = time.monotonic()
                        for r in run_benchmark(args, ports[server], test):
                            row = {"server": server, "test": test["name"], "clients": test["clients"],
                                   "pipeline": test["pipeline"], "pair": pair, **r, **setup, "machine": where}
                            rows.append(row)
                            sink.write(json.dumps(row) + "\n")
                            sink.flush()
                        print(f"pair {pair + 1}/{args.pairs} {test['name']:8} {server:5} "
                              f"{time.monotonic() - started:5.1f} s  " +
                              "  ".join(f"{r['command']} {r['rps']:,.0f}/s" for r in rows if r['pair'] == pair
                                        and r['test'] == test['name'] and r['server'] == server), flush=True)
    finally:
        stop(processes)

    version = next((w[2:] for w in where["redis"].split() if w.startswith("v=")), "?")
    print(f"\ndbf0 ({args.dbf0_model}, {args.dbf0_threads} threads) vs Redis {version},"
          f" {where['cores']} cores, medians of {args.pairs} pairs; results in {out}\n")
    print("| test | command | Redis req/s | dbf0 req/s | dbf0 / Redis |")
    print("|---|---|---:|---:|---:|")
    for s in summarize(rows):
        print(f"| {s['test']} | {s['command']} | {s['redis_rps']:,.0f} | {s['dbf0_rps']:,.0f} | {s['ratio']:.2f} |")
    for line in retention(summarize(rows)):
        print(line)
    return 0


def retention(summary: list[dict], many: str = "c1000", base: str = "c50") -> list[str]:
    """How much of its 50-connection rate each server keeps with 1,000 connections, per command."""
    rates = {(s["test"], s["command"]): s for s in summary}
    lines = []
    for (test, command), s in rates.items():
        if test == many and (base, command) in rates:
            b = rates[(base, command)]
            lines.append(f"{command} with {s['test']} kept {s['redis_rps'] / b['redis_rps']:.0%} of {base}'s rate "
                         f"on Redis and {s['dbf0_rps'] / b['dbf0_rps']:.0%} on dbf0")
    if lines:
        lines.insert(0, "")
    return lines


if __name__ == "__main__":
    sys.exit(main())
