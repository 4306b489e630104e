"""Stalled trials: the one rule (results.stall_reason), the analysis leaving them out with a
warning that names them, and the sweep warning as they finish."""

import json

from tqdm import tqdm

from dbf0lab import analysis, results, sweep


def spec(i, s=4, c=8, frac=0.5):
    return {
        "server_threads": s,
        "client_threads": c,
        "map_type": "concurrent",
        "key_length": 16,
        "value_length": 64,
        "set_frac": frac,
        "seconds": 10,
        "trial_index": i,
    }


def result(ops, max_us=20_000):
    return {"set": ops * 5, "get": ops * 5, "seconds": 10.0, "max_us": max_us}


def test_a_trial_far_below_its_twins_is_stalled():
    assert (
        results.stall_reason(191, 30_000, [(7_392, 25_000)])
        == "191 ops/s is below 1/5 of the median 7,392 of its configuration's other 1 trial"
    )
    assert (
        results.stall_reason(1_600, 30_000, [(7_392, None), (8_000, None)]) is None
    )  # above a fifth
    assert results.stall_reason(191, None, []) is None  # nothing to compare with


def test_a_second_long_operation_is_a_stall_unless_every_twin_shares_it():
    reason = results.stall_reason(7_000, 1_032_000, [(7_392, 25_000), (7_100, 30_000)])
    assert reason.startswith("its slowest operation took 1,032 ms (>= 500 ms")
    assert results.stall_reason(7_000, 1_032_000, []) is not None
    # per-op connections on a pool: every trial waits out a SYN retransmit; that is the
    # configuration
    assert results.stall_reason(7_000, 1_032_000, [(7_392, 1_028_000), (7_100, 1_031_000)]) is None
    assert results.stall_reason(7_000, results.STALL_MAX_US - 1, []) is None


def write(path, lines):
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_the_analysis_names_a_stalled_trial_and_leaves_it_out(tmp_path):
    path = write(
        tmp_path / "demo.jsonl",
        [
            [spec(0), result(7_392)],
            [spec(1), result(191, 1_000_000)],
            [spec(2), result(7_000)],
            [spec(0, 1, 1), result(900)],
        ],
    )
    warnings = []
    data = analysis.load([path], warn=warnings.append)
    assert len(warnings) == 1
    assert warnings[0].startswith("warning: trial 1 of demo (server_threads 4, client_threads 8,")
    assert "looks stalled" in warnings[0] and "left out of the medians and figures" in warnings[0]
    assert sorted(data.trials["ops_per_sec"].round().tolist()) == [900, 7_000, 7_392]
    assert data.outliers["trial_index"].tolist() == [1]
    assert "191 ops/s" in data.outliers["outlier"][0]
    summary = analysis.summarize(data)
    assert summary[summary["server_threads"] == 4]["median"].item() == (7_392 + 7_000) / 2

    kept = analysis.load([path], keep_outliers=True, warn=warnings.append)
    assert len(kept.trials) == 4 and warnings[-1].endswith("kept, as asked")


def test_the_only_trial_of_a_configuration_is_named_but_kept(tmp_path):
    path = write(tmp_path / "one.jsonl", [[spec(0), result(5_000, 900_000)]])
    warnings = []
    data = analysis.load([path], warn=warnings.append)
    assert len(data.trials) == 1
    assert warnings and warnings[0].endswith("kept: the only trial of its configuration")


def test_the_sweep_warns_when_a_trial_looks_stalled(capsys):
    outcome = sweep.Outcome()
    bar = tqdm(disable=True)
    for i, r in enumerate([result(7_392), result(191)]):
        outcome.ran += 1
        sweep._report(bar, outcome, spec(i), {**r, "host": "local"}, 2)
    err = capsys.readouterr().err
    first, second = err.strip().splitlines()
    assert "looks stalled" not in first
    assert "191 ops/s; warning: looks stalled: 191 ops/s is below 1/5 of the median 7,392" in second
    assert outcome.stalled == 1 and outcome.warned == 1


def test_the_analyze_report_lists_the_stalled_trials(tmp_path):
    from dbf0lab import analyze_cli

    path = write(
        tmp_path / "demo.jsonl",
        [[spec(0), result(7_392)], [spec(1), result(191)], [spec(2), result(7_000)]],
    )
    text = analyze_cli.report(analysis.load([path], warn=lambda _: None), 1)
    assert "Trials that look stalled: 1" in text
    assert "- demo #1: 191 ops/s is below 1/5" in text
