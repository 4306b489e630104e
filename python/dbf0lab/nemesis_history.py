"""What a nemesis campaign's history says: acknowledged writes lost, stale reads, how long each
fault kept writes from being acknowledged, and operations per 100 ms for a timeline.

The history is chapter 4's (docs/formats.md, "History files"), written by ``dbf0 nemesis-client``:
every SET writes a value of its own, so a read names the one write it saw. Keys start missing (each
campaign starts a fresh cluster), and the client's final reads, made once the cluster is healed,
give each key's last value.

Lost write: an acknowledged SET of key k that must come after the write the final read saw, because
that write had been acknowledged before this SET was sent (or the final read found k missing).
Stale read: a GET that saw a write w (or nothing) although another SET of the key, sent after w was
acknowledged, had itself been acknowledged before the GET was sent. Both are lower bounds: a write
whose outcome is unknown (pending) could have taken effect at any later moment, so it is never held
against anything. The linearizability checker (dbf0 check) judges the whole history; these counts
say how much was lost and how it shows to a client.
"""

from __future__ import annotations

import bisect
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .nemesis_nodes import hash_slot

BIN_NS = 100_000_000  # the timeline's 100 ms bins


@dataclass
class Write:
    key: str
    value: str
    invoke: int
    complete: int | None  # None unless ok
    status: str


@dataclass
class History:
    writes: list[Write] = field(default_factory=list)
    reads: list[dict[str, Any]] = field(default_factory=list)  # ok GETs

    @property
    def by_value(self) -> dict[str, Write]:
        return {w.value: w for w in self.writes}


def read_history(path: Path) -> History:
    h = History()
    with path.open() as f:
        for line in f:
            if not line.strip():
                continue
            op = json.loads(line)
            if op["op"] == "set":
                # A pending operation may carry when it was last seen (for display): it did not
                # complete then, and may still take effect at any later moment.
                complete = op["complete_ns"] if op["status"] == "ok" else None
                h.writes.append(
                    Write(op["key"], op["value"], op["invoke_ns"], complete, op["status"])
                )
            elif op["op"] == "get" and op["status"] == "ok":
                h.reads.append(op)
    return h


def _acked_by_key(h: History) -> dict[str, list[Write]]:
    out: dict[str, list[Write]] = defaultdict(list)
    for w in h.writes:
        if w.status == "ok":
            out[w.key].append(w)
    return out


def lost_writes(h: History, final_values: dict[str, str | None]) -> dict[str, Any]:
    """Acknowledged writes the final reads show lost, and final values no write could explain."""
    by_value = h.by_value
    acked = _acked_by_key(h)
    lost = 0
    unexplained = []
    for key, value in final_values.items():
        writes = acked.get(key, [])
        if value is None:
            lost += len(writes)
            continue
        w = by_value.get(value)
        if w is None or w.status == "fail":
            unexplained.append(key)  # a value no write (or only a refused one) wrote
            continue
        if w.complete is None:
            continue  # a pending write may have taken effect last
        lost += sum(1 for x in writes if x.invoke > w.complete)
    return {"lost_writes": lost, "unexplained_final_values": unexplained}


def stale_reads(h: History) -> dict[str, int]:
    """GETs that saw a value some acknowledged, later-sent SET had replaced before they began;
    and GETs that saw a value only a refused (failed) SET wrote."""
    by_value = h.by_value
    acked = _acked_by_key(h)
    index: dict[str, tuple[list[int], list[int]]] = {}
    for key, ws in acked.items():
        ws = sorted(ws, key=lambda w: w.complete)
        completes = [w.complete for w in ws]
        latest_invoke = []  # the latest invoke among the writes acknowledged so far
        m = -1
        for w in ws:
            m = max(m, w.invoke)
            latest_invoke.append(m)
        index[key] = (completes, latest_invoke)
    stale = 0
    phantom = 0
    for r in h.reads:
        completes, latest = index.get(r["key"], ([], []))
        n = bisect.bisect_left(completes, r["invoke_ns"])
        if r["found"]:
            w = by_value.get(r["value"])
            if w is None or w.status == "fail":
                phantom += 1
                continue
            if w.complete is None:
                continue
            if n and latest[n - 1] > w.complete:
                stale += 1
        elif n:
            stale += 1  # found nothing, though a write had been acknowledged before it began
    return {"stale_reads": stale, "phantom_reads": phantom}


def affected_keys(fault: dict[str, Any], key_shards: dict[str, int]) -> list[str]:
    """The keys a fault's victims served: every key when every node was hit; a Redis master's
    slots; a dbf0 shard's keys."""
    if fault["kind"] == "kill-all":
        return sorted(key_shards)
    if fault.get("slot_ranges"):
        return sorted(
            k
            for k in key_shards
            if any(lo <= hash_slot(bytes.fromhex(k)) <= hi for lo, hi in fault["slot_ranges"])
        )
    return sorted(k for k, s in key_shards.items() if s == fault["shard"])


def longest_gap(acks: Sequence[int], start: int, end: int) -> int:
    """The longest stretch of [start, end) without an acknowledgement, in ns: from start to the
    first, between two, or from the last to end."""
    i = bisect.bisect_left(acks, start)
    j = bisect.bisect_left(acks, end)
    points = [start, *acks[i:j], end]
    return max(b - a for a, b in zip(points, points[1:]))


def recovery(
    h: History, faults: list[dict[str, Any]], key_shards: dict[str, int], stopped_ns: int
) -> list[int | None]:
    """For each fault, the longest time (ms) without an acknowledged write to the keys it hit,
    from its injection until the next fault (or the clients' end); None if it hit no key."""
    acks: dict[str, list[int]] = defaultdict(list)
    for w in h.writes:
        if w.status == "ok":
            acks[w.key].append(w.complete)
    out: list[int | None] = []
    for i, f in enumerate(faults):
        keys = affected_keys(f, key_shards)
        if not keys:
            out.append(None)
            continue
        merged = sorted(t for k in keys for t in acks.get(k, []))
        end = faults[i + 1]["injected_ns"] if i + 1 < len(faults) else stopped_ns
        out.append(round(longest_gap(merged, f["injected_ns"], end) / 1e6))
    return out


def timeline(h: History, started_ns: int, stopped_ns: int) -> dict[str, Any]:
    """Acknowledged writes and answered reads per 100 ms, from the clients' start to their end."""
    bins = max(1, -(-(stopped_ns - started_ns) // BIN_NS))
    writes = [0] * bins
    reads = [0] * bins
    for w in h.writes:
        if w.status == "ok" and started_ns <= w.complete < stopped_ns:
            writes[(w.complete - started_ns) // BIN_NS] += 1
    for r in h.reads:
        if started_ns <= r["complete_ns"] < stopped_ns:
            reads[(r["complete_ns"] - started_ns) // BIN_NS] += 1
    return {"bin_ms": BIN_NS // 1_000_000, "writes": writes, "reads": reads}


def median(values: Iterable[float | None]) -> float | None:
    xs = sorted(v for v in values if v is not None)
    if not xs:
        return None
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2
