"""The results file: one JSON value per line (JSONL).

A trial is a two-element array, ``[spec, result]``, as in the 2020 study: ``spec`` names the
configuration and the trial index, ``result`` is the Benchmark's JSON. The sweep adds to
``result`` where and when the trial ran (``host``, ``started_at``, ``wall_seconds``). A trial
that failed or timed out is ``[spec, {"error": "...", "exit_code": ..., ...}]``.

Any other line is a JSON object with a ``kind``; ``{"kind": "machine", ...}`` describes a host
the trials ran on (CPU, memory, OS, JDK, dbf0 version, git commit). Files from the 2020 study
have only trial lines and load unchanged.

Lines are appended and flushed one at a time, so a sweep that is killed leaves at most one
half-written last line; readers report it and skip it, and the next append starts a new line.
"""

from __future__ import annotations

import json
import os
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MACHINE = "machine"


def normalize(value: Any) -> Any:
    """Numbers that are whole become ints, so that 10 and 10.0 name the same trial."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def spec_key(spec: Mapping[str, Any]) -> str:
    """The identity of a trial: its spec, as canonical JSON."""
    return json.dumps({k: normalize(v) for k, v in spec.items()}, sort_keys=True)


def is_failure(result: Mapping[str, Any]) -> bool:
    return "error" in result


# What a trial's ops/s counts: every operation bench counted, as its own ops_per_sec does.
OPS_COUNTED = ("set", "get", "insert", "read_modify_write")

# The one rule for an outlier trial (a stall: a pause, a run out of ports), used by the sweep as
# trials finish and by the analysis, which names such trials and leaves them out of its medians.
# A trial is compared with its twins (the other trials of its configuration): a latency every
# twin shares is the configuration's behaviour, not a stall.
STALL_MAX_US = 500_000  # one operation took half a second or more, where the twins' median did not
STALL_FRACTION = 0.2  # ops/s below a fifth of the median of the twins' ops/s


def trial_ops_per_sec(spec: Mapping[str, Any], result: Mapping[str, Any]) -> float:
    """A successful trial's ops/s: the counted operations over the measured (else planned)
    seconds."""
    if "nodes" in result:  # a trial with roles: the sum of its clients' rates (cluster.merge)
        return float(result["ops_per_sec"])
    counted = sum(result.get(op) or 0 for op in OPS_COUNTED)
    return counted / float(result.get("seconds") or spec["seconds"])


def stall_reason(
    ops_per_sec: float, max_us: float | None, twins: Sequence[tuple[float, float | None]]
) -> str | None:
    """Why a trial looks stalled, or None. ``twins``: (ops/s, max_us) of the other trials of its
    configuration, as many as there are (none: only its own max_us can tell)."""
    reasons = []
    twin_max = _median([m for _, m in twins if m is not None and m == m])
    if (
        max_us is not None
        and max_us == max_us
        and max_us >= STALL_MAX_US
        and (twin_max is None or twin_max < STALL_MAX_US)
    ):
        reasons.append(
            f"its slowest operation took {max_us / 1000:,.0f} ms (>= {STALL_MAX_US / 1000:,.0f} ms"
            + (f"; its twins' median {twin_max / 1000:,.0f} ms)" if twin_max is not None else ")")
        )
    twin_ops = _median([o for o, _ in twins if o == o])
    if twin_ops is not None and ops_per_sec < STALL_FRACTION * twin_ops:
        n = len(twins)
        reasons.append(
            f"{ops_per_sec:,.0f} ops/s is below 1/{round(1 / STALL_FRACTION)} of the median "
            f"{twin_ops:,.0f} of its configuration's other {n} " + ("trial" if n == 1 else "trials")
        )
    return "; ".join(reasons) or None


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


@dataclass
class ResultsContent:
    trials: list[tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    bad_lines: list[tuple[int, str]] = field(default_factory=list)  # (line number, why)

    @property
    def machines(self) -> list[dict[str, Any]]:
        return [r for r in self.records if r.get("kind") == MACHINE]


def read(path: str | os.PathLike[str]) -> ResultsContent:
    """Every line of one results file, sorted into trials, records, and lines it could not use."""
    content = ResultsContent()
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            line = line.strip()
            if not line:
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as e:
                content.bad_lines.append(
                    (number, f"not JSON ({e.msg}); a sweep killed while writing?")
                )
                continue
            if (
                isinstance(value, list)
                and len(value) == 2
                and isinstance(value[0], dict)
                and isinstance(value[1], dict)
            ):
                content.trials.append((value[0], value[1]))
            elif isinstance(value, dict) and "kind" in value:
                content.records.append(value)
            else:
                content.bad_lines.append(
                    (number, "neither [spec, result] nor a record with a 'kind'")
                )
    return content


def done_keys(content: ResultsContent, retry_failed: bool) -> set[str]:
    """The trials a resumed sweep skips: every recorded one, or only the successful ones."""
    return {
        spec_key(spec)
        for spec, result in content.trials
        if not (retry_failed and is_failure(result))
    }


class Appender:
    """Appends lines to a results file, each flushed to disk before the next trial starts."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # open for the Appender's whole life: close() (or the with block) closes it
        self._file = open(self.path, "a+b")  # noqa: SIM115
        self._file.seek(0, os.SEEK_END)
        if self._file.tell() > 0:
            self._file.seek(-1, os.SEEK_END)
            if self._file.read(1) != b"\n":  # a half-written line from a killed sweep
                self._write(b"\n")

    def _write(self, data: bytes) -> None:
        self._file.write(data)
        self._file.flush()
        os.fsync(self._file.fileno())

    def append(self, value: Any) -> None:
        self._write(json.dumps(value, separators=(", ", ": ")).encode("utf-8") + b"\n")

    def trial(self, spec: Mapping[str, Any], result: Mapping[str, Any]) -> None:
        self.append([dict(spec), dict(result)])

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Appender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
