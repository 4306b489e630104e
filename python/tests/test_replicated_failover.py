"""redis-py's RedisCluster fails over with no change: against one shard of three `dbf0 server
--cluster-replicas 2` child processes on 127.0.0.1, it writes keys, the leader is SIGKILLed, and it
keeps writing new keys until the new leader has acknowledged 30 more, within 60 s. A write that
failed may or may not have taken effect and is not counted; every acknowledged one must read back.
"""

from __future__ import annotations

import socket
import subprocess
import time

import pytest
import redis
from redis.cluster import ClusterNode, RedisCluster

from conftest import free_port

pytestmark = pytest.mark.slow

OFFSET = 1000  # each node's Raft port is its port + OFFSET
BEFORE = 100
AFTER = 30
FAILOVER_S = 60


def port_pair() -> int:
    """A free port whose Raft port (port + OFFSET) is free too."""
    for _ in range(100):
        port = free_port()
        if port + OFFSET > 65535:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + OFFSET))
            except OSError:
                continue
        return port
    raise RuntimeError("no free pair of ports")


def role(port: int) -> str | None:
    try:
        return redis.Redis(port=port, protocol=2, socket_timeout=2).execute_command("DBF0-ROLE")
    except (OSError, redis.RedisError):
        return None


def await_leader(procs, ports, within: float = 60) -> int:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        for i, (proc, port) in enumerate(zip(procs, ports)):
            if proc.poll() is None:
                r = role(port)
                if r is not None and (r.decode() if isinstance(r, bytes) else r).startswith(
                    "leader"
                ):
                    return i
        time.sleep(0.1)
    raise AssertionError(f"no leader within {within} s")


@pytest.fixture
def shard(java, jar, tmp_path):
    """Three replicated nodes of one shard; yields (processes, ports)."""
    ports = [port_pair() for _ in range(3)]
    members = ",".join(f"127.0.0.1:{p}" for p in ports)
    procs = []
    try:
        for i, port in enumerate(ports):
            data = tmp_path / f"node{i}"
            data.mkdir()
            procs.append(
                subprocess.Popen(
                    [java, "-Xmx256m", "-jar", str(jar), "server", "--bind", "127.0.0.1"]
                    + [f"--port={port}", "--threads=2", f"--cluster-nodes={members}"]
                    + ["--cluster-replicas=2", f"--raft-port-offset={OFFSET}"]
                    + ["--election-timeout=1s", f"--data-dir={data}"],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        yield procs, ports
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait(30)


def write(rc: RedisCluster, key: str, value: str, acked: dict, until: float) -> bool:
    try:
        assert rc.set(key, value)
    except (redis.RedisError, OSError) as e:
        assert time.monotonic() < until, f"writes did not resume within {FAILOVER_S} s: {e!r}"
        time.sleep(0.05)
        return False
    acked[key] = value
    return True


def test_redis_cluster_fails_over_to_the_new_leader(shard):
    procs, ports = shard
    leader = await_leader(procs, ports)
    rc = RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", p) for p in ports], socket_timeout=2)
    try:
        acked: dict[str, str] = {}
        i = 0
        until = time.monotonic() + FAILOVER_S
        while len(acked) < BEFORE:
            write(rc, f"before-{i}", f"v{i}", acked, until)
            i += 1
        procs[leader].kill()  # SIGKILL
        procs[leader].wait(30)
        until = time.monotonic() + FAILOVER_S
        after = 0
        while after < AFTER:
            after += write(rc, f"after-{i}", f"v{i}", acked, until)
            i += 1
        assert await_leader(procs, ports, within=10) != leader
        for key, value in acked.items():
            while True:
                try:
                    got = rc.get(key)
                    break
                except (redis.RedisError, OSError):
                    assert time.monotonic() < until, "reads did not resume"
                    time.sleep(0.05)
            assert got == value.encode(), key
    finally:
        rc.close()
