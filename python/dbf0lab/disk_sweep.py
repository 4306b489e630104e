"""The sweep preset ``disk`` of scripts/run_benchmarks.py: ``dbf0 disk-bench`` over the 2020 mixes
and the engines (dbf0's LSM store and RocksDB, each with leveled and tiered compaction, the logged
map for scale, and the B-trees SQLite, MVStore and LMDB), one fresh JVM and one fresh data
directory per run, on this host.

The results file holds disk-bench's own JSON lines (python/dbf0lab/disk.py reads them), each with
``run`` added: ``ENGINE/COMPACTION/MIX/TRIAL``, which also lets a second invocation skip the runs
already in the file (resume). The engines alternate within each mix, so that a slow drift of the
machine does not land on one engine.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .sweep import format_seconds

PRESET = "disk"
MIXES = ("PUT_HEAVY", "BALANCED", "GET_HEAVY")
# (type, compaction): the comparison first, then the other compaction style, the map, the B-trees
# (dbf0's own first).
ENGINES = (
    ("lsm", "leveled"),
    ("rocksdb", "leveled"),
    ("lsm", "tiered"),
    ("rocksdb", "tiered"),
    ("map", "none"),
    ("btree", "none"),
    ("sqlite", "none"),
    ("mvstore", "none"),
    ("lmdb", "none"),
)
KEY_SPACE = 1_000_000
VALUE_LENGTH = 1024
KNOWN_KEY_RATE = 0.5
THREADS = 2
SECONDS = 30
FSYNC = "interval"
JVM_SECONDS = 3  # start, open, close and the removal of the data directory, for the estimate
HELP = (
    "the disk chapter: dbf0 disk-bench with the 2020 arguments (1,000,000 keys, 1 KiB values, "
    "knownKeyRate 0.5, 2 threads, 30 s, fsync interval) for PUT_HEAVY, BALANCED and GET_HEAVY "
    "over lsm and rocksdb (leveled and tiered compaction), the logged map, btree, sqlite, mvstore "
    "and lmdb"
)


@dataclass(frozen=True)
class Run:
    """One disk-bench run."""

    type: str
    compaction: str
    mix: str
    trial: int = 0
    seconds: float = SECONDS
    fsync: str = FSYNC

    @property
    def key(self) -> str:
        """The ``run`` field of its lines: what resume looks for."""
        return f"{self.type}/{self.compaction}/{self.mix}/{self.trial}"

    def args(self, data_dir: str | Path) -> list[str]:
        """disk-bench's arguments: the 2020 eight, then the engine's own options."""
        args = [str(data_dir), str(KEY_SPACE), str(VALUE_LENGTH), self.mix, str(KNOWN_KEY_RATE)]
        args += [str(THREADS), f"PT{self.seconds:g}S", self.type, "--fsync", self.fsync]
        return args + ([] if self.compaction == "none" else ["--compaction", self.compaction])


def engine_name(type_: str, compaction: str) -> str:
    """``lsm-leveled``, ``rocksdb-tiered``, ``map``, ``sqlite``: an engine as --disk-engines names
    it (an engine that does not compact goes by its type alone)."""
    return type_ if compaction == "none" else f"{type_}-{compaction}"


def plan(
    trials: int = 1,
    seconds: float = SECONDS,
    fsync: str = FSYNC,
    engines: Sequence[str] | None = None,
    mixes: Sequence[str] | None = None,
) -> list[Run]:
    """Every run of the preset (or of the engines and mixes named), in the order they run: per
    trial, per mix, the engines in turn (reversed in odd trials)."""
    known = [engine_name(*e) for e in ENGINES]
    for name, given, choices in (("engine", engines, known), ("mix", mixes, MIXES)):
        unknown = [x for x in given or [] if x not in choices]
        if unknown:
            raise ValueError(f"unknown {name} {unknown}: use {', '.join(choices)}")
    chosen = [e for e in ENGINES if not engines or engine_name(*e) in engines]
    return [
        Run(type_, compaction, mix, trial, seconds, fsync)
        for trial in range(trials)
        for mix in MIXES
        if not mixes or mix in mixes
        # odd trials run the engines in the reverse order: none always goes first
        for type_, compaction in (chosen if trial % 2 == 0 else chosen[::-1])
    ]


def done_runs(out: Path) -> set[str]:
    """The ``run`` keys already in a results file."""
    if not out.exists():
        return set()
    keys = set()
    for line in out.read_text().splitlines():
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue  # a half-written last line
        if isinstance(value, dict) and "run" in value:
            keys.add(value["run"])
    return keys


def estimated_seconds(runs: Sequence[Run]) -> float:
    return sum(r.seconds + JVM_SECONDS for r in runs)


def run_one(
    r: Run, java: str, jar: Path, java_opts: Sequence[str], data_root: str | None, timeout: float
) -> tuple[list[dict], str | None]:
    """Runs one disk-bench in a fresh data directory (removed afterwards): its lines with ``run``
    added, and an error or None."""
    data_dir = Path(tempfile.mkdtemp(prefix="dbf0-disk-", dir=data_root))
    try:
        command = [java, *java_opts, "-jar", str(jar), "disk-bench", *r.args(data_dir)]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return [], f"timed out after {timeout:g} s"
        lines = []
        for text in done.stdout.splitlines():
            if text.startswith("{"):
                lines.append({**json.loads(text), "run": r.key})
        if done.returncode != 0:
            return lines, f"exit status {done.returncode}: {done.stderr.strip()[-400:]}"
        return lines, None
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def main(args) -> int:
    """``run_benchmarks.py --preset disk``: the options it reads are --duration, --trials, --fsync,
    --disk-engines, --disk-mixes, --out, --dry-run, --jar, --java, --java-opt, --data-root and
    --timeout."""
    seconds = (args.seconds or [SECONDS])[0]
    fsync = (args.fsync or [FSYNC])[0]
    if fsync not in ("always", "interval", "never"):
        print(f"run_benchmarks.py: error: --preset disk takes --fsync always, interval or never, "
              f"got {fsync!r}", file=sys.stderr)  # fmt: skip
        return 2
    if args.hosts or args.hosts_file or args.servers or args.clients:
        print("run_benchmarks.py: error: --preset disk runs on this host only", file=sys.stderr)
        return 2
    try:
        runs = plan(args.trials or 1, seconds, fsync, args.disk_engines, args.disk_mixes)
    except ValueError as e:
        print(f"run_benchmarks.py: error: {e}", file=sys.stderr)
        return 2
    out = Path(args.out)
    already = done_runs(out)
    todo = [r for r in runs if r.key not in already]
    print(f"plan: {len(runs)} disk-bench runs, {seconds:g} s each, fsync {fsync}")
    print(f"results: {out}" + (f" ({len(already)} runs already there: skipped)" if already else ""))
    print(f"to run: {len(todo)}; estimated time {format_seconds(estimated_seconds(todo))}")
    if args.dry_run:
        if todo:
            print(f"first run: java -jar {args.jar} disk-bench {' '.join(todo[0].args('DIR'))}")
        print("dry run: nothing was run")
        return 0
    if not Path(args.jar).is_file():
        raise SystemExit(f"run_benchmarks.py: no jar at {args.jar}; build it with ./build.sh")
    java = args.java or shutil.which("java") or "java"
    out.parent.mkdir(parents=True, exist_ok=True)
    failed = 0
    for i, r in enumerate(todo, 1):
        started = time.monotonic()
        timeout = args.timeout or 2 * r.seconds + 600  # the fill of overwrite/readrandom, if any
        lines, error = run_one(r, java, args.jar, args.java_opt, args.data_root, timeout)
        with out.open("a") as f:
            for line in lines if error is None else []:
                f.write(json.dumps(line) + "\n")
        rate = sum(x["ops_per_sec"] * x["seconds"] for x in lines) / max(
            1e-9, sum(x["seconds"] for x in lines)
        )
        status = f"FAILED: {error}" if error else f"{rate:,.0f} ops/s"
        print(f"[{i}/{len(todo)}] {r.key}: {status} ({time.monotonic() - started:.0f} s)")
        failed += error is not None
    print(f"done: {len(todo) - failed} runs recorded in {out}, {failed} failed")
    return 1 if failed and failed == len(todo) else 0
