"""The scaling figures and the per-node table of trials with roles (--servers/--clients), on a
results file written here, whose numbers are known."""

import json

import pytest
from matplotlib.figure import Figure

from conftest import SAMPLE
from dbf0lab import analysis, analyze_cli, figures, utilisation

BASE = {
    "server_threads": 1,
    "map_type": "concurrent",
    "key_length": 16,
    "value_length": 64,
    "set_frac": 0.1,
    "seconds": 2,
    "server_model": "nio",
    "client_mode": "batched",
    "batch": 100,
}


def trial(clients: int, shards: int, index: int, per_client: list[float]) -> list:
    """A merged record as cluster.merge writes it: the counts cover 2 s, the rate is the sum of the
    clients' own rates (deliberately not counts / seconds, to show which one is read)."""
    spec = {**BASE, "client_threads": clients, "shards": shards, "trial_index": index}
    nodes = {
        f"c{i}": {"role": "client", "ops_per_sec": r, "p99_us": 100 * (i + 1), "set": 1, "get": 9}
        for i, r in enumerate(per_client)
    }
    nodes.update(
        {f"s{i}": {"role": "server", "servers": [f"10.0.0.{i}:9000"]} for i in range(shards)}
    )
    result = {
        "set": 10,
        "get": 90,
        "errors": 0,
        "seconds": 2.0,
        "ops_per_sec": sum(per_client),
        "p99_us": 250,
        "shards": shards,
        "client_hosts": len(per_client),
        "servers": [],
        "nodes": nodes,
        "host": "cluster",
    }
    return [spec, result]


# ops/s per (client threads, shards): the median of three trials is the middle value
RATES = {(1, 1): 100.0, (4, 1): 300.0, (1, 2): 180.0, (4, 2): 560.0, (1, 3): 240.0, (4, 3): 800.0}


@pytest.fixture
def scaling(tmp_path):
    path = tmp_path / "scaling.jsonl"
    lines = []
    for (clients, shards), rate in RATES.items():
        for index, factor in enumerate((0.9, 1.0, 1.2)):
            lines.append(trial(clients, shards, index, [rate * factor / 2, rate * factor / 2]))
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return analysis.load([path])


def test_the_clients_summed_rates_are_the_trials_throughput(scaling):
    summary = analysis.summarize(scaling)
    got = {(r.client_threads, r.shards): r.median for r in summary.itertuples()}
    assert got == pytest.approx(RATES)


def test_scaling_curve_has_a_line_per_shard_count_through_the_medians(scaling):
    fig = figures.scaling_clients(scaling)
    assert isinstance(fig, Figure)
    lines = {
        line.get_label(): (list(line.get_xdata()), list(line.get_ydata()))
        for line in fig.axes[0].lines
    }
    assert set(lines) == {"1 server", "2 servers", "3 servers"}
    assert lines["2 servers"] == ([1, 4], pytest.approx([180.0, 560.0]))


def test_shards_figure_has_a_line_per_client_count_and_the_linear_ideal(scaling):
    fig = figures.scaling_shards(scaling)
    ax = fig.axes[0]
    measured = {c.get_label(): list(c.lines[0].get_ydata()) for c in ax.containers}
    assert measured == {
        "1 client thr": pytest.approx([100.0, 180.0, 240.0]),
        "4 client thr": pytest.approx([300.0, 560.0, 800.0]),
    }
    (ideal,) = [line for line in ax.lines if line.get_label().startswith("linear")]
    assert list(ideal.get_ydata()) == pytest.approx(
        [300.0, 600.0, 900.0]
    )  # 1 shard's median x shards


def test_scaling_figures_stay_out_of_other_results_and_others_out_of_these(scaling):
    plain = analysis.load([SAMPLE])
    assert figures.scaling_clients(plain) is None and figures.scaling_shards(plain) is None
    assert (
        figures.server_models(scaling) is None
    )  # one server model, but the scaling figures show these
    assert {n for n, make in figures.FIGURES.items() if make(scaling) is not None} == {
        "scaling-clients",
        "scaling-shards",
    }


def test_report_lists_every_node_and_the_total(scaling):
    table = analysis.cluster_table(scaling)
    one = table[table["configuration"] == "client_threads 4, shards 3"]
    assert list(one["node"]) == ["c0", "c1", "s0", "s1", "s2", "**total**"]
    assert list(one["role"])[:3] == ["client", "client", "server"]
    assert one.iloc[-1]["ops/s (median)"] == "800" and one.iloc[0]["ops/s (median)"] == "400"
    assert "### Trials with servers and clients on separate hosts" in analyze_cli.report(scaling)
    assert analysis.cluster_table(analysis.load([SAMPLE])).empty


def test_a_hot_node_is_flagged_only_for_the_trials_it_generated_load_in(tmp_path):
    hot = {metric: 1.0 for metric in utilisation.METRICS} | {
        "cpu_user_pct": 90.0,
        "cpu_busy_pct": 95.0,
    }
    lines = [trial(1, 1, 0, [10.0]), trial(1, 1, 1, [10.0])]
    lines[0][1]["utilisation"] = {"n1": utilisation.summarize([hot, hot], "server")}
    lines[1][1]["utilisation"] = {"n1": utilisation.summarize([hot, hot], "client")}
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    table = analysis.utilisation_table(analysis.load([path]))
    assert table.iloc[0]["note"].startswith("1 trial(s) above 90% CPU")


def test_the_committed_scaling_sample_draws_both_figures():
    """benchmarks/sample/scaling-sample.jsonl: trial 0 of each configuration of the loopback run
    in benchmarks/reference/scaling-vm.jsonl (what the notebook's headless test reads)."""
    sample = SAMPLE.parent / "scaling-sample.jsonl"
    reference = SAMPLE.parents[1] / "reference" / "scaling-vm.jsonl"
    assert set(sample.read_text().splitlines()) <= set(reference.read_text().splitlines())
    data = analysis.load([sample])
    assert len(data.trials) == 12 and data.trials["shards"].tolist().count(3) == 4
    assert figures.scaling_clients(data) is not None and figures.scaling_shards(data) is not None
