"""The nemesis's figures (timeline, recovery), its leader settling and election count on fake
clusters, and the sweep preset replication, all without starting a server."""

from __future__ import annotations

import json

from matplotlib.patches import Polygon, Rectangle

from dbf0lab import nemesis_figures as nf
from dbf0lab import replication_sweep
from dbf0lab.nemesis_nodes import Cluster, Dbf0Cluster
from dbf0lab.sweep_cli import main as sweep_main


def campaign(system: str, faults: list[tuple[str, float, float, int | None]]) -> dict:
    writes = [3] * 100
    for _, at, _, rec in faults:
        for b in range(int(at * 10), int(at * 10) + (rec or 0) // 100):
            writes[b] = 0
    return {
        "system": system,
        "name": f"{system}-000",
        "ops_per_sec": 42.0,
        "lost_writes": 0,
        "verdict": "linearizable",
        "timeline": {"bin_ms": 100, "writes": writes, "reads": [2] * 100},
        "faults": [
            {"kind": k, "at_s": at, "healed_s": healed, "recovery_ms": rec}
            for k, at, healed, rec in faults
        ],
    }


def test_the_timeline_shades_each_fault_and_draws_the_operations():
    c = campaign("dbf0", [("kill", 2.0, 5.0, 800), ("pause", 6.0, 9.0, 1500)])
    ax = nf.timeline(c).axes[0]
    spans = [p for p in ax.patches if isinstance(p, (Polygon, Rectangle))]
    assert len(spans) == 2  # one shaded span per fault
    writes, reads = ax.lines[0], ax.lines[1]
    assert list(writes.get_ydata()) == c["timeline"]["writes"]
    assert list(reads.get_ydata()) == c["timeline"]["reads"]
    labels = " ".join(t.get_text() for t in ax.texts)
    assert "kill" in labels and "0.8 s" in labels and "1.5 s" in labels


def test_recovery_marks_the_median_of_each_kind_and_system(tmp_path):
    lines = [
        campaign("dbf0", [("kill", 2, 5, 600), ("kill", 6, 9, 900)]),
        campaign("dbf0", [("kill", 2, 5, 2400), ("pause", 6, 9, None)]),
        campaign("redis", [("kill", 2, 5, 3000)]),
    ]
    path = tmp_path / "campaigns.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + '{"error": "no cluster"}\n')
    read = nf.read_campaigns([path])
    assert len(read) == 3  # the failed campaign's line is left out
    by = nf.recovery_by_kind(read)
    assert by == {("dbf0", "kill"): [0.6, 0.9, 2.4], ("redis", "kill"): [3.0]}
    ax = nf.recovery(read).axes[0]
    medians = sorted(float(t.get_text()) for t in ax.texts)
    assert medians == [0.9, 3.0]
    assert nf.recovery([campaign("dbf0", [])]) is None


class FakeCluster(Dbf0Cluster):
    """Leaders read from a script, one reading per call."""

    def __init__(self, readings):
        Cluster.__init__(self, [], [])
        self.readings = list(readings)

    def shards(self):
        return [[0, 1, 2]]

    def leader(self, shard):
        return self.readings.pop(0) if len(self.readings) > 1 else self.readings[0]


def test_settle_waits_until_the_leader_stops_changing(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr("dbf0lab.nemesis_nodes.time.monotonic", lambda: clock[0])
    monkeypatch.setattr(
        "dbf0lab.nemesis_nodes.time.sleep", lambda s: clock.__setitem__(0, clock[0] + s)
    )
    c = FakeCluster([None, 1, 2, 2, 0] + [0] * 50)
    c.settle(1.0, deadline=30.0)
    # The last change (to 0) came at 0.4 s; then 1 s of the same leader.
    assert 1.4 <= clock[0] <= 1.6
    clock[0] = 0.0
    FakeCluster([None]).settle(1.0, deadline=3.0)  # never a leader: gives up at the deadline
    assert 3.0 <= clock[0] <= 3.2
    clock[0] = 0.0
    Cluster([], []).settle(1.0, deadline=3.0)  # Redis: nothing to wait for
    assert clock[0] == 0.0


def test_elections_count_each_shard_and_term_once(tmp_path):
    c = Dbf0Cluster(
        "java", tmp_path / "j.jar", ["127.0.0.1"] * 3, 7430, 2, tmp_path, [[]] * 3, 300, 50
    )
    logs = [
        "shard 0: this node leads it now (term 1)\nshard 0: node 1 leads it now (term 3)\n",
        "shard 0: node 0 leads it now (term 1)\nshard 0: this node leads it now (term 3)\n",
        "shard 0: node 1 leads it now (term 3)\n",
    ]
    for n, text in zip(c.nodes, logs):
        n.log.write_text(text)
    assert c.elections() == 2


def test_the_replication_preset_lists_chapter_8s_scripts(tmp_path, capsys):
    out = tmp_path / "rep"
    assert sweep_main(["--preset", "replication", "--dry-run", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    for name, _, argv in replication_sweep.steps(out):
        assert f"{name}: {' '.join(argv)}" in printed
    assert "--system redis" in printed and str(out / "nemesis-dbf0") in printed
    assert not out.exists()  # a dry run starts nothing and writes nothing


def test_the_replication_preset_refuses_remote_hosts(capsys):
    assert sweep_main(["--preset", "replication", "--dry-run", "--hosts", "a,b"]) == 2
    assert "this host only" in capsys.readouterr().err
