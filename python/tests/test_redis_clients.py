"""redis-py 8, the Python Redis client, against a real `dbf0 server` on 127.0.0.1: with its
defaults (HELLO 3, so RESP3) and with protocol=2, the basic commands, a pipeline of 1,000
commands, an unknown command and a transaction, which dbf0 refuses with nothing of it applied."""

from __future__ import annotations

import socket
import subprocess
import time

import pytest
import redis

from conftest import free_port

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(java, jar):
    """One `dbf0 server` child process on a free loopback port; yields the port."""
    port = free_port()
    proc = subprocess.Popen(
        [java, "-jar", str(jar), "server", "--bind", "127.0.0.1", f"--port={port}", "--threads=2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, f"dbf0 server exited: {proc.communicate()[1]}"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "dbf0 server did not listen within 30 s"
                time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def proto(client: redis.Redis) -> int:
    """The protocol the client was told to use; redis-py 8 uses RESP3 when told nothing."""
    return int(client.get_connection_kwargs().get("protocol") or 3)


@pytest.fixture(params=[None, 2], ids=["defaults-resp3", "protocol-2"])
def client(request, server):
    kwargs = {} if request.param is None else {"protocol": request.param}
    r = redis.Redis(host="127.0.0.1", port=server, socket_timeout=10, **kwargs)
    yield r
    r.close()


def test_basic_commands(client):
    p = f"py{proto(client)}:"
    assert client.ping() is True
    assert client.set(p + "a", "1") is True
    assert client.get(p + "a") == b"1"
    assert client.get(p + "missing") is None
    assert client.mset({p + "b": "2", p + "c": "3"}) is True
    assert client.mget(p + "a", p + "missing", p + "c") == [b"1", None, b"3"]
    assert client.exists(p + "a", p + "b", p + "missing") == 2
    assert client.delete(p + "a", p + "missing") == 1
    assert client.exists(p + "a") == 0
    # CONFIG GET is a map in RESP3 and a flat array in RESP2; redis-py makes a dict of either.
    assert client.config_get("save") == {"save": ""}
    assert client.info("keyspace")["db0"]["keys"] >= 2


def test_the_connection_speaks_the_protocol_asked_for(client):
    """HELLO with no version: the server's own account of this connection, in its protocol."""
    conn = client.connection_pool.get_connection()
    try:
        conn.send_command("HELLO")
        hello = conn.read_response()
    finally:
        client.connection_pool.release(conn)
    if isinstance(hello, list):  # RESP2: the same fields as a flat array
        hello = dict(zip(hello[::2], hello[1::2]))
    assert hello[b"proto"] == proto(client)
    assert hello[b"server"] == b"dbf0" and hello[b"mode"] == b"standalone"


def test_a_pipeline_of_1000_commands(client):
    p = f"pp{proto(client)}:"
    pipe = client.pipeline(transaction=False)
    for i in range(500):
        pipe.set(f"{p}{i}", f"v{i}")
        pipe.get(f"{p}{i}")
    replies = pipe.execute()
    assert replies == [x for i in range(500) for x in (True, f"v{i}".encode())]


def test_an_unknown_command_is_an_error_and_the_connection_goes_on(client):
    with pytest.raises(redis.ResponseError, match="unknown command 'NOSUCH'"):
        client.execute_command("NOSUCH", "x")
    assert client.ping() is True


def test_a_transaction_is_refused_and_nothing_of_it_applied(client):
    p = f"tx{proto(client)}:"
    pipe = client.pipeline()  # transaction=True: MULTI, the commands and EXEC in one write
    pipe.set(p + "a", "1")
    pipe.set(p + "b", "2")
    with pytest.raises(redis.ResponseError, match="MULTI is refused"):
        pipe.execute()
    assert client.exists(p + "a", p + "b") == 0
    assert client.set(p + "c", "3") is True  # the connection is back to normal


@pytest.mark.parametrize("protocol", [3, 2])
def test_auth_is_refused_with_a_reason(server, protocol):
    # redis-py sends HELLO 3 AUTH default secret in RESP3, AUTH secret in RESP2.
    r = redis.Redis(
        host="127.0.0.1", port=server, password="secret", protocol=protocol, socket_timeout=10
    )
    try:
        with pytest.raises(redis.ResponseError, match="dbf0 has no authentication"):
            r.ping()
    finally:
        r.close()
