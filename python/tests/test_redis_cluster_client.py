"""redis-py's RedisCluster, with its defaults and given one node only, against three `dbf0 server
--cluster-nodes` child processes on 127.0.0.1: it learns the slot map, writes and reads back
thousands of keys spread over all three nodes, and does MSET/MGET over keys sharing a hash tag."""

from __future__ import annotations

import socket
import subprocess
import time

import pytest
import redis
from redis.cluster import RedisCluster

from conftest import free_port

pytestmark = pytest.mark.slow

KEYS = 3000


@pytest.fixture(scope="module")
def nodes(java, jar):
    """Three cluster nodes, each a child process on a free loopback port; yields the ports."""
    ports = [free_port() for _ in range(3)]
    members = ",".join(f"127.0.0.1:{p}" for p in ports)
    procs = [
        subprocess.Popen(
            [java, "-jar", str(jar), "server", "--bind", "127.0.0.1", f"--port={port}"]
            + ["--threads=2", f"--cluster-nodes={members}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for port in ports
    ]
    try:
        deadline = time.monotonic() + 30
        for proc, port in zip(procs, ports):
            while True:
                assert proc.poll() is None, f"dbf0 server exited: {proc.communicate()[1]}"
                try:
                    info = redis.Redis(port=port, protocol=2).cluster("INFO")
                    if info.get("cluster_state") == "ok":
                        break
                except (OSError, redis.ConnectionError):
                    pass
                assert time.monotonic() < deadline, "the cluster did not reach state ok in 30 s"
                time.sleep(0.1)
        yield ports
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


def test_redis_cluster_writes_and_reads_back_keys_on_every_node(nodes):
    rc = RedisCluster(host="127.0.0.1", port=nodes[1])
    try:
        assert {n.port for n in rc.get_nodes()} == set(nodes)
        for i in range(KEYS):
            assert rc.set(f"py:{i}", f"v{i}")
        for i in range(KEYS):
            assert rc.get(f"py:{i}") == f"v{i}".encode()
        owners = {rc.get_node_from_key(f"py:{i}").port for i in range(KEYS)}
        assert owners == set(nodes)
        for user in range(50):
            tag = f"{{py-user{user}}}"
            assert rc.mset({f"{tag}:a": f"a{user}", f"{tag}:b": f"b{user}"})
            got = rc.mget(f"{tag}:a", f"{tag}:b", f"{tag}:none")
            assert got == [f"a{user}".encode(), f"b{user}".encode(), None]
        # redis-py splits MGET over keys of several slots, one request per slot.
        assert rc.mget_nonatomic("py:1", "py:2", "py:3") == [b"v1", b"v2", b"v3"]
    finally:
        rc.close()


def test_a_key_asked_of_the_wrong_node_is_moved(nodes):
    with socket.create_connection(("127.0.0.1", nodes[0]), timeout=5) as s:
        plain = redis.Redis(port=nodes[0], protocol=2)
        slot = plain.execute_command("CLUSTER KEYSLOT", "py:elsewhere")
        owner = RedisCluster(host="127.0.0.1", port=nodes[0])
        try:
            port = owner.get_node_from_key("py:elsewhere").port
        finally:
            owner.close()
        s.sendall(b"*2\r\n$3\r\nGET\r\n$12\r\npy:elsewhere\r\n")
        reply = s.recv(200)
        if port == nodes[0]:
            assert reply == b"$-1\r\n"
        else:
            assert reply == f"-MOVED {slot} 127.0.0.1:{port}\r\n".encode()
