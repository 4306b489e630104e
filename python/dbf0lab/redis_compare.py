"""Side by side with Redis: the same redis-benchmark runs against Redis and against dbf0.

Starts Debian's redis-server (no persistence, loopback, a free port) and a dbf0 server (loopback,
a free port), then runs two loops. The first is a warm-up: every test against each server with
--warmup-requests requests, not recorded, so that dbf0's JIT compiler has done its work. The
second measures: each redis-benchmark test against both in alternation (Redis, dbf0, Redis,
dbf0, ...), --pairs times, so that drift on a shared machine hits both alike. Every measured run
is appended to a JSONL file as soon as it finishes; the summary is the median, per test, of the
dbf0/Redis ratios of the pairs.

    dbf0-compare-redis                                     # 3 pairs of the three standard tests
    dbf0-compare-redis --pairs 5 --requests 200000 --dbf0-model nio --dbf0-threads 2
    dbf0-compare-redis --tests c50,c1000                   # 50 against 1,000 connections
    dbf0-compare-redis --aof always,everysec,no --dbf0-model virtual   # Redis's AOF against dbf0's log

With --aof, every run starts both servers afresh with an empty data directory: Redis with
--appendonly yes --appendfsync P, dbf0 with --data-dir and the --fsync policy that promises the
same (always = always, everysec = interval, no = never; dbf0's interval is 100 ms, Redis's
everysec 1 s), and runs SET only (a GET never touches either log), by default with 50
connections with and without -P 16, each measured run after an unrecorded warm-up of SETs
against the same fresh server.

(python3 scripts/compare_redis.py is the same program.) Needs redis-server and redis-benchmark
(scripts/install-test-tools.sh installs them) and target/dbf0.jar (./build.sh).
"""  # noqa: E501 (--help prints this docstring verbatim)

from __future__ import annotations

import argparse
import csv
import io
import json
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from . import analysis, machine
from .sweep_cli import REPO, find_local_java

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
SERVERS = ("redis", "dbf0")
# Redis appendfsync -> the dbf0 --fsync policy with the same promise
# (docs/3-durability.md, "Experiment 2")
AOF_TO_DBF0 = {"always": "always", "everysec": "interval", "no": "never"}
AOF_TESTS = "c50,c50-P16"
AOF_REQUESTS = 1_000_000  # per run with --aof, unless --requests says otherwise
# Every --aof run starts a fresh JVM: without a warm-up its measured run would time the JIT
# compiler as much as the log. Consecutive 200,000-SET runs (-P 16) against one fresh dbf0 rise
# until about 400,000 SETs have been served, and then stay up; Redis's are flat from the first.
# Both servers get the same SETs, into the log they then keep.
AOF_WARMUP_REQUESTS = 500_000
ALWAYS_SHARE = 4  # appendfsync always runs get a quarter of that: they are the slow ones


def choose_policies(spec: str) -> list[str]:
    """Redis appendfsync policies from a comma-separated list, in the order always, everysec, no;
    ValueError naming the unknown ones and the choices."""
    wanted = [name.strip() for name in spec.split(",") if name.strip()]
    unknown = sorted(set(wanted) - set(AOF_TO_DBF0))
    if unknown or not wanted:
        raise ValueError(
            f"unknown appendfsync polic(ies) {', '.join(unknown) or '(none given)'}; "
            f"choose from {', '.join(AOF_TO_DBF0)}"
        )
    return [p for p in AOF_TO_DBF0 if p in wanted]


def aof_schedule(
    policies: Sequence[str], tests: Sequence[dict[str, Any]], pairs: int
) -> Iterator[tuple[int, str, dict[str, Any], str]]:
    """The --aof runs in order: pair by pair, policy by policy, test by test, Redis then dbf0."""
    for pair in range(pairs):
        for policy in policies:
            for test in tests:
                for server in SERVERS:
                    yield pair, policy, test, server


def parse_info(text: str) -> dict[str, str]:
    """The fields of a RESP INFO reply's text: 'key:value' lines, comments and blanks left out."""
    fields = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#") and ":" in line:
            key, _, value = line.partition(":")
            fields[key] = value
    return fields


def log_figures(before: dict[str, str], after: dict[str, str]) -> dict[str, Any]:
    """What dbf0's log did during one run, from INFO persistence before and after it: fsyncs, and
    records written per fsync (None when it forced nothing, as under never)."""
    records = int(after.get("dbf0_records_written", 0)) - int(before.get("dbf0_records_written", 0))
    fsyncs = int(after.get("dbf0_fsyncs", 0)) - int(before.get("dbf0_fsyncs", 0))
    return {
        "log_records": records,
        "log_fsyncs": fsyncs,
        "records_per_fsync": round(records / fsyncs, 2) if fsyncs > 0 else None,
    }


def choose_tests(spec: str) -> list[dict[str, Any]]:
    """The tests named in a comma-separated list, in the canonical order; ValueError naming the
    unknown ones and the choices."""
    wanted = [name.strip() for name in spec.split(",") if name.strip()]
    unknown = sorted(set(wanted) - {t["name"] for t in ALL_TESTS})
    if unknown or not wanted:
        raise ValueError(
            f"unknown test(s) {', '.join(unknown) or '(none given)'}; "
            f"choose from {', '.join(t['name'] for t in ALL_TESTS)}"
        )
    return [t for t in ALL_TESTS if t["name"] in wanted]


def schedule(
    tests: Sequence[dict[str, Any]], pairs: int
) -> Iterator[tuple[int, dict[str, Any], str]]:
    """The measured runs in the order they are made: pair by pair, test by test, Redis then dbf0
    back to back, so that whatever drifts on the machine hits both servers of a pair alike."""
    for pair in range(pairs):
        for test in tests:
            for server in SERVERS:
                yield pair, test, server


def benchmark_command(
    redis_benchmark: str,
    port: int,
    test: dict[str, Any],
    requests: int,
    value_size: int,
    keyspace: int,
    commands: str = "set,get",
) -> list[str]:
    """One redis-benchmark run of the commands (SET and GET by default), printing CSV."""
    return [
        redis_benchmark,
        "-h",
        "127.0.0.1",
        "-p",
        str(port),
        "-t",
        commands,
        "-d",
        str(value_size),
        "-r",
        str(keyspace),
        "-n",
        str(requests),
        "-c",
        str(test["clients"]),
        "-P",
        str(test["pipeline"]),
        "--csv",
    ]


def parse_benchmark_csv(text: str) -> list[dict[str, Any]]:
    """redis-benchmark's --csv output: one row per command (SET, GET) with its rate and latencies
    (NaN where this redis-benchmark prints none). ValueError if there is no row."""
    rows = []
    for record in csv.DictReader(io.StringIO(text)):
        rows.append(
            {
                "command": record["test"],
                "rps": float(record["rps"]),
                "p50_ms": float(record.get("p50_latency_ms") or "nan"),
                "p99_ms": float(record.get("p99_latency_ms") or "nan"),
            }
        )
    if not rows:
        raise ValueError(f"redis-benchmark printed no CSV rows: {text[:300]!r}")
    return rows


def summarize(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per test and command: medians of each server's rate and the median of the pair ratios (the
    same summary the analysis draws from the JSONL file, analysis.redis_summary)."""
    if not rows:
        return []
    frame = analysis.redis_summary(pd.DataFrame(list(rows)))
    return frame.to_dict("records")


def summary_table(summary: Sequence[dict[str, Any]]) -> list[str]:
    """The summary as a Markdown table; with --aof, a column for the policies and one for dbf0's
    records per fsync."""
    if summary and "policy" in summary[0]:
        lines = [
            "| Redis appendfsync / dbf0 --fsync | test | command | Redis req/s | dbf0 req/s | "
            "dbf0 / Redis | dbf0 records/fsync |",
            "|---|---|---|---:|---:|---:|---:|",
        ]
        for s in summary:
            per = s.get("records_per_fsync")
            per = (
                "" if per is None or per != per else f"{per:,.1f}"
            )  # NaN != NaN: nothing was forced
            lines.append(
                f"| {s['policy']} / {AOF_TO_DBF0.get(s['policy'], '?')} | {s['test']} | "
                f"{s['command']} | {s['redis_rps']:,.0f} | {s['dbf0_rps']:,.0f} | {s['ratio']:.2f} "
                f"| {per} |"
            )
        return lines
    lines = [
        "| test | command | Redis req/s | dbf0 req/s | dbf0 / Redis |",
        "|---|---|---:|---:|---:|",
    ]
    for s in summary:
        lines.append(
            f"| {s['test']} | {s['command']} | {s['redis_rps']:,.0f} | {s['dbf0_rps']:,.0f} | "
            f"{s['ratio']:.2f} |"
        )
    return lines


def retention(
    summary: Sequence[dict[str, Any]], many: str = "c1000", base: str = "c50"
) -> list[str]:
    """How much of its 50-connection rate each server keeps with 1,000 connections, per command
    (nothing unless both tests ran)."""
    rates = {(s["test"], s["command"]): s for s in summary}
    lines = []
    for (test, command), s in rates.items():
        if test == many and (base, command) in rates:
            b = rates[(base, command)]
            lines.append(
                f"{command} with {s['test']} kept {s['redis_rps'] / b['redis_rps']:.0%} of "
                f"{base}'s rate on Redis and {s['dbf0_rps'] / b['dbf0_rps']:.0%} on dbf0"
            )
    if lines:
        lines.insert(0, "")
    return lines


def redis_version(version_line: str) -> str:
    """'7.0.15' from redis-server --version's 'Redis server v=7.0.15 sha=...'; '?' if absent."""
    return next((w[2:] for w in version_line.split() if w.startswith("v=")), "?")


# Processes ---------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_ping(port: int, what: str, process: subprocess.Popen, timeout: float = 20.0) -> None:
    """Returns once the server on `port` answers a RESP PING; SystemExit if it exits or stays
    silent for `timeout` seconds (polling: a separate process has no event to wait on)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(
                f"compare_redis: {what} exited with status {process.returncode} before answering"
            )
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"*1\r\n$4\r\nPING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit(
        f"compare_redis: {what} on port {port} did not answer PING within {timeout:.0f} s"
    )


def redis_argv(args, port: int, *persistence: str) -> list[str]:
    """redis-server on loopback, in the foreground, no RDB snapshots; persistence: AOF flags."""
    return [
        args.redis_server,
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        *persistence,
        "--daemonize",
        "no",
        "--protected-mode",
        "yes",
        "--loglevel",
        "warning",
    ]


def dbf0_argv(args, port: int, *log: str) -> list[str]:
    """dbf0 server on loopback with the chosen map, model and threads; log: its WAL flags."""
    return [
        args.java,
        *args.jvm_option,
        "-jar",
        str(args.jar),
        "server",
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--map",
        args.dbf0_map,
        "--server-model",
        args.dbf0_model,
        "--threads",
        str(args.dbf0_threads),
        *log,
    ]


def start_servers(args) -> tuple[dict[str, int], list[subprocess.Popen]]:
    redis_port, dbf0_port = free_port(), free_port()
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    redis = subprocess.Popen(redis_argv(args, redis_port, "--appendonly", "no"), **quiet)
    dbf0 = subprocess.Popen(dbf0_argv(args, dbf0_port), **quiet)
    processes = [redis, dbf0]
    try:
        wait_for_ping(redis_port, "redis-server", redis)
        wait_for_ping(dbf0_port, "dbf0", dbf0)
    except SystemExit:
        stop(processes)
        raise
    return {"redis": redis_port, "dbf0": dbf0_port}, processes


def start_logged(args, server: str, policy: str, directory: Path) -> tuple[int, subprocess.Popen]:
    """One server, fresh, logging into an empty directory as the Redis appendfsync policy says (dbf0
    with the matching --fsync and no automatic rewrite, as Redis's own rewrite does not start on
    a log this small either); returns its port once it answers PING."""
    port = free_port()
    if server == "redis":
        argv = redis_argv(
            args,
            port,
            *("--appendonly", "yes", "--appendfsync", policy, "--dir", str(directory)),
        )
    else:
        argv = dbf0_argv(
            args,
            port,
            *("--data-dir", str(directory), "--fsync", AOF_TO_DBF0[policy]),
            *("--rewrite-growth", "0"),
        )
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_ping(port, f"{server} ({policy})", process)
    except SystemExit:
        stop([process])
        raise
    return port, process


def info_persistence(port: int) -> dict[str, str]:
    """INFO persistence from a server on loopback, over RESP, as fields."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"*2\r\n$4\r\nINFO\r\n$11\r\npersistence\r\n")
        data = b""
        while True:  # a bulk string: $<length>\r\n<text>\r\n
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
            header, sep, rest = data.partition(b"\r\n")
            if sep and header.startswith(b"$") and len(rest) >= int(header[1:]) + 2:
                return parse_info(rest[: int(header[1:])].decode())
    raise RuntimeError(f"no INFO reply from port {port}")


def stop(processes: Sequence[subprocess.Popen]) -> None:
    for p in processes:
        if p.poll() is None:
            p.terminate()
    for p in processes:
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()


def run_benchmark(
    args, port: int, test: dict[str, Any], requests: int, commands: str = "set,get"
) -> list[dict[str, Any]]:
    """One redis-benchmark run; one row per command (SET, GET) with its rate and latencies."""
    command = benchmark_command(
        args.redis_benchmark, port, test, requests, args.value_size, args.keyspace, commands
    )
    result = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
    if result.returncode != 0:
        raise RuntimeError(
            f"redis-benchmark failed ({result.returncode}): {result.stderr.strip()[:300]}"
        )
    return parse_benchmark_csv(result.stdout)


def describe_machine(java: str, jar: Path) -> dict[str, Any]:
    """The same description of this machine as the sweep records (machine.PROBE_SCRIPT), plus
    Redis's version and the time."""
    probe = subprocess.run(
        ["sh", "-c", machine.PROBE_SCRIPT, "sh", java, str(jar)], capture_output=True, text=True
    )
    version = subprocess.run(
        ["redis-server", "--version"], capture_output=True, text=True
    ).stdout.strip()
    return {
        **machine.parse_probe(probe.stdout),
        "redis": version,
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
    }


# The command line --------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dbf0-compare-redis",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--pairs", type=int, default=3, help="Redis/dbf0 pairs per test (default: %(default)s)"
    )
    parser.add_argument(
        "--requests",
        type=int,
        default=None,
        help=f"redis-benchmark -n (default: 1000000; with --aof {AOF_REQUESTS}, and a quarter of "
        "it under appendfsync always)",
    )
    parser.add_argument(
        "--value-size",
        type=int,
        default=64,
        help="redis-benchmark -d, bytes (default: %(default)s)",
    )
    parser.add_argument(
        "--keyspace", type=int, default=100_000, help="redis-benchmark -r (default: %(default)s)"
    )
    parser.add_argument(
        "--tests",
        default=None,
        help="comma-separated tests: c50, c50-P16 and c1 (the default: all three; with --aof "
        f"{AOF_TESTS}), and c1000 (1,000 connections)",
    )
    parser.add_argument(
        "--aof",
        metavar="POLICIES",
        help="compare the logs instead: Redis's append-only file under these appendfsync policies "
        "(always, everysec, no; comma-separated) against dbf0's write-ahead log under the "
        "matching --fsync (always, interval, never); SET only, fresh servers and data "
        "directories for every run",
    )
    parser.add_argument(
        "--data-root",
        type=Path,
        default=None,
        help="--aof: where the runs' data directories go (default: the temporary directory); "
        "what an fsync costs depends on this disk",
    )
    parser.add_argument(
        "--dbf0-model",
        default="nio",
        choices=["pool", "virtual", "nio"],
        help="dbf0's server model (default: %(default)s)",
    )
    parser.add_argument(
        "--dbf0-threads",
        type=int,
        default=2,
        help="dbf0's threads or event loops (default: %(default)s)",
    )
    parser.add_argument(
        "--dbf0-map", default="concurrent", help="dbf0's map backend (default: %(default)s)"
    )
    parser.add_argument(
        "--jvm-option", action="append", default=[], help="extra JVM option for dbf0 (repeatable)"
    )
    parser.add_argument(
        "--jar", type=Path, default=REPO / "target" / "dbf0.jar", help="dbf0's runnable jar"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="JSONL file to append to (default: benchmarks/results/redis-compare-HOST.jsonl)",
    )
    parser.add_argument(
        "--timeout", type=float, default=600, help="seconds allowed per redis-benchmark run"
    )
    parser.add_argument(
        "--warmup-requests",
        type=int,
        default=None,
        help="requests of a first, discarded pass against both servers, so that dbf0's JIT "
        "compiler has done its work before anything is measured (default: 300000; with --aof, "
        f"{AOF_WARMUP_REQUESTS}, SETs against each fresh server before its measured run; 0: none)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        policies = choose_policies(args.aof) if args.aof is not None else None
        tests = choose_tests(
            args.tests or (AOF_TESTS if policies else ",".join(t["name"] for t in STANDARD_TESTS))
        )
    except ValueError as e:
        parser.exit(2, f"compare_redis: {e}\n")
    if args.requests is None:
        args.requests = AOF_REQUESTS if policies else 1_000_000
    if args.warmup_requests is None:
        args.warmup_requests = AOF_WARMUP_REQUESTS if policies else 300_000
    if args.data_root is not None and not args.data_root.is_dir():
        parser.exit(2, f"compare_redis: --data-root {args.data_root} is not a directory\n")

    for tool in ("redis-server", "redis-benchmark"):
        path = shutil.which(tool)
        if path is None:
            parser.exit(2, f"compare_redis: {tool} not found: run scripts/install-test-tools.sh\n")
        setattr(args, tool.replace("-", "_"), path)
    if not args.jar.is_file():
        parser.exit(2, f"compare_redis: {args.jar} not found: run ./build.sh first\n")
    args.java = find_local_java()
    out = (
        args.out or REPO / "benchmarks" / "results" / f"redis-compare-{socket.gethostname()}.jsonl"
    )
    out.parent.mkdir(parents=True, exist_ok=True)

    where = describe_machine(args.java, args.jar)
    setup = {
        "dbf0_model": args.dbf0_model,
        "dbf0_threads": args.dbf0_threads,
        "dbf0_map": args.dbf0_map,
        "requests": args.requests,
        "value_size": args.value_size,
        "keyspace": args.keyspace,
    }
    if policies:
        return compare_logs(args, policies, tests, out, where, setup)
    ports, processes = start_servers(args)
    rows: list[dict[str, Any]] = []
    try:
        if args.warmup_requests > 0:
            for server in SERVERS:
                for test in tests:
                    run_benchmark(args, ports[server], test, args.warmup_requests)
            print(
                f"warm-up: {args.warmup_requests:,} requests per test against each server, not "
                "counted",
                flush=True,
            )
        with out.open("a") as sink:
            for pair, test, server in schedule(tests, args.pairs):
                started = time.monotonic()
                measured = run_benchmark(args, ports[server], test, args.requests)
                for r in measured:
                    row = {
                        "server": server,
                        "test": test["name"],
                        "clients": test["clients"],
                        "pipeline": test["pipeline"],
                        "pair": pair,
                        **r,
                        **setup,
                        "machine": where,
                    }
                    rows.append(row)
                    sink.write(json.dumps(row) + "\n")
                    sink.flush()
                print(
                    f"pair {pair + 1}/{args.pairs} {test['name']:8} {server:5} "
                    f"{time.monotonic() - started:5.1f} s  "
                    + "  ".join(f"{r['command']} {r['rps']:,.0f}/s" for r in measured),
                    flush=True,
                )
    finally:
        stop(processes)

    summary = summarize(rows)
    print(
        f"\ndbf0 ({args.dbf0_model}, {args.dbf0_threads} threads) vs Redis "
        f"{redis_version(where['redis'])}, {where.get('cores')} cores, medians of {args.pairs} "
        f"pairs; results in {out}\n"
    )
    for line in summary_table(summary) + retention(summary):
        print(line)
    return 0


def compare_logs(
    args,
    policies: Sequence[str],
    tests: Sequence[dict[str, Any]],
    out: Path,
    where: dict[str, Any],
    setup: dict[str, Any],
) -> int:
    """--aof: every run on a fresh server with an empty data directory, Redis then dbf0 in turn."""
    where = {**where, "data_fs": machine.filesystem_of(args.data_root or tempfile.gettempdir())}
    rows: list[dict[str, Any]] = []
    total = len(policies) * len(tests) * len(SERVERS) * args.pairs
    with out.open("a") as sink:
        for n, (pair, policy, test, server) in enumerate(
            aof_schedule(policies, tests, args.pairs), 1
        ):
            requests = args.requests // ALWAYS_SHARE if policy == "always" else args.requests
            started = time.monotonic()
            with tempfile.TemporaryDirectory(
                prefix=f"dbf0-aof-{server}-", dir=args.data_root
            ) as directory:
                port, process = start_logged(args, server, policy, Path(directory))
                try:
                    if args.warmup_requests > 0:
                        run_benchmark(args, port, test, args.warmup_requests, "set")
                    before = info_persistence(port) if server == "dbf0" else {}
                    measured = run_benchmark(args, port, test, requests, "set")
                    log = log_figures(before, info_persistence(port)) if server == "dbf0" else {}
                finally:
                    stop([process])
            for r in measured:
                row = {
                    "server": server,
                    "test": test["name"],
                    "clients": test["clients"],
                    "pipeline": test["pipeline"],
                    "pair": pair,
                    "policy": policy,
                    "dbf0_fsync": AOF_TO_DBF0[policy],
                    **r,
                    **log,
                    **setup,
                    "requests": requests,
                    "machine": where,
                }
                rows.append(row)
                sink.write(json.dumps(row) + "\n")
                sink.flush()
            print(
                f"[{n}/{total}] pair {pair + 1} appendfsync {policy:8} {test['name']:8} {server:5} "
                f"{time.monotonic() - started:5.1f} s  "
                + "  ".join(f"{r['command']} {r['rps']:,.0f}/s" for r in measured)
                + (f"  {log['log_fsyncs']} fsyncs" if log else ""),
                flush=True,
            )
    summary = summarize(rows)
    print(
        f"\ndbf0 ({args.dbf0_model}, {args.dbf0_threads} threads) write-ahead log vs Redis "
        f"{redis_version(where['redis'])} AOF, data on {where['data_fs']}, {where.get('cores')} "
        f"cores, medians of {args.pairs} pairs; results in {out}\n"
    )
    for line in summary_table(summary):
        print(line)
    return 0
