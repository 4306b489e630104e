"""Stalled trials and what explains them: the one rule (outliers.py), the label the host's TCP
counters earn a trial whose slowest operation waited on a SYN retry, the analysis keeping labelled
trials and leaving out the stalls nothing explains, the sweep's words for both, and the
headlines and gaps that must not rest on them."""

import json
import re

import pytest
from tqdm import tqdm

from conftest import REFERENCE_2020
from dbf0lab import analysis, analyze_cli, figures, outlier_report, outliers, sweep

QUIET = {"listen_overflows": 0, "listen_drops": 0, "syn_retrans": 0}
OVERFLOW = {"listen_overflows": 2, "listen_drops": 2, "syn_retrans": 2}


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


def result(ops, max_us=20_000, tcp=None):
    out = {"set": ops * 5, "get": ops * 5, "seconds": 10.0, "max_us": max_us}
    return out if tcp is None else {**out, "tcp": tcp}


def write(path, lines):
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


# The rule -------------------------------------------------------------------------------------


def test_a_trial_far_below_its_twins_is_stalled():
    assert (
        outliers.stall_reason(191, 30_000, [(7_392, 25_000)])
        == "191 ops/s is below 1/5 of the median 7,392 of its configuration's other 1 trial"
    )
    assert (
        outliers.stall_reason(1_600, 30_000, [(7_392, None), (8_000, None)]) is None
    )  # above a fifth
    assert outliers.stall_reason(191, None, []) is None  # nothing to compare with


def test_a_second_long_operation_is_a_stall_unless_every_twin_shares_it():
    reason = outliers.stall_reason(7_000, 1_032_000, [(7_392, 25_000), (7_100, 30_000)])
    assert reason.startswith("its slowest operation took 1,032 ms (>= 500 ms")
    assert outliers.stall_reason(7_000, 1_032_000, []) is not None
    # every trial of the configuration waits as long: that is the configuration
    assert outliers.stall_reason(7_000, 1_032_000, [(7_392, 1_028_000), (7_100, 1_031_000)]) is None
    assert outliers.stall_reason(7_000, outliers.STALL_MAX_US - 1, []) is None


def test_a_syn_retry_wait_is_a_whole_number_of_seconds_and_a_little_more():
    # seen on loopback: one dropped SYN (1 s), a handshake dropped twice (2 s), data sent again
    assert outliers.syn_wait_s(1_014_783) == 1
    assert outliers.syn_wait_s(1_231_871) == 1
    assert outliers.syn_wait_s(2_055_167) == 2
    assert outliers.syn_wait_s(995_000) == 1  # read off the histogram a little short
    assert outliers.syn_wait_s(3_020_000) == 3
    for not_a_wait in (20_000, 600_000, 980_000, 1_500_000, 2_700_000, None, float("nan")):
        assert outliers.syn_wait_s(not_a_wait) is None, not_a_wait


def test_the_counters_label_a_slowest_operation_only_when_it_waited_on_a_syn():
    label = outliers.label(1_030_000, OVERFLOW)
    assert str(label) == "listen queue full: a SYN waited 1 s (chapter 1)"
    assert label.kind == outliers.LISTEN_QUEUE
    assert outliers.label(30_000, OVERFLOW) is None  # another program's overflow, not this trial's
    assert outliers.label(1_030_000, QUIET) is None  # the host saw nothing
    assert outliers.label(1_030_000, None) is None  # an older file: no counters
    retried = outliers.label(2_040_000, {**QUIET, "syn_retrans": 1})
    assert str(retried) == "a SYN was sent again after 2 s (no listen queue overflow seen)"


def test_a_stall_the_listen_queue_explains_is_labelled_and_kept():
    twins = [(7_392, 25_000), (7_100, 30_000)]
    verdict = outliers.judge(7_000, 1_032_000, twins, OVERFLOW, 80.0)
    assert verdict.stall.startswith("its slowest operation took 1,032 ms")
    assert verdict.explained and not verdict.left_out
    assert str(verdict.label) == "listen queue full: a SYN waited 1 s (chapter 1)"
    # labelled even where it is no stall: every twin waited a second too
    shared = outliers.judge(7_000, 1_032_000, [(7_392, 1_028_000)], OVERFLOW, 80.0)
    assert shared.label is not None and shared.stall is None and not shared.left_out


@pytest.mark.parametrize(
    "max_us, tcp, why",
    [
        (1_032_000, None, "no TCP counters were recorded to explain it"),
        (1_032_000, QUIET, "the host saw no listen queue overflow and no SYN retry during it"),
        (
            1_700_000,
            OVERFLOW,
            "the host saw 2 listen queue overflows and 2 SYN retries during it, but 1,700 ms is "
            "no SYN retry's wait (a whole number of seconds, and less than 500 ms more)",
        ),
    ],
)
def test_a_stall_nothing_explains_is_left_out_with_its_reason(max_us, tcp, why):
    verdict = outliers.judge(7_000, max_us, [(7_392, 25_000)], tcp, 80.0)
    assert verdict.left_out and verdict.label is None
    assert verdict.stall.startswith("its slowest operation took") and verdict.stall.endswith(why)


def test_a_collapse_is_explained_only_when_the_syn_waits_cover_half_the_lost_time():
    twins = [(1_000, 25_000), (1_000, 25_000)]
    # 8 client threads x 10 s = 80 s of client time; at 100 ops/s against 1,000 it lost 72 s
    many = {"listen_overflows": 40, "listen_drops": 40, "syn_retrans": 40}
    assert outliers.judge(100, 1_030_000, twins, many, 80.0).explained
    few = outliers.judge(100, 1_030_000, twins, OVERFLOW, 80.0)
    assert few.left_out and few.label is not None
    assert few.stall.endswith(
        "its SYN waits (at least 2 s in all) make up less than half of the "
        "72 s of client time it lost"
    )
    assert outliers.judge(100, 1_030_000, twins, many, None).left_out  # no client time to weigh


def test_client_time_is_threads_by_seconds_by_hosts():
    assert outliers.client_seconds(8, 2.5) == 20.0
    assert outliers.client_seconds(8, 2.5, 3) == 60.0
    assert outliers.client_seconds(None, 2.5) is None


# The sweep's words ----------------------------------------------------------------------------


def test_the_sweep_summary_says_what_happened_in_plain_words():
    ran = [outliers.Label(outliers.LISTEN_QUEUE, 1)] * 7
    assert outliers.sweep_summary(48, 0, ran, 0, True) == (
        "48 trials ran; 7 saw the listen queue overflow (a SYN retried after 1 s, chapter 1) and "
        "are kept; 0 stalled for no reason we could see."
    )
    assert outliers.sweep_summary(4, 1, [], 1, True) == (
        "4 trials ran (1 failed); none saw the listen queue overflow; 1 stalled for no reason we "
        "could see (named above; the analysis leaves them out of its medians where their "
        "configuration has other trials)."
    )
    two = [outliers.Label(outliers.LISTEN_QUEUE, 2), outliers.Label(outliers.SYN_RETRY, 1)]
    assert outliers.sweep_summary(1, 0, two, 0, True) == (
        "1 trial ran; 1 saw the listen queue overflow (a SYN retried after 2 s, chapter 1) and is "
        "kept; 1 had a SYN retried after 1 s with no listen queue overflow seen, and is kept; "
        "0 stalled for no reason we could see."
    )
    assert outliers.sweep_summary(2, 0, [], 0, False) == (
        "2 trials ran; the listen queue could not be watched here (no /proc/net/netstat); "
        "0 stalled for no reason we could see."
    )


def test_the_sweep_labels_a_trial_the_listen_queue_slowed_and_warns_of_a_stall(capsys):
    outcome = sweep.Outcome()
    bar = tqdm(disable=True)
    trials = [
        result(7_392, tcp=QUIET),
        result(7_100, 1_700_000, tcp=QUIET),  # unexplained
        result(7_000, 1_030_000, tcp=OVERFLOW),  # labelled (no stall beside a 1.7 s twin): kept
        result(191, tcp=QUIET),  # unexplained
    ]
    for i, r in enumerate(trials):
        outcome.ran += 1
        sweep._report(bar, outcome, spec(i), {**r, "host": "local"}, len(trials))
    lines = capsys.readouterr().err.strip().splitlines()
    assert "stalled" not in lines[0]
    assert (
        "7,100 ops/s; warning: looks stalled, for no reason we could see: its slowest" in lines[1]
    )
    assert lines[2].endswith("7,000 ops/s; listen queue full: a SYN waited 1 s (chapter 1), kept")
    assert (
        "191 ops/s; warning: looks stalled, for no reason we could see: 191 ops/s is below"
        in (lines[3])
    )
    assert outcome.stalled == 2 and [str(x) for x in outcome.labels] == [
        "listen queue full: a SYN waited 1 s (chapter 1)"
    ]
    assert outcome.warned == 0  # the benchmark itself warned of nothing


# The analysis ---------------------------------------------------------------------------------


@pytest.fixture
def measured(tmp_path):
    """Hand-made trials (not measurements): write-heavy 4x8, one of which waited on a dropped SYN;
    balanced 4x8, one of which stalled for no reason; and 1x1 of both."""
    return write(
        tmp_path / "demo.jsonl",
        [
            [spec(0, frac=0.9), result(7_392, tcp=QUIET)],
            [spec(1, frac=0.9), result(6_500, 1_020_000, tcp=OVERFLOW)],
            [spec(2, frac=0.9), result(7_000, tcp=QUIET)],
            [spec(0), result(9_000, tcp=QUIET)],
            [spec(1), result(191, 1_000_000, tcp=QUIET)],
            [spec(2), result(8_800, tcp=QUIET)],
            *[[spec(i, 1, 1, 0.9), result(900 + i, tcp=QUIET)] for i in range(3)],
            *[[spec(i, 1, 1), result(950 + i, tcp=QUIET)] for i in range(3)],
        ],
    )


def test_the_analysis_keeps_a_labelled_trial_and_leaves_out_an_unexplained_one(measured):
    warnings = []
    data = analysis.load([measured], warn=warnings.append)
    assert len(warnings) == 1
    assert warnings[0].startswith("warning: trial 1 of demo (server_threads 4, client_threads 8,")
    assert (
        "looks stalled, for no reason we could see: its slowest operation took 1,000 ms"
        in (warnings[0])
    )
    assert warnings[0].endswith("left out of the medians and figures")
    assert data.outliers["trial_index"].tolist() == [1]
    assert "191 ops/s" in data.outliers["outlier"][0]
    labelled = data.trials[data.trials["label"].notna()]
    assert labelled["ops_per_sec"].tolist() == [6_500]
    assert labelled["label"].tolist() == ["listen queue full: a SYN waited 1 s (chapter 1)"]
    summary = analysis.summarize(data).set_index(["set_frac", "server_threads"])
    assert summary.loc[(0.9, 4), "median"] == 7_000  # of 7,392, 6,500 and 7,000: the label counts
    assert summary.loc[(0.9, 4), "n"] == 3
    assert summary.loc[(0.5, 4), "median"] == (9_000 + 8_800) / 2
    # every trial is in the file: a left-out trial makes no configuration incomplete
    assert analysis.incomplete(data).empty

    kept = analysis.load([measured], keep_outliers=True, warn=warnings.append)
    assert len(kept.trials) == 12 and warnings[-1].endswith("kept, as asked")


def test_the_only_trial_of_a_configuration_is_named_but_kept(tmp_path):
    path = write(tmp_path / "one.jsonl", [[spec(0), result(5_000, 900_000)]])
    warnings = []
    data = analysis.load([path], warn=warnings.append)
    assert len(data.trials) == 1
    assert warnings and warnings[0].endswith("kept: the only trial of its configuration")
    report = analyze_cli.report(data)
    assert "Kept although it looks stalled (the only trial of its configuration" in report
    assert "These results have no TCP counters (older files)" in report


def test_incomplete_means_trials_missing_from_the_file(tmp_path):
    path = write(
        tmp_path / "gap.jsonl",
        [
            [spec(0), result(7_000)],
            [spec(1), result(7_100)],
            [spec(0, 1, 1), result(900)],  # trial 1 of 1x1 never ran
        ],
    )
    gaps = analysis.incomplete(analysis.load([path], warn=lambda _: None))
    assert len(gaps) == 1 and gaps["missing_trials"].tolist() == [[1]]


def test_the_listen_queue_table_sets_trials_with_an_overflow_beside_those_without(measured):
    data = analysis.load([measured], warn=lambda _: None)
    table = outlier_report.listen_queue_table(data.trials, data.config_columns)
    assert table.to_dict("records") == [
        {
            "configuration": "write-heavy, server thr 4, client thr 8",
            "trials": 3,
            "with overflow": 1,
            "labelled": 1,
            "overflows": 2,
            "SYN retries": 2,
            "max ms (with)": "1,020",
            "max ms (without)": "20",
            "ops/s (with)": "6,500",
            "ops/s (without)": "7,196",
        }
    ]
    report = analyze_cli.report(data)
    assert "### The listen queue (chapter 1)" in report
    assert "| write-heavy, server thr 4, client thr 8 | 3 | 1 | 1 |" in report
    assert "Labelled and kept: 1 trial\n- 1 × listen queue full: a SYN waited 1 s (chapter 1)" in (
        report
    )
    assert "Left out, stalled for no reason we could see: 1 trial\n- demo #1: " in report
    fig = figures.FIGURES["listen-queue"](data)
    assert [ax.get_title() for ax in fig.axes] == ["balanced", "write-heavy"]
    reds = [c for c in fig.axes[1].collections if c.get_label() == "listen queue: overflow"]
    assert len(reds[0].get_offsets()) == 1


def test_older_results_without_the_counters_load_and_analyse_as_before():
    data = analysis.load([REFERENCE_2020], warn=lambda _: None)
    assert len(data.trials) == 2539 and data.trials["label"].isna().all()
    assert "listen_overflows" not in data.trials
    assert outlier_report.listen_queue_table(data.trials, data.config_columns).empty
    assert figures.FIGURES["listen-queue"](data) is None
    report = analyze_cli.report(data)
    assert "listen queue" not in report and "Labelled" not in report


# Headlines ------------------------------------------------------------------------------------


def test_a_ratio_of_medians_needs_two_trials_on_each_side():
    assert analysis.ratio_cell(10.0, 1, 1) == "— (1 trial)"
    assert analysis.ratio_cell(10.0, 3, 1) == "— (1 trial)"
    assert analysis.ratio_cell(1.514, 2, 3) == "1.51×"
    assert analysis.ratio_cell(float("nan"), 3, 3) == ""


def test_no_speed_up_headline_rests_on_a_single_trial(tmp_path):
    # the smoke preset's shape: one trial of each configuration
    path = write(
        tmp_path / "smoke.jsonl",
        [[spec(0, 1, 1, 0.9), result(900)], [spec(0, 1, 4, 0.9), result(9_000)]],
    )
    data = analysis.load([path], warn=lambda _: None)
    table = analysis.best_table(analysis.threading_impact(analysis.summarize(data)))
    assert table["speed-up"].tolist() == ["— (1 trial)"]
    assert table["trials"].tolist() == [1] and table["1×1 trials"].tolist() == [1]
    fig = figures.threading_impact(data)
    assert [t.get_text() for t in fig.axes[0].texts] == ["— (1 trial)"]
    assert "10.00×" not in analyze_cli.report(data)
    more = write(
        tmp_path / "two.jsonl",
        [
            [spec(i, 1, c, 0.9), result(ops)]
            for i in (0, 1)
            for c, ops in ((1, 900 + i), (4, 9_000 + i))
        ],
    )
    data = analysis.load([more], warn=lambda _: None)
    table = analysis.best_table(analysis.threading_impact(analysis.summarize(data)))
    assert table["speed-up"].tolist() == ["10.00×"]
    assert re.search(r"\| 2 \| 900 \| 2 \| 10\.00× \|", analyze_cli.report(data))
