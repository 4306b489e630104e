"""The results file: one JSON value per line (JSONL).

A trial is a two-element array, ``[spec, result]``, as in the 2020 study: ``spec`` names the
configuration and the trial index, ``result`` is the Benchmark's JSON. The sweep adds to
``result`` where and when the trial ran (``host``, ``started_at``, ``wall_seconds``), what the
nodes' /proc said during it (``utilisation``), and how the host's TCP counters moved
(``tcp``: listen queue overflows and drops, SYN retries; tcp_counters.py). Older files lack the
last two, and load all the same. A trial that failed or timed out is
``[spec, {"error": "...", "exit_code": ..., ...}]``.

Any other line is a JSON object with a ``kind``; ``{"kind": "machine", ...}`` describes a host
the trials ran on (CPU, memory, OS, JDK, dbf0 version, git commit). Files from the 2020 study
have only trial lines and load unchanged.

Lines are appended and flushed one at a time, so a sweep that is killed leaves at most one
half-written last line; readers report it and skip it, and the next append starts a new line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
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


# What the set fraction of a configuration is called.
WORKLOADS = {0.1: "read-heavy", 0.5: "balanced", 0.9: "write-heavy"}


def workload_name(set_frac: float) -> str:
    return WORKLOADS.get(round(float(set_frac), 6), f"set {set_frac:g}")


# What a trial's ops/s counts: every operation bench counted, as its own ops_per_sec does.
OPS_COUNTED = ("set", "get", "insert", "read_modify_write")


def trial_ops_per_sec(spec: Mapping[str, Any], result: Mapping[str, Any]) -> float:
    """A successful trial's ops/s: the counted operations over the measured (else planned)
    seconds."""
    if "nodes" in result:  # a trial with roles: the sum of its clients' rates (cluster.merge)
        return float(result["ops_per_sec"])
    counted = sum(result.get(op) or 0 for op in OPS_COUNTED)
    return counted / float(result.get("seconds") or spec["seconds"])


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
