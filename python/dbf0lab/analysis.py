"""Loads benchmark results and answers the questions the 2020 study asked of them.

    data = load(["benchmarks/reference/mid-vm.jsonl"])
    summary = summarize(data)                  # median and quartiles per configuration
    best = best_configurations(summary)        # best thread setting per (workload, map, key space)
    impact = threading_impact(summary)         # that best against one server and one client thread
    gaps = incomplete(data)                    # configurations with fewer trials than the others

ops/s of a trial = (set + get + insert + read_modify_write) / seconds, the Benchmark's own count
of operations (a keyed workload's inserts and read-modify-writes are neither a set nor a get; the
2020 files have only set and get), where seconds is the time the Benchmark measured when the
result has it, else the spec's duration (the 2020 files have only that).

Each file is its own *dataset* (named after the file), so that results from different machines
are never pooled by accident; pass ``pool=True`` to treat all files as one dataset (for example
the files of one sweep split over several runs).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from . import outlier_report, results
from .results import WORKLOADS, workload_name  # noqa: F401 (the analysis' names for workloads)

SPEC_ORDER = (
    "server_threads",
    "client_threads",
    "map_type",
    "key_length",
    "value_length",
    "set_frac",
    "seconds",
)
THREADS = ("server_threads", "client_threads")
TRIAL = "trial_index"
DATASET = "dataset"
STAT_COLUMNS = ("n", "median", "q25", "q75", "min", "max")
DERIVED = STAT_COLUMNS + (
    "failed",
    "workload",
    "key_space",
)  # summary columns that are not configuration
OPS_COUNTED = results.OPS_COUNTED  # what a trial's ops/s counts (load below)
OPS_DEFINITION = "ops = (" + " + ".join(OPS_COUNTED) + ") / seconds"


@dataclass
class Results:
    trials: pd.DataFrame  # one row per successful trial, with ops_per_sec
    failures: pd.DataFrame  # one row per failed or timed-out trial, with its error
    machines: pd.DataFrame  # the 'machine' records: where the trials ran
    config_columns: list[str]  # what names a configuration: dataset + spec keys but trial_index
    bad_lines: list[str] = field(default_factory=list)
    # one row per (successful trial, node) that recorded its /proc samples: <metric>_median,
    # <metric>_max
    utilisation: pd.DataFrame = field(default_factory=pd.DataFrame)
    # trials that look stalled for no reason we could see (outliers.py), left out of ``trials``;
    # column "outlier" says why. Trials the TCP counters explain stay in ``trials``, their column
    # "label" saying what explains them
    outliers: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def datasets(self) -> list[str]:
        return list(dict.fromkeys(self.trials[DATASET].tolist() + self.failures[DATASET].tolist()))


def key_space_name(key_length: int) -> str:
    """Random keys of n bytes: 1 byte gives 256 distinct keys, 2 bytes 65,536; 16 bytes never
    repeat."""
    n = int(key_length)
    return f"{n} B keys ({256**n:,})" if n <= 2 else f"{n} B keys"


def load(
    paths: Iterable[str | os.PathLike[str]],
    pool: bool = False,
    keep_outliers: bool = False,
    warn=lambda text: print(text, file=sys.stderr),
) -> Results:
    """Reads results files: ours, and the 2020 study's ``[spec, counts]`` files unchanged.

    Every trial is judged against the other trials of its configuration (outliers.py). One whose
    slowest operation the host's TCP counters explain (the listen queue overflowed, a SYN waited
    1 s) is labelled and kept: column ``label``. One that looks stalled for no reason we could see
    (its slowest operation took half a second, or its ops/s is below a fifth of its twins') would
    distort every median and figure: it goes to ``outliers`` instead of ``trials``, and ``warn``
    names it. ``keep_outliers`` keeps it in."""
    trial_rows, failure_rows, machine_rows, usage_rows, bad = [], [], [], [], []
    spec_keys: dict[str, None] = {}
    paths = [Path(p) for p in paths]
    if not paths:
        raise ValueError("no results files given")
    names = _dataset_names(paths)
    for path in paths:
        dataset = "all" if pool else names[path]
        content = results.read(path)
        bad += [f"{path}:{number}: {why}" for number, why in content.bad_lines]
        for record in content.machines:
            machine_rows.append({DATASET: dataset, **record})
        for spec, result in content.trials:
            for key in spec:
                spec_keys.setdefault(key, None)
            row = {DATASET: dataset, **spec, "source": str(path)}
            if results.is_failure(result):
                failure_rows.append(
                    {
                        **row,
                        "error": result.get("error"),
                        "exit_code": result.get("exit_code"),
                        "host": result.get("host"),
                    }
                )
                continue
            measured = {k: v for k, v in result.items() if k not in ("seconds", UTILISATION, TCP)}
            row.update(measured, measured_seconds=result.get("seconds"))
            row.update(outlier_report.tcp_columns(result))
            trial_rows.append(row)
            usage_rows += _usage_rows(row, result.get(UTILISATION))

    config = (
        [DATASET]
        + [k for k in SPEC_ORDER if k in spec_keys]
        + [k for k in spec_keys if k not in SPEC_ORDER and k != TRIAL]
    )
    trials = pd.DataFrame(trial_rows, columns=_columns(trial_rows, config))
    if len(trials):
        seconds = trials["measured_seconds"].where(
            trials["measured_seconds"].notna(), trials["seconds"]
        )
        counted = trials["set"] + trials["get"]
        # YCSB D's inserts and F's read-modify-writes, absent from older files
        for extra in OPS_COUNTED[2:]:
            if extra in trials:
                counted = counted + trials[extra].fillna(0)
        ops = counted / seconds.astype(float)
        if NODES in trials and "ops_per_sec" in trials:
            # a trial with roles: its clients measured separate intervals, and the sweep added up
            # their rates (cluster.merge); the counts over the longest interval would understate it
            ops = ops.where(trials[NODES].isna(), trials["ops_per_sec"])
        trials["ops_per_sec"] = ops
    else:
        trials["ops_per_sec"] = pd.Series(dtype=float)
    failures = pd.DataFrame(failure_rows, columns=_columns(failure_rows, config))
    trials, outliers = outlier_report.judge_trials(trials, config, keep_outliers, warn)
    return Results(
        trials,
        failures,
        pd.DataFrame(machine_rows),
        config,
        bad,
        pd.DataFrame(usage_rows),
        outliers,
    )


UTILISATION = "utilisation"
TCP = "tcp"  # the host's TCP counter deltas during the trial (tcp_counters.py); columns of its own
NODES = "nodes"  # a trial with roles (--servers, --clients): each node's own figures
CLIENT_CPU_LIMIT = 90.0  # % of all cores busy (user + system) on a node that runs load generators


def _usage_rows(trial: dict, usage) -> list[dict]:
    """The trial's per-node utilisation, flattened: files without it (older ones) give none."""
    if not isinstance(usage, dict):
        return []
    rows = []
    for node, entry in usage.items():
        if not isinstance(entry, dict):
            continue
        row = {
            DATASET: trial[DATASET],
            TRIAL: trial.get(TRIAL),
            "node": node,
            "role": entry.get("role"),
            "samples": entry.get("samples"),
        }
        for metric, stats in entry.items():
            if isinstance(stats, dict):
                row[f"{metric}_median"] = stats.get("median")
                row[f"{metric}_max"] = stats.get("max")
        rows.append(row)
    return rows


def utilisation_table(data: Results) -> pd.DataFrame:
    """Per dataset and node: over its trials, the median of each trial's median CPU shares and
    network rates, the highest maximum, and a note when a load-generating node ran its CPUs above
    CLIENT_CPU_LIMIT % in the median of a trial."""
    u = data.utilisation
    if u.empty or "cpu_busy_pct_median" not in u:
        return pd.DataFrame()
    rows = []
    for (dataset, node), g in u.groupby([DATASET, "node"], sort=False):

        def med(column, g=g):
            return float(g[column].median()) if column in g else float("nan")

        def top(column, g=g):
            return float(g[column].max()) if column in g else float("nan")

        roles = sorted({str(r) for r in g["role"].dropna()})
        # only the trials where this node generated load: a node that was a server in one layout
        # and a client in another is flagged for the client trials alone
        as_client = g[g["role"].astype(str).str.contains("client")]
        hot = int((as_client["cpu_busy_pct_median"] > CLIENT_CPU_LIMIT).sum())
        note = ""
        if hot:
            note = (
                f"{hot} trial(s) above {CLIENT_CPU_LIMIT:g}% CPU: "
                "the load generator may be the bottleneck"
            )
        rows.append(
            {
                DATASET: dataset,
                "node": node,
                "role": "/".join(roles),
                "trials": len(g),
                "CPU busy % (max)": (
                    f"{med('cpu_busy_pct_median'):.0f} ({top('cpu_busy_pct_max'):.0f})"
                ),
                "user %": round(med("cpu_user_pct_median")),
                "sys %": round(med("cpu_system_pct_median")),
                "iowait %": round(med("cpu_iowait_pct_median"), 1),
                "mem GiB (max)": round(top("mem_used_bytes_max") / 2**30, 1),
                "net rx/tx MB/s": f"{med('net_rx_bytes_per_s_median') / 1e6:.1f} / "
                f"{med('net_tx_bytes_per_s_median') / 1e6:.1f}",
                "net rx/tx kpkt/s": f"{med('net_rx_packets_per_s_median') / 1e3:.1f} / "
                f"{med('net_tx_packets_per_s_median') / 1e3:.1f}",
                "lo MB/s": round(med("lo_bytes_per_s_median") / 1e6, 1),
                "note": note,
            }
        )
    return pd.DataFrame(rows)


def _columns(rows: list[dict], first: list[str]) -> list[str]:
    seen = dict.fromkeys(first)
    for row in rows:
        seen.update(dict.fromkeys(row))
    return list(seen)


def _dataset_names(paths: Sequence[Path]) -> dict[Path, str]:
    """File stems, made unique with the parent folder where two files share a stem."""
    stems = [p.stem for p in paths]
    return {p: (p.stem if stems.count(p.stem) == 1 else f"{p.parent.name}/{p.stem}") for p in paths}


def summarize(data: Results) -> pd.DataFrame:
    """Per configuration: trial count, median, 25th and 75th percentile, min and max of ops/s,
    and the failed trials. Sorted by dataset, workload, map, key length, threads."""
    keys = data.config_columns
    grouped = data.trials.groupby(keys, dropna=False, sort=False)["ops_per_sec"]
    summary = pd.DataFrame(
        {
            "n": grouped.size(),
            "median": grouped.median(),
            "q25": grouped.quantile(0.25),
            "q75": grouped.quantile(0.75),
            "min": grouped.min(),
            "max": grouped.max(),
        }
    )
    failed = data.failures.groupby(keys, dropna=False, sort=False).size().rename("failed")
    summary = summary.join(failed, how="outer")
    summary["n"] = summary["n"].fillna(0).astype(int)
    summary["failed"] = summary["failed"].fillna(0).astype(int)
    summary = summary.reset_index()
    summary.insert(1, "workload", summary["set_frac"].map(workload_name))
    summary.insert(2, "key_space", summary["key_length"].map(key_space_name))
    return summary.sort_values(_sort_order(summary), kind="stable").reset_index(drop=True)


def _sort_order(frame: pd.DataFrame) -> list[str]:
    first = [DATASET, "set_frac", "map_type", "key_length"]
    return (
        [c for c in first if c in frame]
        + [c for c in frame.columns if c in SPEC_ORDER and c not in first]
        + [c for c in THREADS if c in frame and c not in first]
    )


def _group_columns(summary: pd.DataFrame) -> list[str]:
    """A configuration without its thread counts: what the best thread setting is chosen for."""
    return [c for c in summary.columns if c not in DERIVED and c not in THREADS]


def best_configurations(summary: pd.DataFrame, min_trials: int = 1) -> pd.DataFrame:
    """The thread setting with the highest median ops/s for every (workload, map, key space) — and
    for every other axis the results vary, such as value length or duration. Configurations with
    fewer than min_trials successful trials are not candidates."""
    keys = _group_columns(summary)
    candidates = summary[(summary["n"] >= max(1, min_trials)) & summary["median"].notna()]
    index = candidates.groupby(keys, dropna=False, sort=False)["median"].idxmax()
    best = candidates.loc[index.values]
    return best.sort_values(_sort_order(best), kind="stable").reset_index(drop=True)


def threading_impact(summary: pd.DataFrame, min_trials: int = 1) -> pd.DataFrame:
    """For every (workload, map, key space): the single-threaded median (1 server thread, 1
    client thread) beside the best thread setting's, and the speed-up between them."""
    keys = _group_columns(summary)
    best = best_configurations(summary, min_trials)
    single = summary[(summary["server_threads"] == 1) & (summary["client_threads"] == 1)]
    single = single[keys + ["n", "median", "q25", "q75"]].rename(
        columns={
            "n": "single_n",
            "median": "single_median",
            "q25": "single_q25",
            "q75": "single_q75",
        }
    )
    impact = best.merge(single, on=keys, how="left")
    impact["speedup"] = impact["median"] / impact["single_median"]
    return impact


def incomplete(data: Results, expected: int | None = None) -> pd.DataFrame:
    """Configurations with fewer successful trials in the results files than expected (by default,
    the most trials any configuration of the same dataset has), with their failed trials and
    missing trial indexes. A trial the analysis left out (a stall nothing explains) is in the file:
    it counts here, though not in the medians."""
    keys = data.config_columns
    recorded = pd.concat([data.trials, data.outliers]) if len(data.outliers) else data.trials
    data = replace(data, trials=recorded)
    summary = summarize(data)
    if expected is None:
        most = summary.groupby(DATASET)["n"].max().rename("expected")
        summary = summary.join(most, on=DATASET)
    else:
        summary["expected"] = expected
    short = summary[summary["n"] < summary["expected"]].copy()
    have = data.trials.groupby(keys, dropna=False)[TRIAL].agg(lambda s: set(s.astype(int)))
    missing = []
    for _, row in short.iterrows():
        key = tuple(row[k] for k in keys)
        got = have.get(key, set()) if len(have) else set()
        missing.append([i for i in range(int(row["expected"])) if i not in got])
    short["missing_trials"] = missing
    columns = (
        keys[:1]
        + ["workload", "key_space"]
        + keys[1:]
        + ["n", "failed", "expected", "missing_trials"]
    )
    return short[[c for c in columns if c in short]].reset_index(drop=True)


# --- tables for people ------------------------------------------------------------------------

HEADLINE_MIN_TRIALS = 2  # a ratio of two medians is shown only when both rest on this many trials


def ratio_cell(ratio: float, trials: float, base_trials: float, digits: int = 2) -> str:
    """A ratio of medians as a table shows it, or the trial count that keeps it from being shown:
    one trial is an anecdote, not a headline."""
    if pd.isna(ratio):
        return ""
    fewest = int(min(trials, base_trials))
    if fewest < HEADLINE_MIN_TRIALS:
        return f"— ({fewest} trial{'' if fewest == 1 else 's'})"
    return f"{ratio:.{digits}f}×"


def best_table(impact: pd.DataFrame) -> pd.DataFrame:
    """The best-configuration table as people read it: one row per (workload, map, key space)."""
    table = pd.DataFrame(
        {
            "workload": impact["workload"],
            "map": impact["map_type"],
            "keys": impact["key_space"],
            "server thr": impact["server_threads"],
            "client thr": impact["client_threads"],
            "median ops/s": impact["median"].map(_thousands),
            "IQR ops/s": [
                f"{_thousands(a)} – {_thousands(b)}" for a, b in zip(impact["q25"], impact["q75"])
            ],
            "trials": impact["n"],
            "1×1 median": impact["single_median"].map(_thousands),
            "1×1 trials": impact["single_n"].map(lambda n: "" if pd.isna(n) else int(n)),
            "speed-up": [
                ratio_cell(x, n, base)
                for x, n, base in zip(impact["speedup"], impact["n"], impact["single_n"])
            ],
        }
    )
    if impact[DATASET].nunique() > 1:
        table.insert(0, "dataset", impact[DATASET])
    return table


def _thousands(x: float) -> str:
    return "" if pd.isna(x) else f"{x:,.0f}"


def markdown(table: pd.DataFrame) -> str:
    """A GitHub Markdown table; numbers right-aligned."""

    def cell(v) -> str:
        return str(v).replace("|", "\\|")

    numeric = [
        pd.api.types.is_numeric_dtype(table[c])
        or table[c].astype(str).str.match(r"^[\d,.×–\s]*$").all()
        for c in table.columns
    ]
    lines = [
        "| " + " | ".join(cell(c) for c in table.columns) + " |",
        "|" + "|".join("---:" if n else "---" for n in numeric) + "|",
    ]
    for row in table.itertuples(index=False):
        lines.append("| " + " | ".join(cell(v) for v in row) + " |")
    return "\n".join(lines)


# The Redis comparison (scripts/compare_redis.py) ----------------------------------------------


def load_redis_comparison(paths: Iterable[str | os.PathLike[str]]) -> pd.DataFrame:
    """The rows of compare_redis.py's JSONL files: one per server, test, command and pair."""
    rows = []
    for path in paths:
        with open(path) as f:
            rows += [json.loads(line) for line in f if line.strip()]
    if not rows:
        raise ValueError("no rows in the Redis comparison files")
    return pd.DataFrame(rows)


def redis_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per test and command: the median requests/s of Redis and of dbf0, and the median over
    pairs of dbf0/Redis (each pair measured back to back, so drift cancels). Rows of a log
    comparison (compare_redis.py --aof) are also kept apart by their ``policy``, and get the
    median of dbf0's records per fsync."""
    keys = (["policy"] if "policy" in frame else []) + ["test", "command"]
    wide = frame.pivot_table(index=keys + ["pair"], columns="server", values="rps", aggfunc="first")
    wide = wide.dropna(subset=["redis", "dbf0"]).reset_index()
    wide["ratio"] = wide["dbf0"] / wide["redis"]
    order = {
        column: {name: i for i, name in enumerate(dict.fromkeys(frame[column]))} for column in keys
    }
    out = (
        wide.groupby(keys, sort=False)
        .agg(
            redis_rps=("redis", "median"),
            dbf0_rps=("dbf0", "median"),
            ratio=("ratio", "median"),
            pairs=("ratio", "size"),
        )
        .reset_index()
    )
    if "records_per_fsync" in frame:
        dbf0 = frame[frame["server"] == "dbf0"].copy()
        dbf0["records_per_fsync"] = pd.to_numeric(dbf0["records_per_fsync"], errors="coerce")
        per = dbf0.groupby(keys, sort=False)["records_per_fsync"].median().reset_index()
        out = out.merge(per, on=keys, how="left")
    return out.sort_values(
        keys, key=lambda c: c.map(order[c.name]) if c.name != "command" else c
    ).reset_index(drop=True)


# Client modes and server models (presets steps and models) --------------------------------------


def step_label(row, sep: str = " ") -> str:
    """A client mode as the step-by-step table names it, e.g. 'v2 pipelined, depth 128', and how
    the clients ran when that was not a platform thread each: ', virtual client threads' or
    ', 1 selector thread'."""
    mode = row.get("client_mode") if isinstance(row, dict) else getattr(row, "client_mode", None)
    get = (lambda k: row.get(k)) if isinstance(row, dict) else (lambda k: getattr(row, k, None))
    if mode == "per-op":
        closer = (
            "server closes first" if get("close_order") == "server-first" else "client closes first"
        )
        label = f"v1 per-op,{sep}{closer}"
    elif mode == "pipelined":
        label = f"v2 pipelined,{sep}depth {int(get('pipeline'))}"
    elif mode == "batched":
        label = f"v2 batched,{sep}{int(get('batch'))} per frame"
    else:
        label = f"v2 {mode}"
    if get("client_thread_kind") == "virtual":
        label += f",{sep}virtual client threads"
    selectors = get("selector_threads")
    if selectors is not None and not pd.isna(selectors) and int(selectors) > 0:
        label += f",{sep}{int(selectors)} selector thread{'s' if int(selectors) > 1 else ''}"
    return label


_STEP_ORDER = ("per-op", "persistent", "pipelined", "batched")
_MODE_FIELDS = (
    "server_model",
    "close_order",
    "pipeline",
    "batch",
    "client_thread_kind",
    "selector_threads",
)


def step_rank(row: dict) -> tuple:
    """v1 client-first, v1 server-first, persistent, pipelined, batched: the order of the lesson;
    within one mode, a thread per connection before selector clients."""
    mode = row.get("client_mode")
    rank = _STEP_ORDER.index(mode) if mode in _STEP_ORDER else len(_STEP_ORDER)
    selectors = row.get("selector_threads")
    selectors = 0 if selectors is None or pd.isna(selectors) else int(selectors)
    return (rank, 1 if row.get("close_order") == "server-first" else 0, selectors)


def modes_table(data: Results) -> pd.DataFrame:
    """One row per client-mode configuration and workload: median ops/s with its IQR, the median
    over trials of the p99 latency, and the speed-up over the first configuration listed for that
    workload: the seed's v1 when it is there. Empty for results without a client_mode axis in
    their specs: the Benchmark also reports its client mode in every result, but a sweep that did
    not vary it (the quick preset) has no modes to set side by side."""
    if "client_mode" not in data.config_columns or data.trials["client_mode"].isna().all():
        return pd.DataFrame()
    if is_durability_study(data):
        return (
            pd.DataFrame()
        )  # a row per policy would repeat each mode: durability_table sets them side by side
    summary = summarize(data)
    summary = summary[summary["client_mode"].notna()].copy()
    keys = [c for c in data.config_columns if c in summary]
    # What a sweep did not vary is not in its specs, but every result reports its modes: take
    # those from the trials (the first trial of each configuration; they all ran alike).
    reported = [c for c in _MODE_FIELDS if c not in summary and c in data.trials]
    if reported:
        first = data.trials.groupby(keys, dropna=False, sort=False)[reported].first().reset_index()
        summary = summary.merge(first, on=keys, how="left")
    if "server_model" not in summary:
        summary["server_model"] = "pool"  # results from before the Benchmark reported it
    if "p99_us" in data.trials:
        p99 = (
            data.trials.groupby(keys, dropna=False, sort=False)["p99_us"]
            .median()
            .rename("p99_us")
            .reset_index()
        )
        summary = summary.merge(p99, on=keys, how="left")
    else:
        summary["p99_us"] = float("nan")
    summary["step"] = [step_label(r) for r in summary.to_dict("records")]
    summary["_rank"] = [step_rank(r) for r in summary.to_dict("records")]
    order = {w: i for i, w in enumerate(("read-heavy", "balanced", "write-heavy"))}
    summary["_w"] = summary["workload"].map(order)
    summary = summary.sort_values(["_w", "_rank", "server_model", "client_threads"], kind="stable")
    first = summary.groupby("workload", sort=False)["median"].transform("first")
    first_n = summary.groupby("workload", sort=False)["n"].transform("first")
    summary["speedup"] = summary["median"] / first
    return pd.DataFrame(
        {
            "workload": summary["workload"],
            "client mode": summary["step"],
            "server": [
                f"{m} ({int(t)} thr)"
                for m, t in zip(summary["server_model"], summary["server_threads"])
            ],
            "clients": summary["client_threads"].astype(int),
            "median ops/s": summary["median"].map(_thousands),
            "IQR ops/s": [
                f"{_thousands(a)} – {_thousands(b)}" for a, b in zip(summary["q25"], summary["q75"])
            ],
            "p99 µs": summary["p99_us"].map(lambda v: "" if pd.isna(v) else f"{v:,.0f}"),
            "× first": [
                ratio_cell(v, n, base, 1)
                for v, n, base in zip(summary["speedup"], summary["n"], first_n)
            ],
            "trials": summary["n"],
        }
    ).reset_index(drop=True)


# The write-ahead log (preset durability) -------------------------------------------------------

POLICIES = ("none", "never", "interval", "always")  # no log, then ever stronger promises
_MODE_ORDER = {"per-op": 0, "persistent": 1, "pipelined": 2, "batched": 3}
_MODEL_ORDER = {"pool": 0, "virtual": 1, "nio": 2}


def is_durability_study(data: Results) -> bool:
    """Results whose specs vary the write-ahead log's fsync policy (the durability preset)."""
    return (
        "fsync" in data.config_columns
        and data.trials.get("fsync", pd.Series(dtype=object)).notna().any()
    )


def durability_summary(data: Results) -> pd.DataFrame:
    """Per configuration of a durability study: median ops/s and its IQR, and the medians over
    trials of p50 and p99 latency, of the log's fsyncs per second and of its records per fsync
    (both over the measured interval, as the Benchmark reports them; NaN where the policy forces
    nothing). ``vs_none`` is the median ops/s over that of the same configuration without a log.
    Sorted by client mode, server model, workload (write-heavy first), then policy. Empty for
    results without an fsync axis."""
    if not is_durability_study(data):
        return pd.DataFrame()
    summary = summarize(data)
    summary = summary[summary["fsync"].notna() & (summary["n"] > 0)].copy()
    keys = [c for c in data.config_columns if c in summary]
    trials = data.trials.copy()
    for column in ("p50_us", "p99_us", "wal_fsyncs_per_sec", "wal_records_per_fsync"):
        trials[column] = (
            pd.to_numeric(trials[column], errors="coerce") if column in trials else float("nan")
        )
    medians = (
        trials.groupby(keys, dropna=False, sort=False)[
            ["p50_us", "p99_us", "wal_fsyncs_per_sec", "wal_records_per_fsync"]
        ]
        .median()
        .reset_index()
    )
    summary = summary.merge(medians, on=keys, how="left")
    group = [k for k in keys if k != "fsync"]
    base = summary[summary["fsync"] == "none"][group + ["median", "n"]].rename(
        columns={"median": "_none", "n": "none_n"}
    )
    summary = (
        summary.merge(base, on=group, how="left")
        if group
        else summary.assign(_none=float("nan"), none_n=float("nan"))
    )
    summary["vs_none"] = summary["median"] / summary["_none"]
    blank = pd.Series("", index=summary.index)
    summary["_mode"] = summary.get("client_mode", blank).map(_MODE_ORDER).fillna(9)
    summary["_model"] = summary.get("server_model", blank).map(_MODEL_ORDER).fillna(9)
    summary["_policy"] = (
        summary["fsync"].map({p: i for i, p in enumerate(POLICIES)}).fillna(len(POLICIES))
    )
    summary["_write"] = -summary["set_frac"].astype(float)
    order = [DATASET, "_mode", "_model", "_write", "_policy"]
    summary = summary.sort_values(order, kind="stable")
    return summary.drop(columns=["_none", "_mode", "_model", "_policy", "_write"]).reset_index(
        drop=True
    )


def durability_table(data: Results) -> pd.DataFrame:
    """The durability summary as people read it: one row per client mode, server, workload and
    policy."""
    s = durability_summary(data)
    if s.empty:
        return s

    def number(v, digits=0):
        return "" if pd.isna(v) else f"{v:,.{digits}f}"

    models = s["server_model"] if "server_model" in s else pd.Series("pool", index=s.index)
    table = pd.DataFrame(
        {
            "client mode": s.get("client_mode", ""),
            "server": [f"{m} ({int(t)} thr)" for m, t in zip(models, s["server_threads"])],
            "workload": s["workload"],
            "fsync": s["fsync"],
            "median ops/s": s["median"].map(_thousands),
            "IQR ops/s": [f"{_thousands(a)} – {_thousands(b)}" for a, b in zip(s["q25"], s["q75"])],
            "× no log": [
                ratio_cell(v, n, base).rstrip("×")
                for v, n, base in zip(s["vs_none"], s["n"], s["none_n"])
            ],
            "p50 µs": s["p50_us"].map(number),
            "p99 µs": s["p99_us"].map(number),
            "fsyncs/s": s["wal_fsyncs_per_sec"].map(number),
            "records/fsync": s["wal_records_per_fsync"].map(lambda v: number(v, 1)),
            "trials": s["n"],
        }
    )
    if s[DATASET].nunique() > 1:
        table.insert(0, "dataset", s[DATASET])
    return table


# Trials with roles (run_benchmarks.py --servers/--clients) ----------------------------------------


def cluster_table(data: Results) -> pd.DataFrame:
    """One row per node of every configuration that ran with roles: its role, and over the
    configuration's trials the median of its ops/s and p99 (clients) or its servers (servers),
    followed by the configuration's total: median ops/s over trials, and the median over trials
    of the p50/p99 read off each trial's merged histogram."""
    if NODES not in data.trials or data.trials[NODES].isna().all():
        return pd.DataFrame()
    trials = data.trials[data.trials[NODES].notna()]
    keys = [c for c in data.config_columns if c in trials and trials[c].notna().any()]
    varying = [k for k in keys if trials[k].nunique(dropna=False) > 1] or [
        k for k in ("shards",) if k in keys
    ]
    rows = []
    for config, g in trials.sort_values(varying, kind="stable").groupby(
        keys, dropna=False, sort=False
    ):
        config = dict(zip(keys, config if isinstance(config, tuple) else (config,)))
        name = ", ".join(
            f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}"
            for k, v in config.items()
            if k in varying
        )
        per_node: dict[str, list[dict]] = {}
        for nodes in g[NODES]:
            for node, entry in nodes.items():
                per_node.setdefault(node, []).append(entry)
        for node, entries in per_node.items():
            role = entries[0].get("role", "")
            ops = [e["ops_per_sec"] for e in entries if "ops_per_sec" in e]
            p99 = [e["p99_us"] for e in entries if "p99_us" in e]
            served = max((len(e.get("servers", [])) for e in entries), default=0)
            rows.append(
                {
                    "configuration": name,
                    "node": node,
                    "role": role,
                    "ops/s (median)": _thousands(pd.Series(ops).median()) if ops else "",
                    "p99 µs (median)": f"{pd.Series(p99).median():,.0f}" if p99 else "",
                    "servers": served or "",
                    "trials": len(entries),
                }
            )
        rows.append(
            {
                "configuration": name,
                "node": "**total**",
                "role": f"{g['client_hosts'].iloc[0]} client hosts",
                "ops/s (median)": _thousands(g["ops_per_sec"].median()),
                "p99 µs (median)": f"{g['p99_us'].median():,.0f}" if "p99_us" in g else "",
                "servers": int(g["shards"].iloc[0]),
                "trials": len(g),
            }
        )
    return pd.DataFrame(rows)
