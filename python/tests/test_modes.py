"""Client modes, server models and the Redis comparison, on slices of the real results
(benchmarks/sample/*-sample.jsonl: trial 0 of each configuration, pair 0 of the Redis run)."""

from matplotlib.figure import Figure

from conftest import REPO
from dbf0lab import analysis, figures

SAMPLES = REPO / "benchmarks" / "sample"


def test_modes_table_starts_each_workload_at_the_seeds_v1():
    table = analysis.modes_table(analysis.load([SAMPLES / "steps-sample.jsonl"]))
    assert len(table) == 18  # 6 steps x 3 workloads
    for workload in ("read-heavy", "balanced", "write-heavy"):
        rows = table[table["workload"] == workload]
        assert list(rows["client mode"]) == [
            "v1 per-op, client closes first",
            "v1 per-op, server closes first",
            "v2 persistent",
            "v2 pipelined, depth 128",
            "v2 pipelined, depth 128, 2 selector threads",
            "v2 batched, 1000 per frame",
        ]
        # the sample holds one trial of each configuration: no ratio rests on one trial
        assert set(rows["× first"]) == {"— (1 trial)"}
    assert table["p99 µs"].str.len().min() > 0  # every mode reports its p99
    full = analysis.modes_table(
        analysis.load([REPO / "benchmarks" / "reference" / "steps-vm.jsonl"])
    )
    for workload in ("read-heavy", "balanced", "write-heavy"):
        rows = full[full["workload"] == workload]
        assert rows.iloc[0]["× first"] == "1.0×" and rows["× first"].str.endswith("×").all()


def test_client_modes_figure_has_one_group_per_step_and_skips_thread_figures():
    data = analysis.load([SAMPLES / "steps-sample.jsonl"])
    fig = figures.client_modes(data)
    assert isinstance(fig, Figure)
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels[0].startswith("v1 per-op") and labels[-1].startswith("v2 batched")
    assert figures.best_configurations(data) is None and figures.server_models(data) is None


def test_server_models_figure_for_the_models_preset():
    data = analysis.load([SAMPLES / "models-sample.jsonl"])
    assert figures.client_modes(data) is None  # one client mode: nothing to compare
    fig = figures.server_models(data)
    bars = fig.axes[0].patches
    # pool, virtual and nio at 16 connections, virtual and nio at 1000, each of the latter four
    # also with the clients on virtual threads and with one selector thread: hatched and labelled
    assert len(bars) == 13
    assert [b.get_hatch() for b in bars].count("//") == 4 and [b.get_hatch() for b in bars].count(
        ".."
    ) == 4
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert sum("virtual clients" in label for label in labels) == 4
    assert sum("selector client" in label for label in labels) == 4


def test_step_labels_name_virtual_client_threads():
    assert analysis.step_label({"client_mode": "persistent"}) == "v2 persistent"
    assert (
        analysis.step_label({"client_mode": "persistent", "client_thread_kind": "platform"})
        == "v2 persistent"
    )
    assert (
        analysis.step_label(
            {"client_mode": "pipelined", "pipeline": 16, "client_thread_kind": "virtual"}
        )
        == "v2 pipelined, depth 16, virtual client threads"
    )
    assert (
        analysis.step_label({"client_mode": "persistent", "selector_threads": 0}) == "v2 persistent"
    )
    assert (
        analysis.step_label({"client_mode": "persistent", "selector_threads": 2})
        == "v2 persistent, 2 selector threads"
    )


def test_redis_comparison_from_a_real_pair():
    frame = analysis.load_redis_comparison([SAMPLES / "redis-compare-sample.jsonl"])
    summary = analysis.redis_summary(frame)
    assert set(summary["test"]) == {"c50", "c50-P16", "c1"} and set(summary["command"]) == {
        "SET",
        "GET",
    }
    assert (summary["pairs"] == 1).all() and (summary["ratio"] > 0).all()
    fig = figures.redis_comparison(frame)
    assert len(fig.axes[0].patches) == 2 * len(summary)


def test_maps_figure_climbs_the_ladder_with_a_bar_per_key_distribution():
    # benchmarks/sample/maps-sample.jsonl: trial 0 of each configuration of
    # benchmarks/reference/maps-vm.jsonl
    data = analysis.load([SAMPLES / "maps-sample.jsonl"])
    fig = figures.maps(data)
    assert isinstance(fig, Figure)
    panels = [ax for ax in fig.axes if ax.get_xticklabels()]
    assert [ax.get_title() for ax in panels] == ["read-heavy", "write-heavy"]
    for ax in panels:
        assert [t.get_text() for t in ax.get_xticklabels()] == list(figures.MAP_LADDER)
        bars = ax.patches
        assert len(bars) == 2 * 5  # uniform and zipfian for each of the five maps
    # the first panel's first bar is hashtable's uniform read-heavy median, the sample's one trial
    summary = analysis.summarize(data)
    row = summary[
        (summary["map_type"] == "hashtable")
        & (summary["key_dist"] == "uniform")
        & (summary["workload"] == "read-heavy")
    ]
    assert panels[0].patches[0].get_height() == row["median"].iloc[0]
    # the other figures stand aside: one server model and one client mode, but five maps
    assert figures.server_models(data) is None and figures.client_modes(data) is None


def test_maps_figure_is_none_for_other_presets():
    assert figures.maps(analysis.load([SAMPLES / "models-sample.jsonl"])) is None
    assert figures.maps(analysis.load([SAMPLES / "steps-sample.jsonl"])) is None
