"""The durability study's table, figure and report, on hand-made results (counts chosen, not
measured) shaped like the Benchmark's JSON with a log."""

import json

import pytest
from matplotlib.figure import Figure

from dbf0lab import analysis, analyze_cli, figures

# ops/s per policy for (client mode, workload); 3 trials each, the middle one the median
OPS = {
    ("persistent", 0.9): {"none": 20_000, "never": 15_000, "interval": 14_000, "always": 2_000},
    ("pipelined", 0.9): {"none": 60_000, "never": 40_000, "interval": 40_000, "always": 8_000},
}


def spec(mode, frac, policy, i):
    return {
        "server_threads": 2,
        "client_threads": 16,
        "map_type": "concurrent",
        "key_length": 16,
        "value_length": 64,
        "set_frac": frac,
        "seconds": 2,
        "server_model": "virtual",
        "client_mode": mode,
        "warmup": 1,
        "fsync": policy,
        "trial_index": i,
    }


def result(ops, policy, i):
    r = {
        "set": ops,
        "get": ops,
        "seconds": 2.0,
        "p50_us": 100 * (i + 1),
        "p99_us": 1000 * (i + 1),
        "client_mode": "x",
        "server_model": "virtual",
    }
    if policy != "none":
        forced = {"never": 0, "interval": 10 * (i + 1), "always": 500 * (i + 1)}[policy]
        r.update(
            fsync=policy,
            wal_records=ops * 2,
            wal_fsyncs=forced * 2,
            wal_records_forced=ops * 2,
            wal_fsyncs_per_sec=float(forced),
            wal_records_per_fsync=(ops / forced) if forced else None,
        )
    return r


@pytest.fixture
def durability(tmp_path):
    lines = []
    for (mode, frac), policies in OPS.items():
        for policy, ops in policies.items():
            for i, scale in enumerate((0.5, 1.0, 1.5)):
                r = result(int(ops * scale), policy, i)
                r["client_mode"] = mode
                lines.append([spec(mode, frac, policy, i), r])
    path = tmp_path / "durability.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return analysis.load([path])


def test_summary_sets_each_policy_beside_no_log(durability):
    s = analysis.durability_summary(durability)
    assert len(s) == 8
    assert list(s["fsync"][:4]) == ["none", "never", "interval", "always"]
    assert list(s["client_mode"][::4]) == ["persistent", "pipelined"]
    row = s[(s["client_mode"] == "persistent") & (s["fsync"] == "always")].iloc[0]
    assert row["median"] == pytest.approx(2_000) and row["vs_none"] == pytest.approx(0.1)
    assert row["p50_us"] == 200 and row["p99_us"] == 2000  # medians over trials
    assert row["wal_fsyncs_per_sec"] == 1000
    never = s[(s["client_mode"] == "persistent") & (s["fsync"] == "never")].iloc[0]
    assert (
        never["wal_fsyncs_per_sec"] == 0
        and never["wal_records_per_fsync"] != never["wal_records_per_fsync"]
    )


def test_table_and_report_show_the_policies_not_the_thread_table(durability):
    table = analysis.durability_table(durability)
    assert list(table.columns) == [
        "client mode",
        "server",
        "workload",
        "fsync",
        "median ops/s",
        "IQR ops/s",
        "× no log",
        "p50 µs",
        "p99 µs",
        "fsyncs/s",
        "records/fsync",
        "trials",
    ]
    first = table.iloc[3]
    assert (first["fsync"], first["median ops/s"], first["× no log"], first["server"]) == (
        "always",
        "2,000",
        "0.10",
        "virtual (2 thr)",
    )
    assert table.iloc[0]["fsyncs/s"] == "" and table.iloc[1]["records/fsync"] == ""
    text = analyze_cli.report(durability)
    assert "### The write-ahead log: each fsync policy side by side" in text
    assert "| persistent | virtual (2 thr) | write-heavy | always | 2,000 |" in text
    assert "Best thread configuration" not in text and "Client modes, side by side" not in text


def test_durability_figure_has_a_bar_per_policy_and_group_and_replaces_the_mode_figures(durability):
    fig = figures.durability(durability)
    assert isinstance(fig, Figure)
    throughput, latency, fsyncs, groups = fig.axes[:4]
    assert len(throughput.patches) == 4 * 2  # 4 policies x 2 groups
    assert [t.get_text() for t in throughput.get_legend().get_texts()] == [
        "none",
        "never",
        "interval",
        "always",
    ]
    assert [t.get_text() for t in throughput.get_xticklabels()] == [
        "persistent\nvirtual\nwrite-heavy",
        "pipelined\nvirtual\nwrite-heavy",
    ]
    # only the policies that forced the log have fsync bars: interval and always
    assert len(fsyncs.patches) == 2 * 2 and len(groups.patches) == 2 * 2
    assert throughput.get_yscale() == "log"
    for other in (figures.client_modes, figures.server_models, figures.best_configurations):
        assert other(durability) is None
    assert "durability" in figures.FIGURES


def test_no_durability_figure_or_table_without_the_fsync_axis(tmp_path):
    path = tmp_path / "plain.jsonl"
    s = {k: v for k, v in spec("persistent", 0.9, "none", 0).items() if k != "fsync"}
    path.write_text(json.dumps([s, {"set": 1, "get": 1}]) + "\n")
    data = analysis.load([path])
    assert figures.durability(data) is None and analysis.durability_table(data).empty


def test_the_redis_figure_names_the_policy_of_an_aof_comparison():
    import pandas as pd

    rows = [
        {"server": server, "policy": policy, "test": "c50", "command": "SET", "pair": 0, "rps": rps}
        for policy, pair in (("always", (2_000, 3_000)), ("no", (30_000, 20_000)))
        for server, rps in zip(("redis", "dbf0"), pair)
    ]
    fig = figures.redis_comparison(pd.DataFrame(rows))
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels == ["appendfsync always\nc50\nSET", "appendfsync no\nc50\nSET"]
    assert len(fig.axes[0].patches) == 4


def test_the_real_sample_draws_the_figure_and_the_table():
    """benchmarks/sample/durability-sample.jsonl: trial 0 of every configuration of the committed
    durability-vm.jsonl, line for line (the notebook's test input)."""
    from conftest import REPO

    sample = REPO / "benchmarks" / "sample" / "durability-sample.jsonl"
    committed = set(
        (REPO / "benchmarks" / "reference" / "durability-vm.jsonl").read_text().splitlines()
    )
    assert set(sample.read_text().splitlines()) <= committed
    data = analysis.load([sample])
    table = analysis.durability_table(data)
    assert len(table) == 32 and set(table["fsync"]) == {"none", "never", "interval", "always"}
    assert (table["trials"] == 1).all()
    fig = figures.durability(data)
    assert len(fig.axes[0].patches) == 4 * 8  # 4 policies x (2 modes x 2 servers x 2 workloads)
