"""The sweep over SSH, against real OpenSSH servers on 127.0.0.1 (no mocks): the jar is copied
once per host, trials are spread over the hosts, results come back into the local file."""

import re
import signal
import subprocess
import sys
import time

import pytest

from conftest import REPO, free_port, interruptible, run_script
from dbf0lab import results

pytestmark = pytest.mark.slow

GRID = [
    "--preset",
    "quick",
    "--server-threads",
    "1",
    "--client-threads",
    "1,2",
    "--map-type",
    "concurrent",
    "--set-frac",
    "0.1",
    "--duration",
    "PT1S",
    "--trials",
    "2",
    "--no-progress",
]


def remote_args(sshd_factory, java, remote_dir):
    return [*sshd_factory.ssh_args(), "--remote-java", java, "--remote-dir", str(remote_dir)]


def test_sweep_over_two_ssh_hosts(tmp_path, sshd_factory, java, jar):
    a, b = sshd_factory.start(), sshd_factory.start()
    out, remote_dir = tmp_path / "r.jsonl", tmp_path / "remote"
    argv = [
        *GRID,
        "--hosts",
        f"{a.host},{b.host}",
        *remote_args(sshd_factory, java, remote_dir),
        "--out",
        str(out),
    ]
    done = run_script("run_benchmarks.py", *argv)
    assert done.returncode == 0, done.stdout + done.stderr
    content = results.read(out)
    assert len(content.trials) == 4 and all(r["get"] > 0 for _, r in content.trials)
    assert {r["host"] for _, r in content.trials} <= {a.host, b.host}
    # each trial's node was sampled over a second SSH connection (a slow login may leave a 1 s
    # trial without a whole sample, so only some trials are required to have one)
    usage = [r["utilisation"][r["host"]] for _, r in content.trials]
    assert all(u["role"] == "client+server" for u in usage)
    assert any(u["samples"] >= 1 and u["mem_used_bytes"]["max"] > 0 for u in usage)
    # and its TCP counters were read before and after it, with `cat /proc/net/netstat` over SSH
    counters = {"listen_overflows", "listen_drops", "syn_retrans"}
    assert all(set(r["tcp"]) == counters for _, r in content.trials)
    assert {m["host"] for m in content.machines} == {a.host, b.host}
    for m in content.machines:
        assert m["dbf0_version"].startswith("dbf0 ") and m["cores"] >= 1 and m["memory_bytes"] > 0
    # the jar went to the (shared) remote folder under its hash; no half-copied file is left
    assert (
        [p.name for p in remote_dir.iterdir() if p.suffix == ".jar"]
        and not list(remote_dir.glob("*.part-*"))
        and not list(remote_dir.glob("run-*.pid"))
    )
    assert len(re.findall(r"jar copied", done.stderr)) >= 1

    again = run_script("run_benchmarks.py", *argv[:-2], "--trials", "3", "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert again.stderr.count("jar already there") == 2  # copied once per host, not per run
    assert len(results.read(out).trials) == 6


def test_an_unreachable_host_is_left_out_and_the_others_carry_on(tmp_path, sshd_factory, java, jar):
    a = sshd_factory.start()
    dead = f"{a.host.split('@')[0]}@127.0.0.1:{free_port()}"  # nothing listens there
    out = tmp_path / "r.jsonl"
    done = run_script(
        "run_benchmarks.py",
        *GRID,
        "--hosts",
        f"{a.host},{dead}",
        *remote_args(sshd_factory, java, tmp_path / "remote"),
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    assert f"left out: {dead}" in done.stderr
    assert {r["host"] for _, r in results.read(out).trials} == {a.host}


def test_ctrl_c_ends_the_remote_trial_too(tmp_path, sshd_factory, java, jar):
    a = sshd_factory.start()
    out, remote_dir = tmp_path / "r.jsonl", tmp_path / "remote"
    argv = [
        sys.executable,
        str(REPO / "scripts" / "run_benchmarks.py"),
        *GRID,
        "--client-threads",
        "1",
        "--trials",
        "1",
        "--duration",
        "PT60S",
        "--hosts",
        a.host,
        *remote_args(sshd_factory, java, remote_dir),
        "--out",
        str(out),
    ]
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=interruptible
    )
    deadline = time.monotonic() + 60
    while not list(remote_dir.glob("run-*.pid")):  # the remote trial has started
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    pid = int(next(remote_dir.glob("run-*.pid")).read_text())
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert results.read(out).trials == []
    deadline = time.monotonic() + 20
    while _alive(pid):
        assert time.monotonic() < deadline, f"remote trial {pid} still runs after Ctrl-C"
        time.sleep(0.2)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_a_logged_trial_over_ssh_gets_a_fresh_data_dir_that_is_removed(
    tmp_path, sshd_factory, java, jar
):
    a = sshd_factory.start()
    out, remote_dir, root = tmp_path / "r.jsonl", tmp_path / "remote", tmp_path / "data"
    root.mkdir()
    done = run_script(
        "run_benchmarks.py",
        "--preset",
        "durability",
        "--client-mode",
        "persistent",
        "--server-model",
        "virtual",
        "--set-frac",
        "0.9",
        "--client-threads",
        "2",
        "--fsync",
        "always",
        "--duration",
        "1",
        "--warmup",
        "200ms",
        "--trials",
        "1",
        "--no-progress",
        "--hosts",
        a.host,
        *remote_args(sshd_factory, java, remote_dir),
        "--data-root",
        str(root),
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    ((spec, result),) = results.read(out).trials
    assert spec["fsync"] == "always" and result["fsync"] == "always" and result["wal_fsyncs"] > 0
    assert list(root.iterdir()) == [], "the remote shell removed the trial's data dir"
