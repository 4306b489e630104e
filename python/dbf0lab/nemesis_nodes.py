"""The nemesis's clusters: dbf0 servers replicated through Raft, or Redis Cluster, as child
processes the nemesis can kill, pause, restart and wipe.

Each node is one process (started straight as ``java`` or ``redis-server``, inside its network
namespace when there are namespaces: ``ip netns exec`` execs, so the child's pid is the server's
and a signal reaches it), with its own data directory and a log file its output is appended to
across restarts. Who leads a shard is read differently for each: a dbf0 node says in its log when
it starts leading (``shard S: this node leads it now (term T)``) and the highest term wins; Redis
is asked ``CLUSTER NODES`` through redis-cli.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

LISTENING = "dbf0 server listening on"
LEADS = re.compile(r"shard (\d+): this node leads it now \(term (\d+)\)")
KILL_WAIT_SECONDS = 10.0


class NodeError(Exception):
    """A node did not start, or the cluster did not come up."""


class Node:
    """One server process, restartable; ``prefix`` runs it in its namespace (or is empty)."""

    def __init__(self, index: int, command: list[str], prefix: list[str], data: Path, log: Path):
        self.index = index
        self.command = command
        self.prefix = prefix
        self.data = data
        self.log = log
        self.process: subprocess.Popen | None = None
        self.paused = False

    def start(self) -> None:
        self.data.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as out:
            out.write(
                f"--- nemesis: starting node {self.index} at {time.monotonic_ns()}\n".encode()
            )
            out.flush()
            self.process = subprocess.Popen(
                self.prefix + self.command,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # a ^C at the terminal reaches the nemesis, not the node
            )
        self.paused = False

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def signal(self, sig: int) -> None:
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.process.pid, sig)

    def kill(self) -> None:
        """SIGKILL, and waits for the process to be gone (its ports and files released)."""
        if self.process is None:
            return
        self.signal(signal.SIGCONT)  # a stopped process dies of SIGKILL too; this is for clarity
        self.signal(signal.SIGKILL)
        try:
            self.process.wait(timeout=KILL_WAIT_SECONDS)
        except subprocess.TimeoutExpired as e:
            raise NodeError(f"node {self.index} (pid {self.process.pid}) outlived SIGKILL") from e
        self.paused = False

    def pause(self) -> None:
        self.signal(signal.SIGSTOP)
        self.paused = True

    def resume(self) -> None:
        self.signal(signal.SIGCONT)
        self.paused = False

    def log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def wait_for(self, text: str, since: int, deadline: float) -> None:
        """Waits until the log, past byte ``since``, holds ``text``."""
        while time.monotonic() < deadline:
            if text in self.log_text()[since:]:
                return
            if not self.alive():
                tail = self.log_text()[since:][-600:]
                raise NodeError(f"node {self.index} exited before saying '{text}': {tail}")
            time.sleep(0.1)
        raise NodeError(f"node {self.index} did not say '{text}' in time (log {self.log})")


class Cluster:
    """What the nemesis needs of any cluster: its nodes, shards, leaders, and the keys a node
    serves; :meth:`close` kills every node."""

    name = "cluster"

    def __init__(self, nodes: list[Node], addresses: list[str]):
        self.nodes = nodes
        self.addresses = addresses

    def start_all(self, deadline: float) -> None:
        raise NotImplementedError

    ready_text = LISTENING

    def restart(self, i: int, deadline: float) -> None:
        self.restart_many([i], deadline)

    def restart_many(self, indices: Sequence[int], deadline: float) -> None:
        """Starts the nodes together, then waits until each says it is ready."""
        marks = {i: len(self.nodes[i].log_text()) for i in indices}
        for i in indices:
            self.nodes[i].start()
        for i in indices:
            self.nodes[i].wait_for(self.ready_text, marks[i], deadline)

    def shards(self) -> list[list[int]]:
        raise NotImplementedError

    def leader(self, shard: int) -> int | None:
        raise NotImplementedError

    def client_args(self) -> list[str]:
        """The nemesis client's --cluster-nodes and --cluster-replicas for this cluster."""
        raise NotImplementedError

    def slot_ranges(self, node: int) -> list[tuple[int, int]]:
        """The hash slots ``node`` serves now, where that is not fixed by its shard (Redis)."""
        return []

    def settle(self, quiet_s: float, deadline: float) -> None:
        """Waits until the leaders have held still for ``quiet_s``; nothing to wait for here
        (Redis's masters are read from CLUSTER NODES when a fault picks its victim)."""

    def elections(self) -> int | None:
        """How many leaderships the nodes announced (dbf0: a (shard, term) each), or None."""
        return None

    def close(self) -> None:
        for n in self.nodes:
            with contextlib.suppress(NodeError):
                n.kill()


class Dbf0Cluster(Cluster):
    """``dbf0 server --cluster-nodes ... --cluster-replicas R --data-dir D`` per node."""

    name = "dbf0"

    def __init__(
        self,
        java: str,
        jar: Path,
        hosts: Sequence[str],
        port: int,
        replicas: int,
        root: Path,
        prefixes: Sequence[list[str]],
        election_timeout_ms: int,
        raft_port_offset: int,
        fsync: str = "always",
    ):
        loopback = len(set(hosts)) == 1
        ports = [port + i if loopback else port for i in range(len(hosts))]
        addresses = [f"{h}:{p}" for h, p in zip(hosts, ports)]
        self.replicas = replicas
        nodes = []
        for i, (h, p) in enumerate(zip(hosts, ports)):
            data = root / f"n{i}"
            command = [java, "-Xmx256m", "-jar", str(jar), "server"]
            command += ["--cluster-nodes", ",".join(addresses), "--cluster-replicas", str(replicas)]
            command += ["--data-dir", str(data), "--bind", h, "--port", str(p)]
            command += ["--raft-port-offset", str(raft_port_offset), "--fsync", fsync]
            command += ["--election-timeout", f"{election_timeout_ms}ms"]
            nodes.append(Node(i, command, list(prefixes[i]), data, root / f"n{i}.log"))
        super().__init__(nodes, addresses)

    def start_all(self, deadline: float) -> None:
        self.restart_many(range(len(self.nodes)), deadline)
        for s in range(len(self.shards())):
            while self.leader(s) is None:
                if time.monotonic() > deadline:
                    raise NodeError(f"shard {s} elected no leader in time")
                time.sleep(0.1)
        self.settle(1.0, min(deadline, time.monotonic() + 10))

    def shards(self) -> list[list[int]]:
        size = self.replicas + 1
        return [list(range(s, s + size)) for s in range(0, len(self.nodes), size)]

    def leader(self, shard: int) -> int | None:
        """The live, running member whose log claims the shard at the highest term."""
        best: tuple[int, int] | None = None
        for i in self.shards()[shard]:
            n = self.nodes[i]
            if not n.alive() or n.paused:
                continue
            for s, term in LEADS.findall(n.log_text()):
                if int(s) == shard and (best is None or int(term) > best[0]):
                    best = (int(term), i)
        return None if best is None else best[1]

    def client_args(self) -> list[str]:
        return [
            "--cluster-nodes",
            ",".join(self.addresses),
            "--cluster-replicas",
            str(self.replicas),
        ]

    def settle(self, quiet_s: float, deadline: float) -> None:
        """Waits until every shard's leader has stayed the same live node for ``quiet_s`` (or
        until ``deadline``), so that a fault hits the leader that serves, not one an election
        under way is replacing (a new leader whose first heartbeat is late steps down again)."""
        last: list[int | None] | None = None
        since = time.monotonic()
        while time.monotonic() < deadline:
            now = [self.leader(s) for s in range(len(self.shards()))]
            if now != last or None in now:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet_s:
                return
            time.sleep(0.1)

    def elections(self) -> int | None:
        """Distinct (shard, term) leaderships in the logs: one per shard at the start and one per
        fault that stops a leader; more are elections no fault caused (a heartbeat late)."""
        return len({m for n in self.nodes for m in LEADS.findall(n.log_text())})


def crc16(data: bytes) -> int:
    """CRC-16/XMODEM, the checksum Redis Cluster's hash slots are made of."""
    crc = 0
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def hash_slot(key: bytes) -> int:
    """The key's slot, hash tags ({...}) included, as Redis computes it."""
    start = key.find(b"{")
    if start >= 0:
        end = key.find(b"}", start + 1)
        if end > start + 1:
            key = key[start + 1 : end]
    return crc16(key) % 16384


class RedisCluster(Cluster):
    """Redis Cluster: ``masters`` masters with one replica each, every node with the AOF at
    appendfsync always and cluster-node-timeout 1000 ms, made by ``redis-cli --cluster create``."""

    name = "redis"
    ready_text = "Ready to accept connections"

    def __init__(
        self,
        hosts: Sequence[str],
        port: int,
        root: Path,
        prefixes: Sequence[list[str]],
        hub_prefix: list[str],
        bus_port_offset: int,
        node_timeout_ms: int = 1000,
    ):
        loopback = len(set(hosts)) == 1
        self.ports = [port + i if loopback else port for i in range(len(hosts))]
        self.hosts = list(hosts)
        self.hub_prefix = hub_prefix
        addresses = [f"{h}:{p}" for h, p in zip(hosts, self.ports)]
        nodes = []
        for i, (h, p) in enumerate(zip(hosts, self.ports)):
            data = root / f"n{i}"
            command = ["redis-server", "--bind", h, "--port", str(p), "--protected-mode", "no"]
            command += ["--cluster-enabled", "yes", "--cluster-port", str(p + bus_port_offset)]
            command += ["--cluster-config-file", str(data / "nodes.conf")]
            command += ["--cluster-node-timeout", str(node_timeout_ms), "--dir", str(data)]
            command += ["--appendonly", "yes", "--appendfsync", "always", "--save", ""]
            nodes.append(Node(i, command, list(prefixes[i]), data, root / f"n{i}.log"))
        super().__init__(nodes, addresses)

    def cli(self, i: int, *args: str, timeout: float = 10.0) -> str:
        done = subprocess.run(
            self.hub_prefix + ["redis-cli", "-h", self.hosts[i], "-p", str(self.ports[i]), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return done.stdout

    def start_all(self, deadline: float) -> None:
        fresh = not (self.nodes[0].data / "nodes.conf").exists()
        self.restart_many(range(len(self.nodes)), deadline)
        if fresh:
            made = subprocess.run(
                self.hub_prefix
                + ["redis-cli", "--cluster", "create", *self.addresses]
                + ["--cluster-replicas", "1", "--cluster-yes"],
                capture_output=True,
                text=True,
                timeout=max(1.0, deadline - time.monotonic()),
            )
            if made.returncode != 0:
                raise NodeError(f"redis-cli --cluster create failed: {made.stdout[-400:]}")
        self.wait_ok(deadline)

    def wait_ok(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            with contextlib.suppress(subprocess.TimeoutExpired):
                if all(
                    "cluster_state:ok" in self.cli(i, "cluster", "info")
                    for i in range(len(self.nodes))
                ):
                    return
            time.sleep(0.2)
        raise NodeError("Redis Cluster did not reach cluster_state:ok in time")

    def _topology(self) -> list[tuple[int, str, list[tuple[int, int]]]]:
        """(node index, role, slot ranges) of each node, from a live node's CLUSTER NODES."""
        by_address = {a: i for i, a in enumerate(self.addresses)}
        for i, n in enumerate(self.nodes):
            if not n.alive() or n.paused:
                continue
            try:
                text = self.cli(i, "cluster", "nodes", timeout=2.0)
            except subprocess.TimeoutExpired:
                continue
            out = []
            for line in text.splitlines():
                words = line.split()
                if len(words) < 8:
                    continue
                address = words[1].split("@")[0]
                if address not in by_address:
                    continue
                flags = words[2].split(",")
                role = "master" if "master" in flags and "fail" not in flags else "replica"
                ranges = []
                for w in words[8:]:
                    if w[0].isdigit():
                        lo, _, hi = w.partition("-")
                        ranges.append((int(lo), int(hi or lo)))
                out.append((by_address[address], role, ranges))
            if out:
                return out
        return []

    def shards(self) -> list[list[int]]:
        """One group per master; which replica follows which master is Redis's own choice, so
        the groups here are only for picking a victim: each master by itself."""
        masters = sorted(i for i, role, ranges in self._topology() if role == "master" and ranges)
        return [[m] for m in masters] or [[0]]

    def leader(self, shard: int) -> int | None:
        groups = self.shards()
        return groups[shard][0] if shard < len(groups) else None

    def client_args(self) -> list[str]:
        # One group of every node: any node may be asked, and MOVED names the master.
        return [
            "--cluster-nodes",
            ",".join(self.addresses),
            "--cluster-replicas",
            str(len(self.addresses) - 1),
        ]

    def slot_ranges(self, node: int) -> list[tuple[int, int]]:
        return [r for i, _, rs in self._topology() if i == node for r in rs]


def wipe(node: Node) -> None:
    """Removes the node's data directory (it must be stopped)."""
    shutil.rmtree(node.data, ignore_errors=True)
