"""Trials with roles: `dbf0 server` processes on some hosts, `dbf0 bench --connect` on others.

One trial at a time, on every host at once:

1. ``shards`` server processes (by default one per server host) are started round-robin over the
   server hosts, each in its own process group (over SSH: under ``timeout`` there, with its
   process id in a file, as remote bench trials run). The trial waits until every one has printed
   ``dbf0 server listening on ADDRESS:PORT``, the line ServeCommand prints once it accepts; that
   line also gives the port when the sweep asked for port 0 (any free one).
2. Every client host runs ``bench ... --connect <every server>``; they are started together, each
   writes its own JSON on its own stdout. A trial with ``cluster`` set starts the servers as one
   dbf0 cluster (``--cluster-nodes``, each node on a port chosen up front) and its clients run
   ``bench ... --cluster <first node>``, which learn the slot map from that node.
3. Every server is stopped (SIGTERM to its group here; over SSH also by its remote process id),
   whatever happened: the trial ended, failed, or the sweep was interrupted.

The result adds up the clients' counts and throughputs and reads the latency percentiles off the
sum of their HdrHistograms (histograms.py; percentiles of separate clients cannot be averaged),
and keeps each node's own figures under ``nodes``.
"""

from __future__ import annotations

import contextlib
import queue
import re
import shutil
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from . import histograms, utilisation
from .bench_output import parse_bench_output
from .hosts import KILL_GRACE_SECONDS, Completed, Host, LocalHost, SshHost, _kill_group, excerpt

LISTENING = re.compile(r"dbf0 server listening on (?P<address>\S+) ")
WILDCARDS = {"0.0.0.0", "::", "0:0:0:0:0:0:0:0"}
START_SECONDS = 60.0  # how long a server may take to say it listens (a JVM start over SSH)
NODES = "nodes"  # the result's per-node figures
SERVERS = "servers"  # the result's list of server addresses, in shard order
COUNTS = ("set", "get", "found", "missingKey", "errors", "insert", "read_modify_write")
PERCENTILES = (("p50_us", 50), ("p90_us", 90), ("p99_us", 99), ("p999_us", 99.9), ("max_us", 100))
# What a client's JSON holds that is its own measurement, not a setting shared by all clients.
PER_CLIENT = (
    set(COUNTS)
    | {p for p, _ in PERCENTILES}
    | {"seconds", "ops_per_sec", "latency_hdr", "warnings"}
)
# The spec's axes that go to `dbf0 server` rather than to bench.
SERVER_FLAGS = (
    ("server_threads", "--threads"),
    ("server_model", "--server-model"),
    ("map_type", "--map"),
)


class ClusterError(Exception):
    """A trial could not be set up (a server did not start); the trial is recorded as failed."""


@dataclass
class Layout:
    servers: list[Host]
    clients: list[Host]
    bind: str = "127.0.0.1"  # what every server's --bind gets
    port: int = 0  # first port on each server host; 0: any free one

    def hosts(self) -> list[Host]:
        """Every distinct host, servers first."""
        return list({id(h): h for h in [*self.servers, *self.clients]}.values())

    def role(self, host: Host) -> str:
        roles = [
            r
            for r, hs in (("client", self.clients), ("server", self.servers))
            if any(h is host for h in hs)
        ]
        return "+".join(roles)


def server_args(spec: Mapping[str, Any], bind: str, port: int) -> list[str]:
    args = ["--bind", bind, "--port", str(port)]
    for axis, flag in SERVER_FLAGS:
        if axis in spec:
            args += [flag, str(spec[axis])]
        elif axis == "server_model":
            args += [
                flag,
                "pool",
            ]  # bench's default, which it reports; `dbf0 server` alone runs nio
    return args


def placement(layout: Layout, shards: int) -> list[tuple[Host, int]]:
    """Which host runs each shard, and on which port: round-robin over the server hosts; with a
    fixed --server-port, the k-th shard on one host listens on port + k."""
    per_host: dict[int, int] = {}
    out = []
    for i in range(shards):
        host = layout.servers[i % len(layout.servers)]
        k = per_host.get(id(host), 0)
        per_host[id(host)] = k + 1
        out.append((host, layout.port + k if layout.port else 0))
    return out


def cluster_members(layout: Layout, shards: int) -> list[tuple[Host, int, str]]:
    """Each node of a cluster trial: its host, its port and HOST:PORT in --cluster-nodes. The
    ports are fixed before any node starts, since every node is given the whole list: --server-port
    plus the node's number, or a free loopback port for a node on this machine."""
    out = []
    for i, (host, _) in enumerate(placement(layout, shards)):
        if layout.port:
            port = layout.port + i
        elif isinstance(host, SshHost):
            raise ClusterError("a cluster trial over SSH needs --server-port")
        else:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
        name = host.hostname if isinstance(host, SshHost) else layout.bind
        if name in WILDCARDS:
            name = "127.0.0.1"
        out.append((host, port, f"{name}:{port}"))
    return out


def connect_address(printed: str, host: Host) -> str:
    """HOST:PORT for the clients, from the address a server printed (Java's InetSocketAddress:
    ``name/1.2.3.4:9000`` or ``/[::1]:9000``). A server on a wildcard address is reached by the
    name the sweep reaches its host by."""
    where, _, port = printed.rpartition(":")
    address = where.rpartition("/")[2].strip("[]")
    if address in WILDCARDS:
        address = host.hostname if isinstance(host, SshHost) else socket.gethostname()
    if ":" in address:
        address = f"[{address}]"
    return f"{address}:{port}"


class ServerProcess:
    """One `dbf0 server`, started on a host and watched from here until stop()."""

    def __init__(self, host: Host, java_opts: Sequence[str], args: Sequence[str], limit: float):
        self.host = host
        self.run_id = uuid.uuid4().hex
        argv = host.jar_command("server", java_opts, args, limit, self.run_id)
        if isinstance(host, LocalHost) and shutil.which("timeout"):
            # as over SSH: a sweep killed with SIGKILL cannot stop it, so it ends at its time limit
            argv = ["timeout", "-k", str(KILL_GRACE_SECONDS), str(int(limit) + 1), *argv]
        # its own process group, so that the terminal's Ctrl-C reaches the sweep, which stops it
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            process_group=0,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        self._readers = [
            threading.Thread(
                target=self._read, args=(self.proc.stdout, self.stdout, True), daemon=True
            ),
            threading.Thread(
                target=self._read, args=(self.proc.stderr, self.stderr, False), daemon=True
            ),
        ]
        for t in self._readers:
            t.start()
        self.address: str | None = None

    def _read(self, stream, keep: list[str], signal_lines: bool) -> None:
        for line in stream:
            keep.append(line)
            if signal_lines:
                self.lines.put(line)
        if signal_lines:
            self.lines.put(None)  # the process closed its stdout: it ended

    def wait_listening(self, deadline: float, cancelled: threading.Event) -> str:
        """HOST:PORT of the listening server, or ClusterError when it ends or is too slow."""
        while True:
            if cancelled.is_set():
                raise ClusterError("cancelled")
            left = deadline - time.monotonic()
            if left <= 0:
                raise ClusterError(
                    f"{self.host.label}: the server did not say it listens within "
                    f"{START_SECONDS:g} s; stderr: {self.stderr_text()}"
                )
            try:
                line = self.lines.get(timeout=min(left, 0.2))
            except queue.Empty:
                continue
            if line is None:
                self.proc.wait(KILL_GRACE_SECONDS)
                raise ClusterError(
                    f"{self.host.label}: the server exited ({self.proc.returncode}) before it "
                    f"listened: {self.stderr_text() or ''.join(self.stdout).strip()}"
                )
            match = LISTENING.search(line)
            if match:
                self.address = connect_address(match.group("address"), self.host)
                return self.address

    def stderr_text(self) -> str:
        return excerpt("".join(self.stderr))

    def stop(self) -> str:
        """Ends the server (on the far host too) and returns what it said on the way out."""
        if isinstance(self.host, SshHost):
            # SIGTERM there: its shutdown hook prints its summary
            self.host.cancel_remote(self.run_id)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(KILL_GRACE_SECONDS + 5)
        if self.proc.poll() is None:
            _kill_group(self.proc)
        for t in self._readers:
            t.join(timeout=5)
        return "".join(line for line in self.stdout if "stopped after" in line).strip()


@dataclass
class Running:
    """What a trial has running, so that an interrupt can stop it from another thread."""

    servers: list[ServerProcess] = field(default_factory=list)
    cancelled: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, server: ServerProcess) -> None:
        with self.lock:
            self.servers.append(server)
            if self.cancelled.is_set():
                server.stop()

    def stop_servers(self) -> list[str]:
        with self.lock:
            servers, self.servers = self.servers, []
        if len(servers) <= 1:
            return [s.stop() for s in servers]
        with ThreadPoolExecutor(
            max_workers=len(servers)
        ) as pool:  # one SSH round trip each: together
            return list(pool.map(ServerProcess.stop, servers))


def run_trial(
    spec: Mapping[str, Any],
    bench_args: Sequence[str],
    layout: Layout,
    java_opts: Sequence[str],
    limit: float,
    running: Running,
    sample: bool,
    sampler: Callable[[Host, float], Any],
    log: Callable[[str], None] = lambda text: None,
) -> dict[str, Any]:
    """Starts the servers, runs every client against all of them, stops the servers; the merged
    result, or ``{"error": ...}``."""
    shards = int(spec.get("shards", len(layout.servers)))
    servers: list[ServerProcess] = []
    samplers: dict[str, Any] = {}
    addresses: list[str] = []
    done: dict[str, Completed] = {}
    try:
        deadline = time.monotonic() + START_SECONDS
        clustered = bool(spec.get("cluster"))
        if clustered:
            members = cluster_members(layout, shards)
            nodes = ["--cluster-nodes", ",".join(m for _, _, m in members)]
            starts = [(h, p, nodes) for h, p, _ in members]
        else:
            starts = [(h, p, []) for h, p in placement(layout, shards)]
        for host, port, extra in starts:
            server = ServerProcess(
                host,
                java_opts,
                [*server_args(spec, layout.bind, port), *extra],
                limit + START_SECONDS,
            )
            running.add(server)
            servers.append(server)
        addresses = [s.wait_listening(deadline, running.cancelled) for s in servers]
        log(f"servers listening: {','.join(addresses)}")
        if sample:
            samplers = {h.label: sampler(h, limit) for h in layout.hosts()}
        if clustered:
            args = [*bench_args, "--cluster", members[0][2]]
        else:
            args = [*bench_args, "--connect", ",".join(addresses)]
        threads = [
            threading.Thread(
                target=lambda h=h: done.__setitem__(h.label, h.run_bench(java_opts, args, limit)),
                name=f"client {h.label}",
                daemon=True,
            )
            for h in layout.clients
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    except ClusterError as e:
        return {"error": f"servers did not start: {e}"}
    finally:
        stopped = running.stop_servers()
        samples = {label: s.stop() for label, s in samplers.items()}
    if running.cancelled.is_set() or any(c.cancelled for c in done.values()):
        return {"error": "cancelled", "cancelled": True}
    return merge(
        layout, addresses, {h.label: done[h.label] for h in layout.clients}, stopped, samples
    )


def merge(
    layout: Layout,
    addresses: list[str],
    done: Mapping[str, Completed],
    stopped: Sequence[str],
    samples: Mapping[str, list[dict[str, float]]],
) -> dict[str, Any]:
    """One trial's record from every client's output: totals, merged percentiles, and per node."""
    parsed = {label: parse_bench_output(c) for label, c in done.items()}
    failed = {label: r for label, r in parsed.items() if "error" in r}
    if failed:
        label, first = next(iter(failed.items()))
        return {"error": f"client {label}: {first['error']}", "failed_clients": failed}
    clients = list(parsed.values())
    total: dict[str, Any] = {
        k: sum(c.get(k, 0) for c in clients) for k in COUNTS if any(k in c for c in clients)
    }
    total["seconds"] = max(c["seconds"] for c in clients)
    # each client measured its own interval: the cluster's rate is the sum of the clients' rates
    total["ops_per_sec"] = round(sum(c["ops_per_sec"] for c in clients), 1)
    if all("latency_hdr" in c for c in clients):
        merged = histograms.merge(c["latency_hdr"] for c in clients)
        total.update({key: merged.percentile(p) for key, p in PERCENTILES})
    warnings = list(dict.fromkeys(w for c in clients for w in c.get("warnings") or []))
    if warnings:
        total["warnings"] = warnings
    shared = {k: v for k, v in clients[0].items() if k not in PER_CLIENT}
    nodes: dict[str, dict[str, Any]] = {}
    for host in layout.hosts():
        entry: dict[str, Any] = {"role": layout.role(host)}
        if host.label in parsed:
            entry.update({k: v for k, v in parsed[host.label].items() if k in PER_CLIENT})
        own = [a for a, (h, _) in zip(addresses, placement(layout, len(addresses))) if h is host]
        if own:
            entry[SERVERS] = own
        nodes[host.label] = entry
    result = {
        **shared,
        **total,
        "shards": len(addresses),
        "client_hosts": len(layout.clients),
        SERVERS: addresses,
        NODES: nodes,
        "server_exits": [s for s in stopped if s],
    }
    if samples:
        result["utilisation"] = {
            label: utilisation.summarize(s, layout.role(h))
            for h in layout.hosts()
            for label, s in samples.items()
            if label == h.label
        }
    return result


def local_or_remote_sampler(host: Host, limit: float):
    """Samples the node: this machine's /proc directly, a remote one's over SSH."""
    if isinstance(host, SshHost):
        return utilisation.RemoteSampler(host.ssh, limit + host.local_grace()).start()
    return utilisation.Sampler().start()
