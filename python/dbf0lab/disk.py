"""disk-bench's results: its JSON lines (and the 2020 project's, which have the same first seven
fields), one row per interval; a summary per engine and mix; the comparison with RocksDB and with
the 2020 figures; and the figures of the disk chapter.

A line is a JSON object. disk-bench prints the 2020 fields ``nanoTime, put, delete, deleteFound,
get, getFound, fileSize`` (counts in the interval) and adds its settings (type, mix, compaction,
fsync, ...) and figures (seconds, ops_per_sec, p99_us, write_amp, ...; see ``dbf0 disk-bench
--help``). A line of the 2020 benchmark has only the seven fields: its interval is the time since
the line before (10 s for the first), and its type and mix come from the caller. A line with a
``kind`` describes the file (where the figures come from) and is not an interval.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

FIELDS_2020 = ("nanoTime", "put", "delete", "deleteFound", "get", "getFound", "fileSize")
DEFAULT_INTERVAL_SECONDS = 10.0
# What identifies one run in a file of many: a sweep adds "run"; the rest are disk-bench's.
RUN_KEYS = ("run", "type", "compaction", "fsync", "mix", "threads", "key_space", "value_length")
MIX_ORDER = ("PUT_HEAVY", "BALANCED", "GET_HEAVY", "DELETE_HEAVY")


def read_lines(path: str | os.PathLike[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The interval lines of a file and its ``kind`` lines. A half-written last line (a run
    killed mid-write) is skipped; a bad line elsewhere is an error."""
    lines = Path(path).read_text().splitlines()
    intervals, kinds = [], []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):
                continue
            raise ValueError(f"{path}:{number}: not a JSON line: {line[:80]!r}") from None
        if not isinstance(value, dict):
            raise ValueError(f"{path}:{number}: not a JSON object")
        (kinds if "kind" in value else intervals).append(value)
    return intervals, kinds


def intervals(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    type_: str | None = None,
    mix: str | None = None,
) -> pd.DataFrame:
    """One row per interval of every file: the line's fields, plus ``ops`` (puts, deletes and
    gets), ``seconds`` and ``ops_per_sec`` where the line lacks them (2020 lines), ``interval``
    (1, 2, ... within its run) and ``elapsed_s`` (the run's time at the interval's end).
    ``type_`` and ``mix`` fill in lines that do not name them (the 2020 benchmark's)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    rows: list[dict[str, Any]] = []
    for path in paths:
        lines, _ = read_lines(path)
        for line in lines:
            missing = [f for f in FIELDS_2020 if f not in line]
            if missing:
                raise ValueError(f"{path}: a line lacks the 2020 fields {missing}")
            row = dict(line)
            row.setdefault("type", type_ or "unknown")
            row.setdefault("mix", mix or "unknown")
            row["file"] = str(path)
            rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    for key in RUN_KEYS:
        if key not in frame:
            frame[key] = "-"
    frame[list(RUN_KEYS)] = frame[list(RUN_KEYS)].fillna("-")
    frame["ops"] = frame["put"] + frame["delete"] + frame["get"]
    groups = ["file", *RUN_KEYS]
    if "seconds" not in frame:
        frame["seconds"] = float("nan")
    since_last = frame.groupby(groups, sort=False)["nanoTime"].diff() / 1e9
    frame["seconds"] = frame["seconds"].fillna(since_last).fillna(DEFAULT_INTERVAL_SECONDS)
    if "ops_per_sec" not in frame:
        frame["ops_per_sec"] = float("nan")
    frame["ops_per_sec"] = frame["ops_per_sec"].fillna(frame["ops"] / frame["seconds"])
    frame["interval"] = frame.groupby(groups, sort=False).cumcount() + 1
    frame["elapsed_s"] = frame.groupby(groups, sort=False)["seconds"].cumsum()
    return frame


def engine_label(row: Any) -> str:
    """``lsm leveled``, ``rocksdb tiered``, ``map``, ``2020``: what a line of a figure shows."""
    compaction = row["compaction"]
    return row["type"] if compaction in ("-", "none", None) else f"{row['type']} {compaction}"


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per engine (type and compaction), fsync policy and mix: the median, lowest and
    highest ops/s over the intervals, the median p99 latency, and the amplifications at the end
    (write and space) or over the run (read: blocks read per get or delete; stalls: their total)."""
    if frame.empty:
        return pd.DataFrame()
    data = frame.copy()
    data["engine"] = data.apply(engine_label, axis=1)
    for column in ("p99_us", "write_amp", "space_amp", "blocks_read", "stall_ms"):
        if column not in data:
            data[column] = float("nan")
    rows = []
    for (engine, fsync, mix), g in data.groupby(["engine", "fsync", "mix"], sort=False):
        # a delete looks its key up too (to report whether it was there)
        blocks, gets = g["blocks_read"].sum(min_count=1), g["get"].sum() + g["delete"].sum()
        rows.append(
            {
                "engine": engine,
                "fsync": fsync,
                "mix": mix,
                "intervals": len(g),
                "median_ops_per_sec": g["ops_per_sec"].median(),
                "min_ops_per_sec": g["ops_per_sec"].min(),
                "max_ops_per_sec": g["ops_per_sec"].max(),
                "p99_us": g["p99_us"].median(),
                "write_amp": g["write_amp"].iloc[-1],
                "space_amp": g["space_amp"].iloc[-1],
                "read_amp": blocks / gets if gets and blocks == blocks else float("nan"),
                "stall_ms": g["stall_ms"].sum(min_count=1),
            }
        )
    out = pd.DataFrame(rows)
    out["mix"] = pd.Categorical(out["mix"], _mix_order(out["mix"]))
    return out.sort_values(["mix", "engine"]).reset_index(drop=True)


def _mix_order(mixes: Iterable[str]) -> list[str]:
    seen = list(dict.fromkeys(mixes))
    return [m for m in MIX_ORDER if m in seen] + [m for m in seen if m not in MIX_ORDER]


def comparison(
    frame: pd.DataFrame, reference_2020: pd.DataFrame, ours: str = "lsm leveled"
) -> pd.DataFrame:
    """Per mix: the median ops/s of ``ours``, of RocksDB (same compaction style) and of the 2020
    figures, with ``ours`` over each; the targets are at least 1.0x RocksDB and 2x 2020."""
    table = summary(frame)
    theirs = ours.replace("lsm", "rocksdb", 1)
    ref = reference_2020.groupby("mix", sort=False)["ops_per_sec"].median()
    rows = []
    for mix, g in table.groupby("mix", sort=False, observed=True):
        by_engine = g.set_index("engine")["median_ops_per_sec"]
        mine = by_engine.get(ours, float("nan"))
        rocks = by_engine.get(theirs, float("nan"))
        old = ref.get(mix, float("nan"))
        rows.append(
            {
                "mix": mix,
                ours: mine,
                theirs: rocks,
                "2020": old,
                f"{ours} / {theirs}": mine / rocks,
                f"{ours} / 2020": mine / old,
            }
        )
    return pd.DataFrame(rows)


ENGINE_COLOURS = {
    "lsm leveled": "#1f77b4",
    "lsm tiered": "#6baed6",
    "rocksdb leveled": "#d62728",
    "rocksdb tiered": "#ff9896",
    "map": "#9467bd",
    "btree": "#e377c2",
    "sqlite": "#2ca02c",
    "mvstore": "#ff7f0e",
    "lmdb": "#8c564b",
    "2020": "#7f7f7f",
}


def _engine_colours(engines: Sequence[str]) -> dict[str, str]:
    """One colour per engine, the same in every figure; engines not in ENGINE_COLOURS get others."""
    spare = iter(["#2ca02c", "#ff7f0e", "#8c564b", "#e377c2", "#bcbd22", "#17becf"] * 10)
    return {e: ENGINE_COLOURS.get(e) or next(spare) for e in engines}


def throughput_over_time(frame: pd.DataFrame) -> Figure | None:
    """ops/s of every interval against the run's time, one panel per mix, one line per engine:
    a stall shows as a dip, a collapse as a line that does not come back."""
    if frame.empty:
        return None
    data = frame.copy()
    data["engine"] = data.apply(engine_label, axis=1)
    mixes = _mix_order(data["mix"])
    colours = _engine_colours(list(dict.fromkeys(data["engine"])))
    fig = Figure(figsize=(4.2 * len(mixes), 3.6), layout="constrained")
    axes = fig.subplots(1, len(mixes), squeeze=False)[0]
    for ax, mix in zip(axes, mixes):
        for (engine, _run), g in data[data["mix"] == mix].groupby(["engine", "run"], sort=False):
            ax.plot(g["elapsed_s"], g["ops_per_sec"] / 1e3, marker="o", ms=3,
                    color=colours[engine], label=engine)  # fmt: skip
        ax.set_title(mix)
        ax.set_xlabel("seconds into the run")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("thousand ops/s per interval")
    handles, labels = axes[0].get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    fig.legend(unique.values(), unique.keys(), loc="outside lower center", ncols=len(unique))
    return fig


def amplification(frame: pd.DataFrame) -> Figure | None:
    """Write, space and read amplification at the end of each run, one group of bars per mix and
    one bar per engine: the triangle an LSM tree trades in, by compaction style."""
    table = summary(frame)
    table = table[table["engine"] != "map"] if not table.empty else table
    if table.empty:
        return None
    engines = list(dict.fromkeys(table["engine"]))
    colours = _engine_colours(engines)
    mixes = _mix_order(table["mix"].astype(str))
    fig = Figure(figsize=(13, 3.8), layout="constrained")
    axes = fig.subplots(1, 3)
    width = 0.8 / len(engines)
    titles = (
        ("write_amp", "write amplification\n(bytes written per user byte)"),
        ("space_amp", "space amplification\n(bytes on disk per live byte)"),
        ("read_amp", "read amplification\n(blocks read from disk per lookup)"),
    )
    for ax, (column, title) in zip(axes, titles):
        for i, engine in enumerate(engines):
            rows = table[table["engine"] == engine].set_index("mix")[column]
            values = [rows.get(m, float("nan")) for m in mixes]
            ax.bar([x + i * width for x in range(len(mixes))], values, width,
                   color=colours[engine], label=engine)  # fmt: skip
        ax.set_xticks([x + width * (len(engines) - 1) / 2 for x in range(len(mixes))], mixes)
        ax.set_title(title)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend()
    return fig


def versus(frame: pd.DataFrame, reference_2020: pd.DataFrame) -> Figure | None:
    """Median ops/s per mix: every engine of the run beside the 2020 project's figures measured
    on the same machine (its bar spans its intervals' range)."""
    table = summary(frame)
    if table.empty:
        return None
    ref = reference_2020.groupby("mix")["ops_per_sec"].agg(["median", "min", "max"])
    engines = list(dict.fromkeys(table["engine"])) + ["2020"]
    colours = _engine_colours(engines)
    mixes = [m for m in _mix_order(table["mix"].astype(str)) if m in MIX_ORDER]
    width = 0.8 / len(engines)
    fig = Figure(figsize=(9, 4), layout="constrained")
    ax = fig.subplots()
    for i, engine in enumerate(engines):
        if engine == "2020":
            med = [ref["median"].get(m, float("nan")) / 1e3 for m in mixes]
            low = [ref["min"].get(m, float("nan")) / 1e3 for m in mixes]
            high = [ref["max"].get(m, float("nan")) / 1e3 for m in mixes]
            err = [[m - lo for m, lo in zip(med, low)], [h - m for m, h in zip(med, high)]]
        else:
            rows = table[table["engine"] == engine].set_index("mix")
            med = [rows["median_ops_per_sec"].get(m, float("nan")) / 1e3 for m in mixes]
            low = [rows["min_ops_per_sec"].get(m, float("nan")) / 1e3 for m in mixes]
            high = [rows["max_ops_per_sec"].get(m, float("nan")) / 1e3 for m in mixes]
            err = [[m - lo for m, lo in zip(med, low)], [h - m for m, h in zip(med, high)]]
        ax.bar([x + i * width for x in range(len(mixes))], med, width, yerr=err, capsize=3,
               color=colours[engine], label=engine)  # fmt: skip
    ax.set_xticks([x + width * (len(engines) - 1) / 2 for x in range(len(mixes))], mixes)
    ax.set_ylabel("thousand ops/s (median interval; bars: lowest to highest)")
    ax.set_title("disk-bench: dbf0 beside RocksDB and the 2020 LSM (same machine, same arguments)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend()
    return fig


def save(fig: Figure, directory: str | os.PathLike[str], name: str) -> Path:
    """Writes ``fig`` as ``directory/name.png``."""
    path = Path(directory) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return path


def reference_2020(path: str | os.PathLike[str]) -> pd.DataFrame:
    """The 2020 project's figures as committed (benchmarks/reference/disk-2020-vm.jsonl): one row
    per interval with its mix and ops/s; the file's ``kind: source`` line says where they come
    from."""
    lines, _ = read_lines(path)
    frame = pd.DataFrame(lines)
    missing = {"mix", "ops_per_sec"} - set(frame.columns)
    if frame.empty or missing:
        raise ValueError(f"{path}: no 2020 figures (lines need mix and ops_per_sec)")
    return frame
