"""Trials with roles (--servers, --clients): real `dbf0 server` processes started over SSH on
several "hosts" (OpenSSH servers on 127.0.0.1, each its own port), bench on two client hosts at
once, their results merged, and no server left behind, also after Ctrl-C."""

import json
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, free_ports, interruptible, run_script
from dbf0lab import analysis, analyze_cli, cluster, histograms, machine, results
from dbf0lab.hosts import LocalHost, SshHost, SshSettings

GRID = [
    "--preset",
    "smoke",
    "--client-threads",
    "2",
    "--set-frac",
    "0.1",
    "--duration",
    "PT1S",
    "--trials",
    "1",
    "--server-model",
    "nio",
    "--client-mode",
    "batched",
    "--no-progress",
]


def remote_args(sshd_factory, java, remote_dir):
    return [*sshd_factory.ssh_args(), "--remote-java", java, "--remote-dir", str(remote_dir)]


def servers_running(marker: str) -> list[int]:
    """Process ids of `dbf0 server` JVMs whose command line holds marker (the test's own folder)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().split()[2]
        except OSError:
            continue
        java = argv[0].rsplit(b"/", 1)[-1] == b"java"  # not the `timeout` that runs it over SSH
        if java and state != "Z" and any(marker.encode() in a for a in argv) and b"server" in argv:
            found.append(int(entry.name))
    return found


def preinstall(jar: Path, remote_dir: Path) -> None:
    """Puts the jar where the sweep's copy would go (the "hosts" share one folder here), so that
    four hosts do not each copy it: test_ssh.py tests the copy, this file what comes after."""
    remote_dir.mkdir()
    shutil.copy(jar, remote_dir / f"dbf0-{machine.sha256_of(jar)[:16]}.jar")


def port_free(address: str) -> bool:
    host, _, port = address.rpartition(":")
    with socket.socket() as s:
        try:
            s.bind((host, int(port)))
            return True
        except OSError:
            return False


def wait_until(check, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


@pytest.mark.slow
@pytest.mark.parametrize("clustered", [False, True], ids=["sharded", "cluster"])
def test_two_server_hosts_and_two_client_hosts_over_ssh(
    tmp_path, sshd_factory, java, jar, clustered
):
    s1, s2, c1, c2 = (sshd_factory.start() for _ in range(4))
    out, remote_dir = tmp_path / "r.jsonl", tmp_path / "remote"
    preinstall(jar, remote_dir)
    # a cluster's nodes are each given the whole list, so their ports are fixed up front
    as_cluster = (
        ["--cluster-mode", "true", "--server-port", str(free_ports(2))] if clustered else []
    )
    done = run_script(
        "run_benchmarks.py",
        *GRID,
        *as_cluster,
        "--servers",
        f"{s1.host},{s2.host}",
        "--clients",
        f"{c1.host},{c2.host}",
        *remote_args(sshd_factory, java, remote_dir),
        "--out",
        str(out),
        timeout=90,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    ((spec, result),) = results.read(out).trials
    assert "error" not in result, result
    nodes = result["nodes"]
    assert {n: e["role"] for n, e in nodes.items()} == {
        s1.host: "server",
        s2.host: "server",
        c1.host: "client",
        c2.host: "client",
    }
    assert result["shards"] == 2 and len(result["servers"]) == 2
    # in a cluster the clients placed keys by the slot map they learned from the first node
    assert result.get("cluster", False) is clustered
    assert [a for n in (s1.host, s2.host) for a in nodes[n]["servers"]] == result["servers"]
    clients = [nodes[c1.host], nodes[c2.host]]
    assert all(c["ops_per_sec"] > 0 and c["errors"] == 0 for c in clients)
    for key in ("set", "get", "errors"):
        assert result[key] == sum(c[key] for c in clients)
    assert result["ops_per_sec"] == pytest.approx(sum(c["ops_per_sec"] for c in clients), abs=0.1)
    # the percentiles of the sum of the two clients' histograms, not an average of theirs
    merged = histograms.merge(c["latency_hdr"] for c in clients)
    assert merged.total == result["set"] + result["get"]
    for key, p in (
        ("p50_us", 50),
        ("p90_us", 90),
        ("p99_us", 99),
        ("p999_us", 99.9),
        ("max_us", 100),
    ):
        assert result[key] == merged.percentile(p), key
    # every node was sampled, with its role
    assert {n: u["role"] for n, u in result["utilisation"].items()} == {
        n: e["role"] for n, e in nodes.items()
    }
    # the TCP counters of the four hosts (read over SSH), added up
    assert set(result["tcp"]) == {"listen_overflows", "listen_drops", "syn_retrans"}
    # both servers were told to stop and said so; nothing listens on their ports any more
    assert len(result["server_exits"]) == 2 and all(
        "stopped after" in s for s in result["server_exits"]
    )
    assert servers_running(str(remote_dir)) == []
    assert all(port_free(a) for a in result["servers"])
    assert not list(remote_dir.glob("run-*.pid"))

    report = analyze_cli.report(
        analysis.load([out])
    )  # what analyze.py prints, without another interpreter
    assert "### Trials with servers and clients on separate hosts" in report
    for node in nodes:
        assert f"| {node} |" in report


@pytest.mark.slow
def test_ctrl_c_during_a_trial_leaves_no_server_and_frees_the_ports(
    tmp_path, sshd_factory, java, jar
):
    s1, s2 = sshd_factory.start(), sshd_factory.start()
    out, remote_dir, log = tmp_path / "r.jsonl", tmp_path / "remote", tmp_path / "stderr.txt"
    preinstall(jar, remote_dir)
    argv = [
        sys.executable,
        str(REPO / "scripts" / "run_benchmarks.py"),
        *GRID,
        "--duration",
        "PT60S",
        "--servers",
        f"{s1.host},{s2.host}",
        "--clients",
        "local",
        *remote_args(sshd_factory, java, remote_dir),
        "--out",
        str(out),
    ]
    with open(log, "w") as err:
        proc = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=err, text=True, preexec_fn=interruptible
        )
        try:
            wait_until(
                lambda: "servers listening: " in log.read_text() or proc.poll() is not None,
                25,
                "the servers never listened",
            )
            assert proc.poll() is None, log.read_text()
            addresses = log.read_text().split("servers listening: ")[1].split()[0].split(",")
            assert len(addresses) == 2 and len(servers_running(str(remote_dir))) == 2
            time.sleep(1)  # the clients are running too
            proc.send_signal(signal.SIGINT)
            assert proc.wait(30) == 130, log.read_text()
        finally:
            if proc.poll() is None:
                proc.kill()
    assert results.read(out).trials == []
    wait_until(lambda: not servers_running(str(remote_dir)), 10, "a server still runs after Ctrl-C")
    wait_until(lambda: all(port_free(a) for a in addresses), 10, "a server port is still taken")


@pytest.mark.slow
def test_local_shards_are_started_and_stopped_with_each_trial(tmp_path, jar):
    own_jar = tmp_path / "dbf0.jar"  # a path of this test's own, to find its servers by
    shutil.copy(jar, own_jar)
    out = tmp_path / "r.jsonl"
    done = run_script(
        "run_benchmarks.py",
        *GRID,
        "--shards",
        "2",
        "--jar",
        str(own_jar),
        "--out",
        str(out),
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    ((spec, result),) = results.read(out).trials
    assert spec["shards"] == 2 and result["shards"] == 2 and result["errors"] == 0
    assert (
        result["nodes"]["local"]["role"] == "client+server"
        and len(result["nodes"]["local"]["servers"]) == 2
    )
    assert len(result["server_exits"]) == 2
    assert servers_running(str(tmp_path)) == [] and all(port_free(a) for a in result["servers"])


@pytest.mark.slow
def test_a_server_that_cannot_start_fails_the_trial_with_its_reason(tmp_path, jar):
    out = tmp_path / "r.jsonl"
    done = run_script(
        "run_benchmarks.py",
        *GRID,
        "--servers",
        "local",
        "--clients",
        "local",
        "--server-bind",
        "203.0.113.7",  # TEST-NET-3: no interface here has it
        "--out",
        str(out),
        timeout=60,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    ((_, result),) = results.read(out).trials
    assert result["error"].startswith("servers did not start: local: the server exited"), result


def test_roles_and_whole_trial_hosts_do_not_mix(tmp_path):
    done = run_script(
        "run_benchmarks.py",
        "--preset",
        "smoke",
        "--hosts",
        "local",
        "--servers",
        "local",
        "--dry-run",
        "--out",
        str(tmp_path / "r.jsonl"),
    )
    assert done.returncode == 2 and "name the hosts by role" in done.stderr


def test_the_dry_run_shows_the_server_and_client_commands(tmp_path):
    done = run_script(
        "run_benchmarks.py", "--preset", "scaling", "--dry-run", "--out", str(tmp_path / "r.jsonl")
    )
    assert done.returncode == 0, done.stderr
    assert "servers on local (bind 127.0.0.1), clients on local" in done.stdout
    assert (
        "server --bind 127.0.0.1 --port 0 --threads 1 --server-model nio --map concurrent"
        in done.stdout
    )
    assert "--connect <the" in done.stdout


def test_shards_go_round_robin_and_a_fixed_port_counts_up_per_host():
    a, b = LocalHost("java"), SshHost("u@b", SshSettings())
    layout = cluster.Layout([a, b], [a], port=9000)
    assert [(h.label, p) for h, p in cluster.placement(layout, 5)] == [
        ("local", 9000),
        ("u@b", 9000),
        ("local", 9001),
        ("u@b", 9001),
        ("local", 9002),
    ]
    assert [p for _, p in cluster.placement(cluster.Layout([a], [a]), 3)] == [
        0,
        0,
        0,
    ]  # any free port each
    assert layout.role(a) == "client+server" and layout.role(b) == "server"
    assert [h.label for h in layout.hosts()] == ["local", "u@b"]


def test_clients_reach_a_wildcard_server_by_its_hosts_name():
    remote = SshHost("ubuntu@10.0.0.5:2222", SshSettings())
    assert cluster.connect_address("/127.0.0.1:9000", remote) == "127.0.0.1:9000"
    assert cluster.connect_address("node1/10.0.0.5:9000", remote) == "10.0.0.5:9000"
    assert cluster.connect_address("/0.0.0.0:9000", remote) == "10.0.0.5:9000"
    assert cluster.connect_address("/[0:0:0:0:0:0:0:0]:9000", remote) == "10.0.0.5:9000"
    assert cluster.connect_address("/[::1]:9001", remote) == "[::1]:9001"


def test_a_failed_client_fails_the_trial_and_says_which():
    from dbf0lab.hosts import Completed

    a = LocalHost("java")
    layout = cluster.Layout([a], [a])
    ok = json.dumps({"set": 1, "get": 9, "seconds": 1.0, "ops_per_sec": 10.0})
    merged = cluster.merge(
        layout, ["127.0.0.1:1"], {"local": Completed(1, "", "Connection refused")}, [], {}
    )
    assert merged["error"] == "client local: exit code 1" and "local" in merged["failed_clients"]
    fine = cluster.merge(layout, ["127.0.0.1:1"], {"local": Completed(0, ok, "")}, [], {})
    assert (
        fine["ops_per_sec"] == 10.0 and "p99_us" not in fine
    )  # no histogram, no invented percentiles
