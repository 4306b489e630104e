"""The nemesis's figures, from its campaign lines (python/dbf0lab/nemesis.py writes them):

- ``timeline``: one campaign's acknowledged writes and answered reads per 100 ms, each fault shaded
  from its injection to its healing, with the longest wait for a write it caused written beside;
- ``recovery``: every fault's longest wait for an acknowledged write, per kind of fault, one column
  of dots per system, the median marked: dbf0 beside Redis Cluster.

matplotlib's object API, as in figures.py: no display, no backend chosen.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from .nemesis_history import median

FAULT_COLOURS = {
    "kill": "#d62728",
    "pause": "#ff7f0e",
    "partition": "#9467bd",
    "kill-all": "#8c564b",
    "wipe": "#7f7f7f",
}
SYSTEM_COLOURS = {"dbf0": "#1f77b4", "redis": "#d62728"}
KIND_ORDER = ("kill", "pause", "partition", "kill-all", "wipe")


def read_campaigns(paths: Iterable[str | os.PathLike[str]]) -> list[dict[str, Any]]:
    """The campaigns of every file, those that ran (a line with ``error`` did not)."""
    out = []
    for path in paths:
        for line in Path(path).read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                if "error" not in r:
                    out.append(r)
    return out


def timeline(campaign: dict[str, Any]) -> Figure:
    """Operations per 100 ms through one campaign, the faults shaded."""
    t = campaign["timeline"]
    step = t["bin_ms"] / 1000
    xs = [i * step for i in range(len(t["writes"]))]
    fig = Figure(figsize=(10, 3.4), layout="constrained")
    ax = fig.add_subplot()
    ax.step(xs, t["writes"], where="post", color="#1f77b4", lw=1, label="writes acknowledged")
    ax.step(xs, t["reads"], where="post", color="#2ca02c", lw=1, alpha=0.7, label="reads answered")
    top = max([*t["writes"], *t["reads"], 1])
    for f in campaign["faults"]:
        colour = FAULT_COLOURS.get(f["kind"], "#7f7f7f")
        ax.axvspan(f["at_s"], f["healed_s"], color=colour, alpha=0.15, lw=0)
        ax.axvline(f["at_s"], color=colour, lw=1)
        waited = "" if f.get("recovery_ms") is None else f"\n{f['recovery_ms'] / 1000:.1f} s"
        ax.text(f["at_s"], top * 1.02, f" {f['kind']}{waited}", color=colour, va="top", fontsize=8)
    ax.set_xlim(0, max(xs[-1] + step, 1))
    ax.set_ylim(0, top * 1.15)
    ax.set_xlabel("seconds since the clients started")
    ax.set_ylabel("operations per 100 ms")
    ax.set_title(
        f"{campaign['system']} {campaign['name']}: {campaign['ops_per_sec']:g} ops/s,"
        f" {campaign['lost_writes']} writes lost, {campaign['verdict']}"
        " (shaded: from the fault until it was healed)",
        fontsize=9,
    )
    ax.legend(loc="lower right", fontsize=8)
    return fig


def recovery_by_kind(campaigns: Sequence[dict[str, Any]]) -> dict[tuple[str, str], list[float]]:
    """(system, fault kind) -> every such fault's longest wait for an acknowledged write (s)."""
    out: dict[tuple[str, str], list[float]] = {}
    for r in campaigns:
        for f in r["faults"]:
            if f.get("recovery_ms") is not None:
                out.setdefault((r["system"], f["kind"]), []).append(f["recovery_ms"] / 1000)
    return out


def recovery(campaigns: Sequence[dict[str, Any]]) -> Figure | None:
    """Each fault's longest wait for an acknowledged write, per kind and system; None if no
    campaign has a fault that hit a key."""
    data = recovery_by_kind(campaigns)
    if not data:
        return None
    systems = sorted({s for s, _ in data}, key=lambda s: (s != "dbf0", s))
    kinds = [k for k in KIND_ORDER if any(k == kk for _, kk in data)]
    fig = Figure(figsize=(1.6 + 1.5 * len(kinds) * len(systems) / 2, 3.6), layout="constrained")
    ax = fig.add_subplot()
    width = 0.8 / len(systems)
    for j, system in enumerate(systems):
        colour = SYSTEM_COLOURS.get(system, "#7f7f7f")
        for i, kind in enumerate(kinds):
            ys = data.get((system, kind), [])
            if not ys:
                continue
            x = i - 0.4 + width * (j + 0.5)
            spread = [x + width * 0.3 * ((n % 5) - 2) / 2 for n in range(len(ys))]
            ax.scatter(spread, ys, s=12, color=colour, alpha=0.6, lw=0)
            m = median(ys)
            ax.hlines(m, x - width * 0.4, x + width * 0.4, color=colour, lw=2)
            ax.text(x, m, f"{m:.1f}", color=colour, fontsize=7, ha="center", va="bottom")
        ax.scatter([], [], color=colour, label=system)
    ax.axhline(1.0, color="#555555", lw=0.8, ls="--")
    ax.set_xticks(range(len(kinds)), kinds)
    ax.set_ylabel("longest wait for an acknowledged write (s)")
    ax.set_title("Recovery per fault (bar: median; dashed: the 1 s target)", fontsize=9)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    return fig


def save(fig: Figure, directory: str | os.PathLike[str], name: str) -> Path:
    """Writes ``fig`` as ``directory/name.png``."""
    path = Path(directory) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return path
