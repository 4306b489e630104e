"""The `cluster` sweep: trials whose servers form one dbf0 cluster (--cluster-nodes, ports fixed
before any node starts) and whose clients drive it with `bench --cluster <one node>`."""

import pytest

from conftest import run_script
from dbf0lab import cluster, results
from dbf0lab.hosts import LocalHost, SshHost, SshSettings
from test_cluster import GRID


def test_cluster_members_get_their_ports_before_they_start():
    a, b = LocalHost("java"), SshHost("u@b", SshSettings())
    members = cluster.cluster_members(cluster.Layout([a, b], [a], port=7000), 3)
    assert [(h.label, p, m) for h, p, m in members] == [
        ("local", 7000, "127.0.0.1:7000"),
        ("u@b", 7001, "b:7001"),  # a port of its own on every host: a node finds itself by it
        ("local", 7002, "127.0.0.1:7002"),
    ]
    free = cluster.cluster_members(cluster.Layout([a], [a]), 3)
    assert len({p for _, p, _ in free}) == 3 and all(p > 0 for _, p, _ in free)
    with pytest.raises(cluster.ClusterError, match="needs --server-port"):
        cluster.cluster_members(cluster.Layout([b], [a]), 1)


def test_the_cluster_preset_starts_a_cluster_and_drives_it_through_one_node(tmp_path):
    done = run_script(
        "run_benchmarks.py", "--preset", "cluster", "--dry-run", "--out", str(tmp_path / "r.jsonl")
    )
    assert done.returncode == 0, done.stderr
    assert "shards: 1, 2, 3" in done.stdout and "cluster: True" in done.stdout
    assert "--cluster-nodes <all>" in done.stdout and "--cluster <one node>" in done.stdout


@pytest.mark.slow
def test_a_local_cluster_trial_merges_its_clients_and_records_each_node(tmp_path, jar):
    out = tmp_path / "r.jsonl"
    done = run_script(
        "run_benchmarks.py",
        *GRID,
        "--shards",
        "2",
        "--cluster-mode",
        "true",
        "--jar",
        str(jar),
        "--out",
        str(out),
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    ((spec, result),) = results.read(out).trials
    assert spec["cluster"] is True and result["cluster"] is True
    assert result["shards"] == 2 and result["errors"] == 0 and result["set"] > 0
    assert len(result["nodes"]["local"]["servers"]) == 2
    assert "local" in result["utilisation"]
