"""The cost of copies: dbf0 with 1, 3 and 5 copies of every write beside Redis with a replica.

Each configuration is one shard on loopback, every write forced to disk before it is acknowledged:
dbf0 with R = 0, 2 and 4 replicas (`server --cluster-nodes` of R+1 nodes, `--cluster-replicas R
--fsync always`: a write is acknowledged once a majority of the shard's Raft group has forced it;
R = 0 is a single node with its own write-ahead log), and Redis, a master and a replica, both with
appendonly yes and appendfsync always. All slots are on one leader, so the comparison is about
copies, not about spreading keys.

Against each, SETs under 50 connections without and with 16-deep pipelines (and GETs with
--reads), from two clients: redis-benchmark, and `dbf0 resp-load`, which can follow every SET with
Redis's WAIT 1 0, the closest Redis comes to synchronous replication (its reply says a replica has
the write, not that it is on the replica's disk). resp-load runs first in each cell and its rate
sizes redis-benchmark's request count, so both last about --seconds.

The configurations are interleaved: every round starts each afresh in an empty data directory,
warms it up with --warmup seconds of SETs, runs its cells, and stops it; the next round starts one
configuration later. The server CPU of a run is the user+system time of every server process of
the configuration (replicas too) over the run, per operation. Every run is appended to a JSONL file
with /proc/loadavg before and after it; the table gives medians over the rounds and medians of the
per-round ratios against dbf0 R=0 and against Redis with WAIT.

    python3 scripts/replication_cost.py                        # 3 rounds, 10 s per run
    python3 scripts/replication_cost.py --rounds 5 --reads     # GETs too (ReadIndex against R=0)
    python3 scripts/replication_cost.py --configs r0,r2,redis --tests c50-P16 --seconds 5

Needs redis-server and redis-benchmark (scripts/install-test-tools.sh installs them) and
target/dbf0.jar (./build.sh). dbf0 nodes listen on --port-base and up, their Raft ports 10000
above; Redis on --redis-port and the port after it.
"""  # noqa: E501 (--help prints this docstring verbatim)

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from . import machine, processes
from . import redis_compare as rc
from . import replication_summary as rs
from .sweep_cli import REPO, find_local_java

READY_SECONDS = 240.0  # how long a configuration may take to start and elect a leader: JVMs
# starting together on two busy cores have taken over 90 s


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().strip()


def resp_command(port: int, *words: str, timeout: float = 5.0) -> bytes:
    """Sends one RESP command to a server on loopback and returns the first bytes of its reply."""
    request = f"*{len(words)}\r\n" + "".join(f"${len(w)}\r\n{w}\r\n" for w in words)
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request.encode())
        return s.recv(4096)


def wait_until(what: str, ready, procs: Sequence[subprocess.Popen], timeout: float):
    """Polls `ready()` until it returns something; SystemExit naming `what` if a server exits
    or the time runs out (separate processes: there is no event to wait on)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in procs:
            if p.poll() is not None:
                raise SystemExit(
                    f"replication_cost: a server of {what} exited with status {p.returncode}"
                )
        try:
            found = ready()
            if found is not None:
                return found
        except OSError:
            pass
        time.sleep(0.3)
    raise SystemExit(f"replication_cost: {what} was not ready within {timeout:.0f} s")


def leader_port(ports: Sequence[int]) -> int | None:
    """The node that accepts a write: the shard's leader (the others answer MOVED or
    CLUSTERDOWN while there is none)."""
    for port in ports:
        if resp_command(port, "SET", "replication-cost:probe", "1").startswith(b"+OK"):
            return port
    return None


def start_dbf0(args, replicas: int, directory: Path) -> tuple[list[int], list[subprocess.Popen]]:
    """R+1 nodes of one shard, each with its own data directory; their ports, once one of them
    leads and accepts writes."""
    ports = [args.port_base + i for i in range(replicas + 1)]
    nodes = ",".join(f"127.0.0.1:{p}" for p in ports)
    procs = []
    for i, port in enumerate(ports):
        data = directory / f"node-{i}"
        data.mkdir()
        flags = ["--data-dir", str(data), "--fsync", "always", "--cluster-nodes", nodes]
        flags += ["--cluster-replicas", str(replicas)]
        if replicas == 0:
            flags += ["--rewrite-growth", "0"]  # as Redis's rewrite, off during the runs
        log = (directory / f"node-{i}.log").open("w")
        procs.append(subprocess.Popen(rc.dbf0_argv(args, port, *flags), stdout=log, stderr=log))
    try:
        wait_until(f"dbf0 R={replicas}", lambda: leader_port(ports), procs, READY_SECONDS)
    except SystemExit as e:
        rc.stop(procs)
        tail = (directory / "node-0.log").read_text(errors="replace").strip().splitlines()[-3:]
        raise SystemExit(f"{e}; node 0 said: " + " / ".join(tail)) from None
    return ports, procs


def start_redis(args, directory: Path) -> tuple[int, list[subprocess.Popen]]:
    """A Redis master and its replica, both logging every write with appendfsync always; the
    master's port once the replica is in sync."""
    master, replica = args.redis_port, args.redis_port + 1
    procs = []
    for port, extra in ((master, ()), (replica, ("--replicaof", "127.0.0.1", str(master)))):
        data = directory / f"redis-{port}"
        data.mkdir()
        persistence = ("--appendonly", "yes", "--appendfsync", "always", "--dir", str(data))
        persistence += ("--auto-aof-rewrite-percentage", "0", *extra)
        procs.append(
            subprocess.Popen(
                rc.redis_argv(args, port, *persistence),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )

    try:
        return wait_until("Redis master+replica", lambda: in_sync(master), procs, READY_SECONDS), (
            procs
        )
    except SystemExit:
        rc.stop(procs)
        raise


def in_sync(master: int) -> int | None:
    """The master's port once its replica is connected and has every byte of the replication
    stream; None before. A replica that fell behind a heavy run (and was cut off by its output
    buffer's limit) is resynchronising meanwhile, and a WAIT would wait for that."""
    info = rc.parse_info(resp_command(master, "INFO", "replication").decode(errors="replace"))
    replica = dict(
        field.split("=", 1) for field in info.get("slave0", "").split(",") if "=" in field
    )
    if replica.get("state") == "online" and replica.get("offset") == info.get("master_repl_offset"):
        return master
    return None


def server_cpu(procs: Sequence[subprocess.Popen]) -> float:
    """User+system CPU seconds of every server process so far."""
    return sum(processes.cpu_seconds(processes.java_pid(p.pid)) for p in procs)


def resp_load(args, port: int, test: dict, command: str, wait: int, seconds: float) -> dict:
    """One `dbf0 resp-load` run; its figures (replication_summary.parse_resp_load)."""
    argv = [args.java, *args.jvm_option, "-cp", str(args.jar), "dbf0.kv.bench.resp.RespLoad"]
    argv += ["--port", str(port), "-c", str(test["clients"]), "-P", str(test["pipeline"])]
    argv += ["-t", command.lower(), "--wait-replicas", str(wait), "--duration", f"{seconds}s"]
    argv += ["-d", str(args.value_size), "-r", str(args.keyspace)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=args.timeout)
    if done.returncode != 0:
        raise RuntimeError(f"resp-load failed ({done.returncode}): {done.stderr.strip()[:300]}")
    return rs.parse_resp_load(done.stdout)


def measure(args, port: int, procs, cell: dict, estimates: dict) -> dict[str, Any]:
    """One measured run of a cell, with the servers' CPU time and the load around it."""
    test, command, tool = cell["test"], cell["command"], cell["tool"]
    key = (test["name"], command)
    before_load, before_cpu = loadavg(), server_cpu(procs)
    if tool == rs.RESP_LOAD:
        figures = resp_load(args, port, test, command, cell["wait_replicas"], args.seconds)
    else:
        if key not in estimates:  # a pilot run, not kept, sizes the first measured one
            pilot = rc.run_benchmark(args, port, test, args.pilot_requests, command.lower())
            estimates[key] = pilot[0]["rps"]
            before_load, before_cpu = loadavg(), server_cpu(procs)
        requests = rs.requests_for(estimates[key], args.seconds)
        started = time.monotonic()
        row = rc.run_benchmark(args, port, test, requests, command.lower())[0]
        figures = {**row, "ops": requests, "seconds": time.monotonic() - started, "errors": 0}
        figures.pop("command")
    after_cpu, after_load = server_cpu(procs), loadavg()
    if tool == rs.RESP_LOAD and not cell["wait_replicas"]:
        estimates[key] = figures["rps"]
    return {
        **figures,
        "cpu_seconds": round(after_cpu - before_cpu, 3),
        "cpu_us_per_op": rs.cpu_us_per_op(before_cpu, after_cpu, figures["ops"]),
        "loadavg_before": before_load,
        "loadavg_after": after_load,
        "load_1m": rs.load_one_minute(after_load),
    }


def run_config(args, rnd: int, config: dict, tests, commands, sink, bar, where) -> list[dict]:
    """Starts one configuration afresh, warms it up, runs its cells, stops it; the rows."""
    rows = []
    with tempfile.TemporaryDirectory(
        prefix=f"dbf0-repcost-{config['name']}-", dir=args.data_root
    ) as d:
        if config["server"] == "dbf0":
            ports, procs = start_dbf0(args, config["replicas"], Path(d))
        else:
            port, procs = start_redis(args, Path(d))
            ports = [port]

        def leader() -> int:
            """The port that takes writes now (under load a shard may elect another leader), or
            Redis's master once its replica has caught up."""
            if config["server"] != "dbf0":
                return wait_until("the replica", lambda: in_sync(ports[0]), procs, READY_SECONDS)
            return wait_until("a leader", lambda: leader_port(ports), procs, READY_SECONDS)

        try:
            if args.warmup > 0:  # the JIT compiler's work, and the key space filled, unmeasured
                warm = {"name": "warm-up", "clients": 50, "pipeline": 16}
                try:
                    resp_load(args, leader(), warm, "SET", 0, args.warmup)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    tqdm.write(f"round {rnd + 1} {config['name']} warm-up: {e}")
            estimates: dict = {}
            for cell in rs.cells(config, tests, commands):
                bar.set_description(f"round {rnd + 1} {config['name']} {cell['test']['name']}")
                port = leader()
                try:
                    figures = measure(args, port, procs, cell, estimates)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    # A client that failed (a leader lost mid-run: redis-benchmark stops at the
                    # first TRYAGAIN) leaves a row that says so, and the round goes on.
                    figures = {"error": str(e)[:300], "errors": 1, "rps": None}
                row = {
                    "round": rnd,
                    "config": config["name"],
                    "server": config["server"],
                    "replicas": config["replicas"],
                    "tool": cell["tool"],
                    "wait_replicas": cell["wait_replicas"],
                    "test": cell["test"]["name"],
                    "clients": cell["test"]["clients"],
                    "pipeline": cell["test"]["pipeline"],
                    "command": cell["command"],
                    "leader_port": port,
                    **figures,
                    "server_processes": len(procs),
                    "value_size": args.value_size,
                    "keyspace": args.keyspace,
                    "dbf0_model": args.dbf0_model,
                    "dbf0_threads": args.dbf0_threads,
                    "machine": where,
                }
                row["label"] = rs.label(row)
                rows.append(row)
                sink.write(json.dumps(row) + "\n")
                sink.flush()
                bar.update()
                if row.get("error"):
                    tqdm.write(f"round {rnd + 1} {row['label']} {cell['tool']}: {row['error']}")
                    continue
                tqdm.write(
                    f"round {rnd + 1} {row['label']:28} {cell['tool']:15} {row['test']:8} "
                    f"{row['command']} {row['rps']:>9,.0f}/s p99 {row['p99_ms']:7.2f} ms "
                    f"cpu {row['cpu_us_per_op'] or 0:6.0f} µs/op  load {row['load_1m']:.1f}"
                )
        finally:
            rc.stop(procs)
    return rows


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="replication_cost.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("--rounds", type=int, default=3, help="rounds over all configurations (default: 3)")
    add("--seconds", type=float, default=10.0, help="seconds per measured run (default: 10)")
    add("--warmup", type=float, default=10.0, help="seconds of SETs after each start (default: 10)")
    add("--configs", default="r0,r2,r4,redis", help="of r0, r2, r4, redis (default: all)")
    add("--tests", default="c50,c50-P16", help="of c50, c50-P16, c1 (default: %(default)s)")
    add("--reads", action="store_true", help="GETs too, under redis-benchmark")
    add("--value-size", type=int, default=64, help="bytes per value (default: 64)")
    add("--keyspace", type=int, default=100_000, help="keys drawn from (default: 100000)")
    add("--pilot-requests", type=int, default=5_000, help="a first redis-benchmark's size")
    add("--port-base", type=int, default=7600, help="first dbf0 node's port (default: 7600)")
    add("--redis-port", type=int, default=7700, help="Redis master's port (default: 7700)")
    add("--data-root", type=Path, default=None, help="where data directories go (default: tmp)")
    add("--dbf0-model", default="nio", choices=["pool", "virtual", "nio"])
    add("--dbf0-threads", type=int, default=2, help="dbf0's event loops (default: 2)")
    add("--dbf0-map", default="concurrent", help="dbf0's map (default: concurrent)")
    add("--jvm-option", action="append", default=[], help="JVM option for dbf0 (repeatable)")
    add("--jar", type=Path, default=REPO / "target" / "dbf0.jar", help="dbf0's runnable jar")
    add("--out", type=Path, default=None, help="JSONL file to append to")
    add("--timeout", type=float, default=600, help="seconds allowed per client run")
    add("--summarize", type=Path, metavar="JSONL", help="print the table of an earlier run, only")
    return parser


def print_summary(rows: Sequence[dict], heading: str) -> None:
    summary = rs.summarize(rows)
    print(heading + "\n")
    for line in rs.summary_table(summary) + [""] + rs.verdicts(summary):
        print(line)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.summarize is not None:
        try:
            lines = args.summarize.read_text().splitlines()
        except OSError as e:
            parser.exit(2, f"replication_cost: cannot read {args.summarize}: {e.strerror}\n")
        rows = [json.loads(line) for line in lines if line.strip()]
        rounds = len({r["round"] for r in rows})
        print_summary(rows, f"{args.summarize}: medians of {rounds} rounds")
        return 0
    try:
        configs = rs.choose_configs(args.configs)
        tests = rc.choose_tests(args.tests)
    except ValueError as e:
        parser.exit(2, f"replication_cost: {e}\n")
    if args.rounds < 1 or args.seconds <= 0:
        parser.exit(2, "replication_cost: --rounds and --seconds must be positive\n")
    if args.data_root is not None and not args.data_root.is_dir():
        parser.exit(2, f"replication_cost: --data-root {args.data_root} is not a directory\n")
    for tool in ("redis-server", "redis-benchmark"):
        path = shutil.which(tool)
        if path is None:
            parser.exit(
                2, f"replication_cost: {tool} not found: run scripts/install-test-tools.sh\n"
            )
        setattr(args, tool.replace("-", "_"), path)
    if not args.jar.is_file():
        parser.exit(2, f"replication_cost: {args.jar} not found: run ./build.sh first\n")
    args.java = find_local_java()
    out = args.out or REPO / "benchmarks" / "results" / f"replication-{socket.gethostname()}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    where = {
        **rc.describe_machine(args.java, args.jar),
        "data_fs": machine.filesystem_of(args.data_root or tempfile.gettempdir()),
    }
    commands = ["SET", "GET"] if args.reads else ["SET"]
    plan = list(rs.schedule(configs, args.rounds))
    total = sum(len(rs.cells(c, tests, commands)) for _, c in plan)
    rows: list[dict] = []
    with out.open("a") as sink, tqdm(total=total, unit="run") as bar:
        for rnd, config in plan:
            rows += run_config(args, rnd, config, tests, commands, sink, bar, where)
    print_summary(
        rows,
        f"\nOne shard on loopback, fsync always; medians of {args.rounds} rounds of "
        f"{args.seconds:g} s runs; Redis {rc.redis_version(where['redis'])}, "
        f"{where.get('cores')} cores, data on {where['data_fs']}; results in {out}",
    )
    return 0
