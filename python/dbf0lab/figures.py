"""The figures of the analysis. Each takes loaded results and returns a matplotlib Figure.

They use matplotlib's object API (no pyplot), so they need no display and pick no backend: the
same code writes PNG files from a script and shows inline in a notebook.

A new figure is one function plus one line in FIGURES; scripts/analyze.py then writes it, and the
notebook shows it with ``figures.show(data, "its-name", figures_dir)``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, NullLocator

from . import analysis, outlier_report
from .analysis import DATASET, Results

MAP_COLORS = {
    "concurrent": "#1f77b4",
    "hashtable": "#ff7f0e",
    "synchronized": "#2ca02c",
    "skiplist": "#9467bd",
    "hashmap": "#d62728",
}


def _color(map_type: str) -> str:
    return MAP_COLORS.get(map_type, "#7f7f7f")


def _map_legend(ax_or_fig, map_types, **kwargs) -> None:
    """A legend entry per map colour used: the bars coloured by map say which is which."""
    handles = [Patch(color=_color(m), label=m) for m in dict.fromkeys(map_types)]
    ax_or_fig.legend(handles=handles, **kwargs)


def _several(frame: pd.DataFrame) -> bool:
    return frame[DATASET].nunique() > 1


def _mode_study(data: Results) -> bool:
    """Results of the steps or models presets: the thread-sweep figures do not apply to them."""
    return "client_mode" in data.config_columns


def best_configurations(data: Results) -> Figure | None:
    """Horizontal bars: the best thread setting's median ops/s per (workload, map, key space),
    with the interquartile range as error bars and the thread setting written beside."""
    if _mode_study(data):
        return None
    best = analysis.best_configurations(analysis.summarize(data))
    labels = [
        (f"{r[DATASET]} · " if _several(best) else "")
        + f"{r.workload} · {r.map_type} · {r.key_space}"
        for r in best.itertuples()
    ]
    y = np.arange(len(best))[::-1]
    fig = Figure(figsize=(9, 1.2 + 0.32 * len(best)), layout="constrained")
    ax = fig.subplots()
    err = np.vstack([best["median"] - best["q25"], best["q75"] - best["median"]])
    ax.barh(
        y,
        best["median"],
        xerr=err,
        color=[_color(m) for m in best["map_type"]],
        capsize=3,
        height=0.7,
    )
    for yi, r in zip(y, best.itertuples()):
        ax.text(
            r.q75,
            yi,
            f"  {r.server_threads} server / {r.client_threads} client thr, n={r.n}",
            va="center",
            fontsize=8,
        )
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel("ops/s (median over trials; bars: 25th–75th percentile)")
    ax.set_xlim(0, best["q75"].max() * 1.45)
    ax.set_title("Best thread setting per workload, map and key space")
    ax.grid(axis="x", alpha=0.3)
    _map_legend(ax, best["map_type"], title="map", fontsize=8, title_fontsize=8, loc="lower right")
    return fig


def threading_impact(data: Results) -> Figure | None:
    """Per workload: one server and one client thread against the best thread setting, for each
    map and key space, with the speed-up written on top (where both rest on two trials or more)."""
    if _mode_study(data):
        return None
    impact = analysis.threading_impact(analysis.summarize(data))
    workloads = list(dict.fromkeys(impact["workload"]))
    fig = Figure(figsize=(4.2 * len(workloads), 4.2), layout="constrained")
    axes = fig.subplots(
        1, len(workloads), squeeze=False, sharey=True
    )  # workloads compared on one scale
    for ax, workload in zip(axes[0], workloads):
        part = impact[impact["workload"] == workload]
        x = np.arange(len(part))
        width = 0.38
        single_err = np.vstack(
            [part["single_median"] - part["single_q25"], part["single_q75"] - part["single_median"]]
        )
        best_err = np.vstack([part["median"] - part["q25"], part["q75"] - part["median"]])
        ax.bar(
            x - width / 2,
            part["single_median"],
            width,
            yerr=single_err,
            capsize=2,
            color="#bbbbbb",
            label="1 server, 1 client thread",
        )
        ax.bar(
            x + width / 2,
            part["median"],
            width,
            yerr=best_err,
            capsize=2,
            color=[_color(m) for m in part["map_type"]],
        )
        for xi, r in zip(x, part.itertuples()):
            text = analysis.ratio_cell(r.speedup, r.n, r.single_n, 1)
            if text:  # the speed-up, or how few trials keep it from being shown
                ax.text(xi + width / 2, r.q75, text, ha="center", va="bottom", fontsize=8)
        ax.set_xticks(
            x,
            [
                (f"{r[DATASET]}\n" if _several(part) else "")
                + f"{r.map_type}\n{r.key_length} B keys"
                for r in part.itertuples()
            ],
            fontsize=7,
        )
        ax.set_title(workload)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("ops/s (median, IQR)")
    # every colour: grey is single-threaded, the others the best setting on each map
    handles = [Patch(color="#bbbbbb", label="1 server, 1 client thread")] + [
        Patch(color=_color(m), label=f"best thread setting, {m}")
        for m in dict.fromkeys(impact["map_type"])
    ]
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8)
    fig.suptitle("Threading impact: best thread setting against single-threaded")
    return fig


def ops_vs_client_threads(data: Results) -> Figure | None:
    """Median ops/s against client threads, one line per server thread count, with the IQR as a
    band: a row per workload, a column per map and key space."""
    if _mode_study(data):
        return None
    summary = analysis.summarize(data)
    summary = summary[summary["n"] > 0]
    columns = [c for c in (DATASET, "map_type", "key_length") if c in summary]
    if not _several(summary):
        columns.remove(DATASET)
    panels = list(dict.fromkeys(summary[columns].itertuples(index=False, name=None)))
    workloads = list(dict.fromkeys(summary["workload"]))
    fig = Figure(figsize=(3.6 * len(panels), 2.9 * len(workloads)), layout="constrained")
    axes = fig.subplots(len(workloads), len(panels), squeeze=False, sharex=True)
    servers = sorted(summary["server_threads"].unique())
    cmap = matplotlib.colormaps["viridis"]
    for i, workload in enumerate(workloads):
        for j, panel in enumerate(panels):
            ax = axes[i][j]
            part = summary[
                (summary["workload"] == workload) & (summary[columns].apply(tuple, axis=1) == panel)
            ]
            for k, s in enumerate(servers):
                line = part[part["server_threads"] == s].sort_values("client_threads")
                if line.empty:
                    continue
                color = cmap(0.8 * k / max(1, len(servers) - 1))  # not viridis's pale yellow end
                ax.plot(
                    line["client_threads"],
                    line["median"],
                    marker="o",
                    ms=3,
                    color=color,
                    label=f"{s}",
                )
                ax.fill_between(
                    line["client_threads"], line["q25"], line["q75"], color=color, alpha=0.2
                )
            ax.set_xscale("log", base=2)
            ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
            title = " · ".join(
                analysis.key_space_name(v) if c == "key_length" else str(v)
                for c, v in zip(columns, panel)
            )
            ax.set_title(f"{workload}: {title}", fontsize=9)
            if j == 0:
                ax.set_ylabel("ops/s (median, IQR)")
            if i == len(workloads) - 1:
                ax.set_xlabel("client threads")
    axes[0][-1].legend(title="server threads", fontsize=7, title_fontsize=7, loc="lower right")
    fig.suptitle("Throughput against client threads, one line per server thread count")
    clients = sorted(summary["client_threads"].unique())
    for ax in axes.flat:
        ax.set_xticks(clients, [str(c) for c in clients])
        ax.xaxis.set_minor_locator(NullLocator())
    return fig


def _log_bars_axes(ax, x, labels, ylabel: str, title: str) -> None:
    """The frame of a grouped bar chart whose values span orders of magnitude."""
    ax.set_yscale("log")
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3, which="both")


def client_modes(data: Results) -> Figure | None:
    """Per workload, one bar per client mode (the steps v1 → persistent → pipelined → batched),
    log scale, median with IQR error bars and the figure written on each bar. None for results
    with fewer than two client modes."""
    if analysis.is_durability_study(data):
        return None  # each mode once per fsync policy: the durability figure sets them side by side
    summary = analysis.summarize(data)
    if "client_mode" not in summary or summary["client_mode"].nunique() < 2:
        return None  # one mode (or none): nothing to compare
    summary = summary[summary["client_mode"].notna()].copy()
    summary["_rank"] = [analysis.step_rank(r) for r in summary.to_dict("records")]
    summary = summary.sort_values("_rank", kind="stable")
    summary["step"] = [analysis.step_label(r, "\n") for r in summary.to_dict("records")]
    clash = summary.duplicated(["workload", "step"], keep=False)
    summary.loc[clash, "step"] += [
        f"\n{r.server_model}, {int(r.client_threads)} conn." for r in summary[clash].itertuples()
    ]
    steps = list(dict.fromkeys(summary["step"]))
    workloads = [
        w for w in ("read-heavy", "balanced", "write-heavy") if w in set(summary["workload"])
    ]
    fig = Figure(figsize=(10, 4.2), layout="constrained")
    ax = fig.subplots()
    width = 0.8 / max(1, len(workloads))
    colors = {"read-heavy": "#1f77b4", "balanced": "#2ca02c", "write-heavy": "#d62728"}
    x = np.arange(len(steps))
    for i, workload in enumerate(workloads):
        rows = summary[summary["workload"] == workload].set_index("step").reindex(steps)
        err = np.vstack([rows["median"] - rows["q25"], rows["q75"] - rows["median"]])
        pos = x + (i - (len(workloads) - 1) / 2) * width
        ax.bar(
            pos,
            rows["median"],
            width,
            yerr=err,
            capsize=2,
            color=colors.get(workload),
            label=workload,
        )
        for px, value in zip(pos, rows["median"]):
            if pd.notna(value):
                ax.text(
                    px,
                    value * 1.08,
                    analysis._thousands(value),
                    ha="center",
                    va="bottom",
                    fontsize=6,
                    rotation=90,
                )
    _log_bars_axes(
        ax,
        x,
        steps,
        "ops/s (median over trials, log scale; bars: IQR)",
        "One bottleneck at a time: from the seed's v1 to batched v2",
    )
    return fig


def server_models(data: Results) -> Figure | None:
    """ops/s per server model and number of client connections, for results of one client mode
    (the models preset). None otherwise."""
    if analysis.is_durability_study(data):
        return None  # the durability figure shows the models, policy by policy
    summary = analysis.summarize(data)
    if "server_model" not in summary or summary["server_model"].isna().all():
        return None
    if "client_mode" in summary and summary["client_mode"].nunique() > 1:
        return None  # several client modes: that is the client-modes figure's comparison
    if "shards" in summary:
        return None  # trials with roles: the scaling figures show them
    if summary["map_type"].nunique() > 1:
        return None  # several maps (the maps preset): that is the maps figure's comparison
    summary = summary[summary["server_model"].notna()].copy()
    model_order = {"pool": 0, "virtual": 1, "nio": 2}
    summary["_m"] = summary["server_model"].map(model_order).fillna(len(model_order))
    summary["_k"] = [
        ("platform", "virtual", "selector").index(_client_kind(r))
        for r in summary.to_dict("records")
    ]
    summary = summary.sort_values(["_m", "client_threads", "_k"], kind="stable")
    # how the clients ran: a platform thread each (plain bar), a virtual thread each (//), or
    # one selector thread for all of them (..)
    kinds = [_client_kind(r) for r in summary.to_dict("records")]
    labels = [
        f"{r.server_model}\n{int(r.client_threads):,} conn."
        + {"platform": "", "virtual": "\nvirtual clients", "selector": "\nselector client"}[k]
        for r, k in zip(summary.itertuples(), kinds)
    ]
    fig = Figure(
        figsize=(max(8.0, 1.05 * len(summary)), 3.8), layout="constrained"
    )  # room for every label
    ax = fig.subplots()
    x = np.arange(len(summary))
    err = np.vstack([summary["median"] - summary["q25"], summary["q75"] - summary["median"]])
    model_colors = {"pool": "#7f7f7f", "virtual": "#9467bd", "nio": "#1f77b4"}
    bars = ax.bar(
        x,
        summary["median"],
        yerr=err,
        capsize=3,
        color=[model_colors.get(m, "#333") for m in summary["server_model"]],
    )
    for bar, kind in zip(bars, kinds):
        bar.set_hatch({"platform": "", "virtual": "//", "selector": ".."}[kind])
    for xi, value in zip(x, summary["median"]):
        ax.text(xi, value, analysis._thousands(value), ha="center", va="bottom", fontsize=7)
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylabel("ops/s (median; bars: IQR)")
    ax.set_title("Server models with persistent connections")
    ax.grid(axis="y", alpha=0.3)
    return fig


MAP_LADDER = ("hashtable", "synchronized", "rwlock", "striped", "concurrent")
KEY_DIST_COLORS = {
    "uniform": "#1f77b4",
    "zipfian": "#d62728",
    "hotspot": "#ff7f0e",
    "latest": "#2ca02c",
    "exponential": "#9467bd",
}


def maps(data: Results) -> Figure | None:
    """The maps preset: the ladder of locking (one global lock, a read/write lock, 16 stripes,
    ConcurrentHashMap) left to right, one panel per workload, a bar per key distribution: median
    ops/s with IQR error bars and the median written on each bar. None for results that do not
    vary the map over a keyed workload."""
    summary = analysis.summarize(data)
    if (
        "key_dist" not in summary
        or summary["key_dist"].isna().all()
        or summary["map_type"].nunique() < 2
    ):
        return None
    summary = summary[summary["key_dist"].notna() & (summary["n"] > 0)].copy()
    order = {m: i for i, m in enumerate(MAP_LADDER)}
    maps_present = sorted(summary["map_type"].unique(), key=lambda m: (order.get(m, len(order)), m))
    dists = [d for d in KEY_DIST_COLORS if d in set(summary["key_dist"])] + sorted(
        set(summary["key_dist"]) - set(KEY_DIST_COLORS)
    )
    panel_columns = [DATASET, "workload"] if _several(summary) else ["workload"]
    panels = list(
        dict.fromkeys(
            summary.sort_values("set_frac")[panel_columns].itertuples(index=False, name=None)
        )
    )
    fig = Figure(
        figsize=(max(6.0, 1.3 * len(maps_present)) * len(panels) / 1.6, 4.0), layout="constrained"
    )
    axes = fig.subplots(1, len(panels), squeeze=False, sharey=True)
    x = np.arange(len(maps_present))
    width = 0.8 / len(dists)
    for ax, panel in zip(axes[0], panels):
        part = summary[summary[panel_columns].apply(tuple, axis=1) == panel]
        for i, dist in enumerate(dists):
            # several rows per (map, dist) would be other axes varying: the preset
            # fixes them, so take the first
            rows = (
                part[part["key_dist"] == dist]
                .drop_duplicates("map_type")
                .set_index("map_type")
                .reindex(maps_present)
            )
            err = np.vstack([rows["median"] - rows["q25"], rows["q75"] - rows["median"]])
            pos = x + (i - (len(dists) - 1) / 2) * width
            ax.bar(
                pos,
                rows["median"],
                width,
                yerr=err,
                capsize=2,
                color=KEY_DIST_COLORS.get(dist, "#7f7f7f"),
                label=f"{dist} keys",
            )
            for px, value in zip(pos, rows["median"]):
                if pd.notna(value):  # inside the bar, from its foot: clear of the error bars
                    ax.text(
                        px,
                        0,
                        " " + analysis._thousands(value),
                        ha="center",
                        va="bottom",
                        fontsize=6,
                        rotation=90,
                        color="white",
                    )
        ax.set_xticks(x, maps_present, fontsize=8, rotation=20)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: analysis._thousands(v)))
        ax.set_title(" · ".join(str(v) for v in panel), fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("ops/s (median over trials; bars: IQR)")
    axes[0][0].set_ylim(bottom=0)
    fig.legend(
        *axes[0][0].get_legend_handles_labels(),
        loc="outside lower center",
        ncols=len(dists),
        fontsize=8,
    )
    fig.suptitle(
        "The map ladder: one global lock → a read/write lock → 16 stripes → ConcurrentHashMap"
    )
    return fig


def _client_kind(row: dict) -> str:
    """platform, virtual or selector: what the load-generating clients of a result ran on."""
    selectors = row.get("selector_threads")
    if selectors is not None and not pd.isna(selectors) and int(selectors) > 0:
        return "selector"
    return "virtual" if row.get("client_thread_kind") == "virtual" else "platform"


POLICY_COLORS = {"none": "#bbbbbb", "never": "#2ca02c", "interval": "#ff7f0e", "always": "#d62728"}


def durability(data: Results) -> Figure | None:
    """The write-ahead log's cost (the durability preset), one group of bars per client mode,
    server model and workload, one bar per fsync policy: ops/s (median, IQR), p99 latency with the
    p50 marked, and what the log did (fsyncs per second, records per fsync: group commit). Log
    scales throughout: the policies differ by orders of magnitude. None without an fsync axis."""
    s = analysis.durability_summary(data)
    if s.empty:
        return None
    group_columns = [
        c
        for c in (DATASET, "client_mode", "server_model", "workload")
        if c in s and (c != DATASET or _several(s))
    ]
    s["_group"] = [
        "\n".join(str(v) for v in row)
        for row in s[group_columns].itertuples(index=False, name=None)
    ]
    groups = list(dict.fromkeys(s["_group"]))
    policies = [p for p in analysis.POLICIES if p in set(s["fsync"])] + sorted(
        set(s["fsync"]) - set(analysis.POLICIES)
    )
    fig = Figure(figsize=(max(10.0, 1.3 * len(groups) * 2), 8.2), layout="constrained")
    axes = fig.subplots(2, 2)
    x = np.arange(len(groups))
    width = 0.8 / max(1, len(policies))

    def bars(ax, column, which, errors=False, label_values=False):
        shown = [p for p in policies if p in which]
        for i, policy in enumerate(shown):
            rows = s[s["fsync"] == policy].set_index("_group").reindex(groups)
            pos = x + (i - (len(shown) - 1) / 2) * (0.8 / max(1, len(shown)))
            err = (
                np.vstack([rows["median"] - rows["q25"], rows["q75"] - rows["median"]])
                if errors
                else None
            )
            ax.bar(
                pos,
                rows[column],
                0.8 / max(1, len(shown)),
                yerr=err,
                capsize=2,
                color=POLICY_COLORS.get(policy, "#7f7f7f"),
                label=policy,
            )
            if label_values:
                for px, value in zip(pos, rows[column]):
                    if pd.notna(value) and value > 0:
                        ax.text(
                            px,
                            value * 1.1,
                            analysis._thousands(value),
                            ha="center",
                            va="bottom",
                            fontsize=6,
                            rotation=90,
                        )
        return shown

    bars(axes[0][0], "median", policies, errors=True, label_values=True)
    _log_bars_axes(
        axes[0][0], x, groups, "ops/s (median; bars: IQR)", "Throughput per fsync policy"
    )
    bars(axes[0][1], "p99_us", policies)
    for i, policy in enumerate(policies):  # the p50 as a mark inside each p99 bar
        rows = s[s["fsync"] == policy].set_index("_group").reindex(groups)
        axes[0][1].plot(
            x + (i - (len(policies) - 1) / 2) * width,
            rows["p50_us"],
            "k_",
            ms=8,
            label="p50" if i == 0 else None,
        )
    _log_bars_axes(
        axes[0][1], x, groups, "latency, µs (median over trials)", "p99 latency (bars), p50 (marks)"
    )
    forced = [
        p for p in policies if s.loc[s["fsync"] == p, "wal_fsyncs_per_sec"].fillna(0).gt(0).any()
    ]
    for ax, column, ylabel, title in (
        (
            axes[1][0],
            "wal_fsyncs_per_sec",
            "fsyncs per second (median)",
            "How often the log was forced",
        ),
        (
            axes[1][1],
            "wal_records_per_fsync",
            "records per fsync (median)",
            "Group commit: records made durable per fsync",
        ),
    ):
        if forced:
            bars(ax, column, forced, label_values=True)
            _log_bars_axes(ax, x, groups, ylabel, title)
        else:
            ax.set_axis_off()
            ax.set_title(f"{title}: no policy forced the log")
    fig.suptitle("The write-ahead log: what each fsync policy costs")
    return fig


def _scaling_summary(data: Results) -> pd.DataFrame | None:
    """The summary of the trials with roles (a shards column), or None when there are none."""
    if "shards" not in data.config_columns:
        return None
    summary = analysis.summarize(data)
    summary = summary[(summary["n"] > 0) & summary["shards"].notna()].copy()
    if summary.empty:
        return None
    summary["shards"] = summary["shards"].astype(int)
    return summary


def _scaling_panels(summary: pd.DataFrame) -> list[tuple]:
    """One panel per dataset and workload (usually one)."""
    columns = [DATASET, "workload"]
    return list(dict.fromkeys(summary[columns].itertuples(index=False, name=None)))


def scaling_clients(data: Results) -> Figure | None:
    """The scaling curve: total ops/s (median over trials, IQR band) against client threads per
    client host, one line per number of server shards. None without trials with roles."""
    summary = _scaling_summary(data)
    if summary is None:
        return None
    panels = _scaling_panels(summary)
    fig = Figure(figsize=(5.2 * len(panels), 3.8), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    shard_counts = sorted(summary["shards"].unique())
    cmap = matplotlib.colormaps["viridis"]
    for ax, (dataset, workload) in zip(axes, panels):
        part = summary[(summary[DATASET] == dataset) & (summary["workload"] == workload)]
        for k, shards in enumerate(shard_counts):
            line = part[part["shards"] == shards].sort_values("client_threads")
            if line.empty:
                continue
            color = cmap(0.8 * k / max(1, len(shard_counts) - 1))  # not viridis's pale yellow end
            ax.plot(
                line["client_threads"],
                line["median"],
                marker="o",
                ms=4,
                color=color,
                label=f"{shards} server{'s' if shards > 1 else ''}",
            )
            ax.fill_between(
                line["client_threads"], line["q25"], line["q75"], color=color, alpha=0.2
            )
        clients = sorted(part["client_threads"].unique())
        ax.set_xscale("log", base=2)
        ax.set_xticks(clients, [str(int(c)) for c in clients])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_ylim(bottom=0)
        ax.set_xlabel("client threads per client host")
        ax.set_ylabel("total ops/s (median over trials, IQR)")
        ax.set_title(f"{dataset} · {workload}" if _several(summary) else workload, fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Scaling curve: throughput against client threads")
    return fig


def scaling_shards(data: Results) -> Figure | None:
    """Total ops/s against the number of server shards, one line per client thread count, with
    the linear ideal from one shard (dashed) for the largest client thread count. None without
    trials with roles, or with one shard count only."""
    summary = _scaling_summary(data)
    if summary is None or summary["shards"].nunique() < 2:
        return None
    panels = _scaling_panels(summary)
    fig = Figure(figsize=(5.2 * len(panels), 3.8), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    threads = sorted(summary["client_threads"].unique())
    cmap = matplotlib.colormaps["plasma"]
    for ax, (dataset, workload) in zip(axes, panels):
        part = summary[(summary[DATASET] == dataset) & (summary["workload"] == workload)]
        for k, t in enumerate(threads):
            line = part[part["client_threads"] == t].sort_values("shards")
            if line.empty:
                continue
            color = cmap(0.85 * k / max(1, len(threads) - 1))
            err = np.vstack([line["median"] - line["q25"], line["q75"] - line["median"]])
            ax.errorbar(
                line["shards"],
                line["median"],
                yerr=err,
                marker="o",
                ms=4,
                capsize=3,
                color=color,
                label=f"{int(t)} client thr",
            )
            if t == threads[-1] and (line["shards"] == 1).any():
                one = float(line.loc[line["shards"] == 1, "median"].iloc[0])
                xs = np.array(sorted(line["shards"]))
                ax.plot(
                    xs,
                    one * xs,
                    linestyle="--",
                    color=color,
                    alpha=0.6,
                    label=f"linear from 1 server ({int(t)} thr)",
                )
        shards = sorted(part["shards"].unique())
        ax.set_xticks(shards, [str(s) for s in shards])
        ax.set_ylim(bottom=0)
        ax.set_xlabel("server processes (shards)")
        ax.set_ylabel("total ops/s (median over trials, IQR)")
        ax.set_title(f"{dataset} · {workload}" if _several(summary) else workload, fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Throughput against the number of server shards")
    return fig


FIGURES: dict[str, Callable[[Results], Figure | None]] = {
    "best-configurations": best_configurations,
    "threading-impact": threading_impact,
    "ops-vs-client-threads": ops_vs_client_threads,
    "client-modes": client_modes,
    "server-models": server_models,
    "durability": durability,
    "scaling-clients": scaling_clients,
    "scaling-shards": scaling_shards,
    "maps": maps,
    "listen-queue": outlier_report.listen_queue_figure,  # where the TCP counters were recorded
}


def redis_comparison(frame: pd.DataFrame) -> Figure:
    """dbf0 against Redis with the same redis-benchmark runs (scripts/compare_redis.py): requests
    per second of each, and the median of the pair ratios written above each pair of bars."""
    summary = analysis.redis_summary(frame)
    labels = [
        (f"appendfsync {r.policy}\n" if "policy" in summary else "") + f"{r.test}\n{r.command}"
        for r in summary.itertuples()
    ]
    x = np.arange(len(summary))
    fig = Figure(figsize=(9, 3.8), layout="constrained")
    ax = fig.subplots()
    ax.bar(x - 0.2, summary["redis_rps"], 0.4, label="Redis", color="#d62728")
    ax.bar(x + 0.2, summary["dbf0_rps"], 0.4, label="dbf0", color="#1f77b4")
    for xi, r in zip(x, summary.itertuples()):
        ax.text(xi, max(r.redis_rps, r.dbf0_rps) * 1.05, f"{r.ratio:.2f}x", ha="center", fontsize=8)
    _log_bars_axes(
        ax,
        x,
        labels,
        "requests/s (median of pairs, log scale)",
        "dbf0 vs Redis: redis-benchmark -d 64 -r 100000 (dbf0/Redis above each pair)",
    )
    return fig


def save(fig: Figure, directory: str | os.PathLike[str], name: str) -> Path:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.png"
    fig.savefig(path, dpi=110)
    return path


def write_all(data: Results, directory: str | os.PathLike[str]) -> list[Path]:
    """Every figure in FIGURES that applies to the data, as DIRECTORY/NAME.png."""
    paths = []
    for name, make in FIGURES.items():
        fig = make(data)
        if fig is not None:
            paths.append(save(fig, directory, name))
    return paths


def show(
    data: Results, name: str, directory: str | os.PathLike[str] | None = None
) -> Figure | None:
    """For the notebook: makes one figure, saves it when a directory is given, and returns it, so
    that a cell ending in this call displays it."""
    fig = FIGURES[name](data)
    if fig is not None and directory is not None:
        save(fig, directory, name)
    return fig
