"""The command line of scripts/analyze.py: the best-configuration table as Markdown, and the
figures."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from . import analysis, figures, machine, outlier_report, words

REPO = Path(__file__).resolve().parents[2]
FIGURES = REPO / "benchmarks" / "results" / "figures"  # git-ignored, like the sweeps' own results


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="analyze.py",
        description="Prints the best thread configuration per (workload, map, key space) as a "
        "Markdown table, with its median and interquartile range of ops/s and its speed-up over "
        "one server and one client thread; reports failed and incomplete trials; writes the "
        "figures. Reads our results files and the 2020 study's [spec, counts] files alike.",
    )
    p.add_argument("results", nargs="+", type=Path, metavar="RESULTS.jsonl", help="results files")
    p.add_argument(
        "--figures",
        type=Path,
        metavar="DIR",
        help="where the PNG figures go (default: benchmarks/results/figures/NAME, which git "
        "ignores, NAME being the results file's name, or 'combined' for several files; the "
        "committed figures are redrawn with --figures benchmarks/figures/NAME)",
    )
    p.add_argument("--no-figures", action="store_true", help="print the tables only")
    p.add_argument(
        "--pool",
        action="store_true",
        help="treat all files as one dataset (e.g. one sweep run in parts); by default each file "
        "is its own dataset and the tables say which row comes from which",
    )
    p.add_argument(
        "--min-trials",
        type=int,
        default=1,
        help="configurations with fewer successful trials are not candidates for 'best' "
        "(default: 1)",
    )
    return p


def report(data: analysis.Results, min_trials: int = 1) -> str:
    """The Markdown report: where it was measured, the best-configuration table, and what is
    missing."""
    lines: list[str] = []
    for dataset in data.datasets:
        n_ok = int((data.trials[analysis.DATASET] == dataset).sum())
        n_out = int((data.outliers[analysis.DATASET] == dataset).sum()) if len(data.outliers) else 0
        n_failed = (
            int((data.failures[analysis.DATASET] == dataset).sum()) if len(data.failures) else 0
        )
        lines.append(
            f"**{dataset}**: {n_ok + n_out} trials"
            + (f", {n_out} left out" if n_out else "")
            + (f", {n_failed} failed" if n_failed else "")
        )
        if len(data.machines):
            own = data.machines[data.machines[analysis.DATASET] == dataset]
            for record in own.drop_duplicates("host", keep="last").to_dict("records"):
                lines.append(f"- measured on {record['host']}: {machine.describe(record)}")
    lines.append("")
    durability = analysis.durability_table(data)
    if len(durability):
        # every row differs by its policy, which the thread table has no column for
        lines += [
            "### The write-ahead log: each fsync policy side by side",
            "",
            analysis.markdown(durability),
            "",
            "Median ops/s over trials, "
            + analysis.OPS_DEFINITION
            + "; IQR = 25th to 75th percentile; "
            "× no log = median ops/s / the same configuration's without a log; p50/p99 µs, "
            "fsyncs/s and records/fsync = medians over trials of each trial's figure, the last "
            "two counted by the log over the measured interval (empty where the policy forced "
            "nothing).",
            "",
        ]
    elif (
        "shards" not in data.config_columns
    ):  # with roles, the table of nodes below says it per shard count
        summary = analysis.summarize(data)
        impact = analysis.threading_impact(summary, min_trials)
        lines += [
            "### Best thread configuration per workload, map and key space",
            "",
            analysis.markdown(analysis.best_table(impact)),
            "",
            "Median ops/s over trials, "
            + analysis.OPS_DEFINITION
            + "; IQR = 25th to 75th percentile; "
            "speed-up = best median / median at 1 server and 1 client thread, shown where "
            f"both rest on at least {analysis.HEADLINE_MIN_TRIALS} trials.",
            "",
        ]
    modes = analysis.modes_table(data)
    if len(modes):
        lines += [
            "### Client modes, side by side",
            "",
            analysis.markdown(modes),
            "",
            "p99 µs = median over trials of each trial's 99th-percentile latency (HdrHistogram); "
            "× first = median ops/s over the workload's first row (the seed's v1 when measured).",
            "",
        ]
    roles = analysis.cluster_table(data)
    if len(roles):
        lines += [
            "### Trials with servers and clients on separate hosts",
            "",
            analysis.markdown(roles),
            "",
            "Per node: a client's own ops/s and p99, or how many servers it ran; total: the sum "
            "of the clients' ops/s per trial, and the p99 of the trial's merged client histograms "
            "(percentiles of separate clients are never averaged); medians over trials.",
            "",
        ]
    usage = analysis.utilisation_table(data)
    if len(usage):
        lines += [
            "### Utilisation per node",
            "",
            analysis.markdown(usage),
            "",
            "Sampled from /proc once a second during each trial. CPU % is of all the node's "
            "cores; each figure is the median over trials of the trial's median (max: the highest "
            "one-second sample); net counts every interface but lo, lo MB/s the loopback traffic.",
            "",
        ]
        flagged = usage[usage["note"] != ""]
        for r in flagged.itertuples():
            lines.append(f"- {r.node} ({r.dataset}): {r.note}")
        if len(flagged):
            lines.append("")
    lines += listen_queue_section(data)
    gaps = analysis.incomplete(data)
    if len(gaps):
        lines.append(
            f"Incomplete: {len(gaps)} configurations have fewer trials in the results file than "
            f"the others (their medians rest on fewer trials):"
        )
        shown = gaps.head(10)
        lines += [
            f"- {r.workload}, {r.map_type}, {r.key_space}, {r.server_threads} server / "
            f"{r.client_threads} client threads: {r.n} of {r.expected} trials"
            + (f" ({r.failed} failed)" if r.failed else "")
            for r in shown.itertuples()
        ]
        if len(gaps) > len(shown):
            lines.append(f"- ... and {len(gaps) - len(shown)} more")
        lines.append("")
    if "warnings" in data.trials:
        warned = data.trials["warnings"].dropna()
        warned = warned[warned.map(lambda w: isinstance(w, list) and len(w) > 0)]
        if len(warned):
            lines.append(
                f"Trials with a warning from the benchmark: {len(warned)} (their figures may "
                "mislead)"
            )
            for text, count in pd.Series([t for w in warned for t in w]).value_counts().items():
                lines.append(f"- {count} x {text}")
            lines.append("")
    if len(data.failures):
        lines.append(f"Failed trials: {len(data.failures)}")
        for error, count in data.failures["error"].value_counts().items():
            lines.append(f"- {count} x {error}")
        lines.append("")
    for bad in data.bad_lines:
        lines.append(f"Skipped line {bad}")
    return "\n".join(lines).rstrip() + "\n"


def listen_queue_section(data: analysis.Results) -> list[str]:
    """What the listen queue did (chapter 1), the trials it explains, and the stalls nothing
    explains: lines of the report."""
    trials, config = data.trials, data.config_columns
    lines: list[str] = []
    table = outlier_report.listen_queue_table(trials, config)
    recorded = outlier_report.OVERFLOWS in trials and trials[outlier_report.OVERFLOWS].notna().any()
    if len(table):
        lines += [
            "### The listen queue (chapter 1)",
            "",
            analysis.markdown(table),
            "",
            "Per configuration where the host's listen queue overflowed during a trial: the "
            "host's TCP counters (/proc/net/netstat) over each trial, added up; labelled = trials "
            "whose slowest operation took just over a SYN retry's wait (a whole number of "
            "seconds); max ms and ops/s = medians over the trials with an overflow and without. "
            "The counters are the whole host's: another program's connections count too.",
            "",
        ]
    elif recorded:
        lines += ["No trial's host saw the listen queue overflow (chapter 1).", ""]
    labels = outlier_report.label_counts(trials)
    if labels:
        n = sum(count for _, count in labels)
        lines.append(f"Labelled and kept: {words.count(n, 'trial')}")
        lines += [f"- {count} × {text}" for text, count in labels]
        lines.append("")
    if len(data.outliers):
        n = len(data.outliers)
        lines.append(f"Left out, stalled for no reason we could see: {words.count(n, 'trial')}")
        lines += [
            f"- {r.dataset} #{r.trial_index}: {r.outlier}" for r in data.outliers.itertuples()
        ]
        lines.append("")
    stalled = trials[trials[outlier_report.STALL].notna()] if len(trials) else trials
    if len(stalled):
        n = len(stalled)
        lines.append(
            f"Kept although {'it looks' if n == 1 else 'they look'} stalled (the only trial of "
            f"{'its' if n == 1 else 'their'} configuration, or kept as asked): "
            f"{words.count(n, 'trial')}"
        )
        lines += [f"- {r.dataset} #{r.trial_index}: {r.stall}" for r in stalled.itertuples()]
        lines.append("")
    if not recorded and (len(data.outliers) or len(stalled)):
        lines += [
            "These results have no TCP counters (older files): a stall cannot be explained by the "
            "listen queue here.",
            "",
        ]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    missing = [str(p) for p in args.results if not p.is_file()]
    if missing:
        raise SystemExit(f"analyze.py: no such file: {', '.join(missing)}")
    data = analysis.load(args.results, pool=args.pool)
    if data.trials.empty:
        raise SystemExit("analyze.py: no successful trials in " + ", ".join(map(str, args.results)))
    print(report(data, args.min_trials), end="")
    if not args.no_figures:
        name = args.results[0].stem if len(args.results) == 1 else "combined"
        directory = args.figures or FIGURES / name
        paths = figures.write_all(data, directory)
        print(f"\nFigures: {', '.join(str(p) for p in paths)}")
    return 0
