"""The analysis side of outliers.py: every trial judged against all of its configuration's trials,
and what the listen queue did, as a table and a figure.

- ``judge_trials`` gives every trial its ``label`` (what the host's TCP counters say its slowest
  operation waited for) and its ``stall`` (why it looks stalled, if it does), and takes out the
  stalls nothing explains: those are left out of the medians and figures, and named.
- ``listen_queue_table``: per configuration where the listen queue overflowed, how many trials
  saw it, and their slowest operation and ops/s beside those of the trials that did not.
- ``listen_queue_figure``: every trial's slowest operation against its ops/s, with the SYN retry
  waits marked: the trials the listen queue slowed sit on the 1 s line.

Results without the TCP counters (older files, the 2020 study's) get no labels, an empty table
and no figure; their stalls are judged as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from . import outliers, results
from .tcp_counters import COUNTERS

DATASET = "dataset"
TRIAL = "trial_index"
LABEL = "label"  # the trial's label (outliers.Label as text), or None
STALL = "stall"  # why the trial looks stalled beside its twins, or None
OUTLIER = "outlier"  # the left-out trials' reason
OVERFLOWS = "listen_overflows"
SHORT_NAMES = {"map_type": "map", "server_threads": "server thr", "client_threads": "client thr"}


def judge_trials(
    trials: pd.DataFrame, config: list[str], keep: bool, warn: Callable[[str], None]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the trials the medians use, with LABEL and STALL columns; the trials left out, with their
    reason in OUTLIER). A trial is left out when it looks stalled and nothing explains it, unless
    it is its configuration's only trial or ``keep`` says to keep them all."""
    labels = pd.Series(None, index=trials.index, dtype=object)
    stalls = pd.Series(None, index=trials.index, dtype=object)
    left_out = pd.Series(False, index=trials.index)
    alone = pd.Series(False, index=trials.index)
    for _, group in trials.groupby(config, dropna=False, sort=False) if len(trials) else []:
        pairs = {
            i: (float(group.at[i, "ops_per_sec"]), _value(group, i, "max_us")) for i in group.index
        }
        for i in group.index:
            verdict = outliers.judge(
                *pairs[i],
                [p for j, p in pairs.items() if j != i],
                _tcp(group, i),
                outliers.client_seconds(
                    _value(group, i, "client_threads"),
                    _value(group, i, "measured_seconds") or _value(group, i, "seconds"),
                    _value(group, i, "client_hosts") or 1,
                ),
            )
            labels[i] = str(verdict.label) if verdict.label else None
            stalls[i] = verdict.stall if verdict.left_out else None
            left_out[i] = verdict.left_out
            alone[i] = len(group) == 1
    dropped = left_out & ~alone & (not keep)
    for i in trials.index[left_out]:
        row = trials.loc[i]
        what = ", ".join(f"{k} {row[k]}" for k in config if k != DATASET and pd.notna(row[k]))
        index = int(row[TRIAL]) if TRIAL in row and pd.notna(row[TRIAL]) else "?"
        fate = (
            "left out of the medians and figures"
            if dropped[i]
            else "kept: the only trial of its configuration"
            if alone[i]
            else "kept, as asked"
        )
        warn(
            f"warning: trial {index} of {row[DATASET]} ({what}) looks stalled, for no reason we "
            f"could see: {stalls[i]}; {fate}"
        )
    judged = trials.assign(**{LABEL: labels, STALL: stalls})
    out = judged[dropped].rename(columns={STALL: OUTLIER}).reset_index(drop=True)
    return judged[~dropped].reset_index(drop=True), out


def tcp_columns(result: dict) -> dict:
    """A result's TCP counter deltas as columns of its row (none for older results)."""
    tcp = result.get("tcp")
    return {key: tcp.get(key) for key in COUNTERS} if isinstance(tcp, dict) and tcp else {}


def configuration_names(
    configurations: Sequence[dict], trials: pd.DataFrame, config: list[str]
) -> list[str]:
    """A short name per configuration: its workload, then its values of the configuration columns
    that vary over the trials."""
    varying = [
        k for k in config if k not in (DATASET, "set_frac") and trials[k].nunique(dropna=False) > 1
    ]
    several = trials[DATASET].nunique() > 1
    names = []
    for row in configurations:
        parts = [row[DATASET]] if several else []
        parts.append(results.workload_name(row["set_frac"]))
        parts += [f"{SHORT_NAMES.get(k, k)} {_plain(row[k])}" for k in varying]
        names.append(", ".join(parts))
    return names


def listen_queue_table(trials: pd.DataFrame, config: list[str]) -> pd.DataFrame:
    """Per configuration where at least one trial saw the listen queue overflow: its trials, how
    many saw an overflow and how many of those were labelled (their slowest operation sat just past
    a SYN retry's wait), the overflows and SYN retries added up, and the medians of the slowest
    operation and of ops/s, with the overflow and without. Empty for results without the
    counters."""
    if OVERFLOWS not in trials or trials[OVERFLOWS].isna().all():
        return pd.DataFrame()
    measured = trials[trials[OVERFLOWS].notna()]
    rows, keys = [], []
    for key, g in measured.groupby(config, dropna=False, sort=False):
        hit = g[OVERFLOWS] > 0
        if not hit.any():
            continue
        keys.append(dict(zip(config, key)))
        with_, without = g[hit], g[~hit]
        rows.append(
            {
                "trials": len(g),
                "with overflow": int(hit.sum()),
                "labelled": int(g[LABEL].notna().sum()) if LABEL in g else 0,
                "overflows": int(g[OVERFLOWS].sum()),
                "SYN retries": int(g["syn_retrans"].fillna(0).sum()) if "syn_retrans" in g else 0,
                "max ms (with)": _ms(with_),
                "max ms (without)": _ms(without),
                "ops/s (with)": _ops(with_),
                "ops/s (without)": _ops(without),
            }
        )
    if not rows:
        return pd.DataFrame()
    names = configuration_names(keys, measured, config)
    table = pd.DataFrame(rows).assign(configuration=names)[["configuration", *rows[0]]]
    # in the order of the analysis' other tables: by workload, then the configuration's values
    order = [DATASET, "set_frac"] + [k for k in config if k not in (DATASET, "set_frac")]
    ranks = pd.DataFrame(keys)[order].sort_values(order, kind="stable", na_position="last")
    return table.loc[ranks.index].reset_index(drop=True)


def listen_queue_figure(data) -> Figure | None:
    """Every trial that recorded the TCP counters: its slowest operation (log scale) against its
    ops/s, one panel per workload, the trials whose host saw the listen queue overflow in red; the
    dashed lines are the SYN retry waits (1 s, and 2 s and 3 s where a trial came near)."""
    trials = data.trials
    if OVERFLOWS not in trials or "max_us" not in trials:
        return None
    t = trials[trials[OVERFLOWS].notna() & trials["max_us"].notna()]
    if t.empty:
        return None
    workloads = sorted(t["set_frac"].unique())
    fig = Figure(figsize=(3.8 * len(workloads) + 0.6, 3.9), layout="constrained")
    axes = fig.subplots(1, len(workloads), squeeze=False, sharey=True)[0]
    for ax, frac in zip(axes, workloads):
        part = t[t["set_frac"] == frac]
        hit = part[OVERFLOWS] > 0
        for mask, colour, name in ((~hit, "#1f77b4", "no overflow"), (hit, "#d62728", "overflow")):
            ax.scatter(
                part["ops_per_sec"][mask],
                part["max_us"][mask] / 1000,
                s=22,
                color=colour,
                alpha=0.8,
                label=f"listen queue: {name}",
            )
        for wait in [w for w in (1, 2, 3) if w == 1 or t["max_us"].max() > (w - 0.5) * 1e6]:
            ax.axhline(wait * 1000, color="#555555", linestyle="--", linewidth=0.8)
        ax.set_yscale("log")
        ax.set_title(results.workload_name(frac))
        ax.set_xlabel("ops/s of the trial")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("slowest operation (ms, log scale)")
    axes[0].text(
        0.02, 1000, " SYN retried after 1 s", transform=axes[0].get_yaxis_transform(), va="bottom"
    )
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside lower center", ncols=2, fontsize=8)
    fig.suptitle("The listen queue: each trial's slowest operation against its ops/s")
    return fig


def _tcp(group: pd.DataFrame, i) -> dict | None:
    if OVERFLOWS not in group or pd.isna(group.at[i, OVERFLOWS]):
        return None
    return {k: int(group.at[i, k]) for k in COUNTERS if k in group and pd.notna(group.at[i, k])}


def _value(frame: pd.DataFrame, i, column: str) -> float | None:
    if column not in frame:
        return None
    value = frame.at[i, column]
    return None if value is None or pd.isna(value) else float(value)


def _ms(trials: pd.DataFrame) -> str:
    return "" if trials.empty else f"{trials['max_us'].median() / 1000:,.0f}"


def _ops(trials: pd.DataFrame) -> str:
    return "" if trials.empty else f"{trials['ops_per_sec'].median():,.0f}"


def _plain(value) -> str:
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    return str(value)


def label_counts(trials: pd.DataFrame) -> Sequence[tuple[str, int]]:
    """How many trials carry each label."""
    if LABEL not in trials:
        return []
    return list(trials[LABEL].dropna().value_counts().items())
