"""The analysis: unit checks on tiny hand-written inputs, then the 2020 study's raw file."""

import json

import pytest

from conftest import REFERENCE_2020
from dbf0lab import analysis


def write(path, lines):
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def spec(s, c, frac=0.1, m="concurrent", k=16, i=0, seconds=10):
    return {
        "server_threads": s,
        "client_threads": c,
        "map_type": m,
        "key_length": k,
        "value_length": 64,
        "set_frac": frac,
        "seconds": seconds,
        "trial_index": i,
    }


@pytest.fixture
def tiny(tmp_path):
    """Hand-made counts (not measurements): 1x1 gives 100..300 ops/s, 4x8 1000..5000 and one
    timed-out trial, 2x2 one trial of 9000."""
    lines = [{"kind": "machine", "host": "local", "cpu_model": "Test CPU", "cores": 2}]
    for i, ops in enumerate([100, 200, 300]):
        lines.append([spec(1, 1, i=i), {"set": ops * 10 // 2, "get": ops * 10 // 2}])
    for i, ops in enumerate([1000, 2000, 4000, 5000]):
        lines.append(
            [spec(4, 8, i=i), {"set": 0, "get": ops * 5, "seconds": 5.0}]
        )  # measured seconds win
    lines.append([spec(4, 8, i=4), {"error": "timed out", "exit_code": None, "host": "local"}])
    lines.append([spec(2, 2, i=0), {"set": 45000, "get": 45000}])  # one trial only: incomplete
    return write(tmp_path / "tiny.jsonl", lines)


def test_ops_per_sec_is_set_plus_get_over_seconds(tiny):
    data = analysis.load([tiny])
    one = data.trials[(data.trials["server_threads"] == 1)].sort_values("trial_index")
    assert one["ops_per_sec"].tolist() == [100, 200, 300]
    four = data.trials[(data.trials["server_threads"] == 4)].sort_values("trial_index")
    assert four["ops_per_sec"].tolist() == [1000, 2000, 4000, 5000]


def test_ops_per_sec_counts_inserts_and_read_modify_writes(tmp_path):
    # YCSB D's inserts and F's read-modify-writes are counted by the Benchmark apart from set and
    # get; the analysis must count them too, or F would show only its reads.
    path = write(
        tmp_path / "keyed.jsonl",
        [
            [
                dict(spec(2, 16, frac=0.5), ycsb_workload="F"),
                {"set": 0, "get": 500, "insert": 0, "read_modify_write": 500, "seconds": 2.0},
            ],
            [
                dict(spec(2, 16, frac=0.5), ycsb_workload="D"),
                {"set": 0, "get": 950, "insert": 50, "read_modify_write": 0, "seconds": 1.0},
            ],
        ],
    )
    trials = analysis.load([path]).trials.set_index("ycsb_workload")
    assert trials.loc["F", "ops_per_sec"] == 500
    assert trials.loc["D", "ops_per_sec"] == 1000


def test_summary_has_median_and_quartiles_and_counts_failures(tiny):
    summary = analysis.summarize(analysis.load([tiny]))
    row = summary[summary["server_threads"] == 4].iloc[0]
    assert (row["n"], row["failed"], row["median"]) == (4, 1, 3000)
    assert (row["q25"], row["q75"]) == (1750, 4250)  # linear interpolation, as numpy's default
    assert row["workload"] == "read-heavy" and row["key_space"] == "16 B keys"


def test_best_configuration_and_threading_impact(tiny):
    summary = analysis.summarize(analysis.load([tiny]))
    impact = analysis.threading_impact(summary)
    assert len(impact) == 1
    best = impact.iloc[0]
    assert (best["server_threads"], best["client_threads"], best["median"]) == (2, 2, 9000)
    impact = analysis.threading_impact(
        summary, min_trials=2
    )  # the one-trial configuration drops out
    best = impact.iloc[0]
    assert (best["server_threads"], best["client_threads"], best["median"]) == (4, 8, 3000)
    assert best["single_median"] == 200 and best["speedup"] == 15


def test_incomplete_configurations_name_their_missing_trials(tiny):
    gaps = analysis.incomplete(analysis.load([tiny]))
    by_threads = {(r.server_threads, r.client_threads): r for r in gaps.itertuples()}
    assert set(by_threads) == {(1, 1), (2, 2)}  # 4x8 has the most trials (4), which sets the bar
    assert by_threads[(1, 1)].missing_trials == [3]
    assert by_threads[(2, 2)].missing_trials == [1, 2, 3]


def test_failures_and_machines_are_kept_apart(tiny):
    data = analysis.load([tiny])
    assert data.failures["error"].tolist() == ["timed out"]
    assert data.machines["cpu_model"].tolist() == ["Test CPU"]


def test_each_file_is_its_own_dataset_unless_pooled(tiny, tmp_path):
    other = write(tmp_path / "other.jsonl", [[spec(1, 1), {"set": 1, "get": 999}]])
    separate = analysis.summarize(analysis.load([tiny, other]))
    assert set(separate["dataset"]) == {"tiny", "other"}
    pooled = analysis.summarize(analysis.load([tiny, other], pool=True))
    assert pooled[pooled["server_threads"] == 1]["n"].tolist() == [4]


def test_markdown_table():
    import pandas as pd

    text = analysis.markdown(pd.DataFrame({"map": ["concurrent"], "ops/s": ["61,823"]}))
    assert text.splitlines() == ["| map | ops/s |", "|---|---:|", "| concurrent | 61,823 |"]


def test_the_2020_file_loads_unchanged():
    data = analysis.load([REFERENCE_2020])
    assert len(data.trials) == 2539 and data.failures.empty and not data.bad_lines


def test_reproduces_the_2020_studys_published_medians():
    """Published for c5n.2xlarge, 10 trials x 10 s, best thread setting per row (median ops/s):
    read-heavy 47k / 56k / 62k for 1 / 2 / 16-byte keys, balanced about 17-18k, write-heavy about
    11k; one client and one server thread about 20k / 14.6k / 8.8k."""
    impact = analysis.threading_impact(analysis.summarize(analysis.load([REFERENCE_2020])))
    row = impact.set_index(["workload", "map_type", "key_length"])
    best = row.loc[("read-heavy", "concurrent", 16)]
    assert (best["server_threads"], best["client_threads"]) == (16, 32)
    assert best["median"] == pytest.approx(61_823, abs=1)
    for key, published in [(1, 47_000), (2, 56_000), (16, 62_000)]:
        assert row.loc[("read-heavy", "concurrent", key), "median"] == pytest.approx(
            published, rel=0.02
        )
    assert row.xs("balanced")["median"].between(16_000, 18_500).all()
    assert row.xs("write-heavy")["median"].between(10_500, 11_500).all()
    for workload, published in [
        ("read-heavy", 20_000),
        ("balanced", 14_600),
        ("write-heavy", 8_800),
    ]:
        assert row.loc[(workload, "concurrent", 16), "single_median"] == pytest.approx(
            published, rel=0.02
        )


def test_finds_the_2020_files_incomplete_configurations():
    gaps = analysis.incomplete(analysis.load([REFERENCE_2020]))
    assert len(gaps) == 142 and (gaps["expected"] == 10).all()
    assert (gaps["n"] < 10).all()


def test_redis_summary_is_the_median_of_the_pair_ratios(tmp_path):
    # Hand-made rates (not measurements): ratios per pair 0.5, 1.0, 0.5.
    rows = []
    for pair, (redis, dbf0) in enumerate([(100, 50), (100, 100), (200, 100)]):
        rows += [
            {"server": "redis", "test": "c50", "command": "SET", "pair": pair, "rps": redis},
            {"server": "dbf0", "test": "c50", "command": "SET", "pair": pair, "rps": dbf0},
        ]
    rows.append(
        {"server": "redis", "test": "c1", "command": "GET", "pair": 0, "rps": 10}
    )  # no partner: ignored
    summary = analysis.redis_summary(
        analysis.load_redis_comparison([write(tmp_path / "r.jsonl", rows)])
    )
    first = summary.iloc[0]
    assert (first["test"], first["command"]) == ("c50", "SET")
    assert first["ratio"] == 0.5
    assert (first["redis_rps"], first["dbf0_rps"], first["pairs"]) == (100, 100, 3)
    assert len(summary) == 1
