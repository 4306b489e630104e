"""What a sweep measures: the axes of the grid, the presets, and the list of trials.

Every axis is defined once, in AXES. An axis names the key it gets in a result's spec (the 2020
study's snake_case names), the sweep option that sets its values (``--server-threads 1,4,16``),
and how its value reaches the Benchmark: as one of the seven positional arguments, or behind a
flag. A later axis, for example the server model, is one more line::

    Axis("server_model", "--server-model", str, flag="--server-model",
         help="server model: pool, virtual, nio")

and the sweep gains the option, the spec gains the key, and the Benchmark gets the flag.
An axis that a grid does not set is left out of the spec, so files written before the axis
existed still match the same trials.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TRIAL_INDEX = "trial_index"


_NUMBER = r"(\d+(?:\.\d*)?|\.\d+)"
_ISO = re.compile(
    rf"P(?:{_NUMBER}D)?(?:T(?:{_NUMBER}H)?(?:{_NUMBER}M)?(?:{_NUMBER}S)?)?", re.IGNORECASE
)
_UNITS = {"ms": 0.001, "s": 1, "m": 60}


def parse_duration(text: str) -> int | float:
    """Seconds from the forms the Java command lines accept (dbf0.common.Durations): ISO-8601
    (``PT10S``, ``PT1M30S``, ``PT0.5S``), a plain number of seconds (``10``, ``2.5``), or a number
    with a unit (``500ms``, ``2s``, ``1m``)."""
    text = text.strip()
    iso = _ISO.fullmatch(text)
    unit = re.fullmatch(rf"{_NUMBER}\s*(ms|s|m)?", text, re.IGNORECASE)
    if iso and any(iso.groups()):
        days, hours, minutes, seconds = (float(g) if g else 0.0 for g in iso.groups())
        value = days * 86400 + hours * 3600 + minutes * 60 + seconds
    elif unit:
        value = float(unit.group(1)) * _UNITS[(unit.group(2) or "s").lower()]
    else:
        raise ValueError(
            f"not a duration: {text!r} (use seconds like 10, a unit like 2s or 500ms, "
            f"or ISO-8601 like PT10S)"
        )
    value = round(value, 9)
    if value <= 0:
        raise ValueError(f"a duration must be positive: {text!r}")
    return int(value) if value.is_integer() else value


def format_duration(seconds: int | float) -> str:
    """The Benchmark's duration argument: ISO-8601 seconds, ``PT10S``."""
    return f"PT{seconds:g}S"


@dataclass(frozen=True)
class Axis:
    """One dimension of the grid.

    name:       the key in a result's spec
    option:     the sweep's command-line option; it takes a comma-separated list of values
    parse:      turns one command-line value into the spec's value
    position:   index among the Benchmark's seven positional arguments, or None
    flag:       the Benchmark flag that carries the value (for axes that are not positional)
    to_arg:     turns the spec's value into the Benchmark's argument text
    to_args:    for an axis that is not one flag and its value: the spec's value as the whole list
                of Benchmark arguments (replaces flag and to_arg on the command line)
    """

    name: str
    option: str
    parse: Callable[[str], Any]
    help: str
    position: int | None = None
    flag: str | None = None
    to_arg: Callable[[Any], str] = str
    to_args: Callable[[Any], list[str]] | None = None


# Where a trial's fresh data directory goes on the Benchmark's command line: the host that runs
# the trial makes the directory, puts its path here, and removes it when the trial ends
# (hosts.py). '@' needs no shell quoting, so the token survives shlex.quote unchanged.
DATA_DIR = "@DBF0_DATA_DIR@"
NO_LOG = "none"


def log_args(policy: str) -> list[str]:
    """The Benchmark's write-ahead-log flags for an fsync policy: nothing for none (no log);
    otherwise a fresh data dir and no automatic rewrite, so that a compaction never lands in one
    trial's measured interval and not another's (scripts/wal_bench.sh does the same)."""
    if policy == NO_LOG:
        return []
    return ["--data-dir", DATA_DIR, "--fsync", policy, "--rewrite-growth", "0"]


AXES: tuple[Axis, ...] = (
    Axis(
        "server_threads",
        "--server-threads",
        int,
        "server worker threads (1 = single-threaded)",
        position=0,
    ),
    Axis(
        "client_threads",
        "--client-threads",
        int,
        "client threads, one load-generating connector each",
        position=1,
    ),
    Axis(
        "map_type",
        "--map-type",
        str,
        "map backends: hashtable, synchronized, rwlock, striped (striped:N), "
        "concurrent, skiplist, hashmap",
        position=2,
    ),
    Axis(
        "key_length",
        "--key-length",
        int,
        "key lengths in bytes (1 byte = 256 distinct keys): 1..127 in "
        "per-op mode (v1), up to 65536 in the v2 modes",
        position=3,
    ),
    Axis(
        "value_length",
        "--value-length",
        int,
        "value lengths in bytes: 0..127 in per-op mode (v1), up to 1048576 in the v2 modes",
        position=4,
    ),
    Axis(
        "set_frac",
        "--set-frac",
        float,
        "fraction of operations that are SETs (0.1 read-heavy, 0.5 balanced, 0.9 write-heavy)",
        position=5,
    ),
    Axis(
        "seconds",
        "--duration",
        parse_duration,
        "how long each trial runs: seconds (10), 2s, 500ms or ISO-8601 (PT10S)",
        position=6,
        to_arg=format_duration,
    ),
    # Axes carried by Benchmark flags: a grid that does not set one leaves it out of the spec and
    # off the command line, so the Benchmark's default applies and older files still match.
    Axis(
        "server_model",
        "--server-model",
        str,
        "server models: pool (the seed's thread pool), virtual, nio",
        flag="--server-model",
    ),
    Axis(
        "client_mode",
        "--client-mode",
        str,
        "client modes: per-op (v1, the seed's), persistent, pipelined, batched (v2)",
        flag="--client-mode",
    ),
    Axis(
        "pipeline",
        "--pipeline",
        int,
        "requests in flight per connection (pipelined, batched)",
        flag="--pipeline",
    ),
    Axis("batch", "--batch", int, "operations per frame (batched)", flag="--batch"),
    Axis(
        "close_order",
        "--close-order",
        str,
        "per-op: client-first (the seed's) or server-first, the one switch "
        "of the TIME_WAIT experiment",
        flag="--close-order",
    ),
    Axis(
        "client_thread_kind",
        "--client-thread-kind",
        str,
        "what each client runs on: platform (a kernel thread each, the seed's) or virtual "
        "(virtual threads, multiplexed over one carrier thread per core)",
        flag="--client-thread-kind",
    ),
    Axis(
        "selector_threads",
        "--selector-threads",
        int,
        "v2 modes: 0 for a thread per client connection, or N "
        "selector threads that drive all the connections (as redis-benchmark does)",
        flag="--selector-threads",
    ),
    Axis(
        "warmup",
        "--warmup",
        parse_duration,
        "load before each measured interval, not counted: 1s, PT1S or seconds",
        flag="--warmup",
        to_arg=format_duration,
    ),
    Axis(
        "records",
        "--records",
        int,
        "records loaded before each trial (a keyed workload)",
        flag="--records",
    ),
    Axis(
        "key_dist",
        "--key-dist",
        str,
        "key choice among the records: uniform, zipfian, hotspot, latest, exponential",
        flag="--key-dist",
    ),
    # not "workload": the analysis already derives a column of that name from set_frac
    # (read-heavy, ...)
    Axis(
        "ycsb_workload",
        "--ycsb-workload",
        str,
        "YCSB core workloads: A, B, C, D, F (mix and key distribution)",
        flag="--workload",
    ),
    Axis(
        "fsync",
        "--fsync",
        str,
        "the server's write-ahead log: none (no log), never, interval (100 ms), always; each "
        "trial with a log gets a fresh data directory, removed when it ends (where: see the data "
        "root option)",
        flag="--fsync",
        to_args=log_args,
    ),
    # Not a Benchmark argument: the sweep starts this many `dbf0 server` processes, spread
    # round-robin over the --servers hosts, and the clients --connect to all of them (sweep of
    # roles, cluster.py).
    Axis(
        "shards",
        "--shards",
        int,
        "server processes per trial, spread round-robin over the --servers hosts; "
        "every client spreads its keys over all of them (default: one per server host)",
    ),
    # Not a Benchmark argument either: the servers form one dbf0 cluster (--cluster-nodes) and
    # the clients learn its slot map (bench --cluster) instead of placing keys by jump hash.
    Axis(
        "cluster",
        "--cluster-mode",
        lambda text: text.strip().lower() in ("1", "true", "yes", "on"),
        "with --shards: start the servers as one dbf0 cluster and drive it with bench --cluster "
        "(true/false)",
    ),
)


def positional_axes() -> list[Axis]:
    """The axes that are the Benchmark's seven positional arguments, in argument order."""
    axes = sorted((a for a in AXES if a.position is not None), key=lambda a: a.position)
    if [a.position for a in axes] != list(range(7)):
        raise AssertionError(
            "the Benchmark takes exactly seven positional arguments, numbered 0..6"
        )
    return axes


@dataclass(frozen=True)
class Factor:
    """Axes that vary together: one axis with its values, or several axes whose values come in
    tuples (server and client threads as pairs, not a cross product)."""

    names: tuple[str, ...]
    values: tuple[tuple[Any, ...], ...]

    @staticmethod
    def single(name: str, values: Iterable[Any]) -> Factor:
        return Factor((name,), tuple((v,) for v in values))

    def column(self, name: str) -> list[Any]:
        """The distinct values of one axis of this factor, in order."""
        i = self.names.index(name)
        return list(dict.fromkeys(v[i] for v in self.values))


@dataclass(frozen=True)
class Grid:
    """A cross product of factors, each configuration run ``trials`` times."""

    factors: tuple[Factor, ...]
    trials: int

    def __post_init__(self) -> None:
        seen = [n for f in self.factors for n in f.names]
        known = {a.name for a in AXES}
        unknown = sorted(set(seen) - known)
        if unknown:
            raise ValueError(f"unknown axes {unknown}; the axes are {sorted(known)}")
        if len(seen) != len(set(seen)):
            raise ValueError(f"an axis appears twice in the grid: {seen}")
        missing = [a.name for a in positional_axes() if a.name not in seen]
        if missing:
            raise ValueError(f"the grid sets no value for {missing}")
        for f in self.factors:
            if not f.values:
                raise ValueError(f"axis {'/'.join(f.names)} has no values")
        if self.trials < 1:
            raise ValueError("trials must be at least 1")

    def with_axis(self, name: str, values: Sequence[Any]) -> Grid:
        """This grid with one axis's values replaced. An axis that was paired with others is
        unpaired first: every axis of that factor keeps its distinct values, crossed."""
        factors: list[Factor] = []
        for f in self.factors:
            if name in f.names and len(f.names) > 1:
                factors += [Factor.single(n, f.column(n)) for n in f.names if n != name]
            elif name not in f.names:
                factors.append(f)
        factors.append(Factor.single(name, values))
        return Grid(tuple(factors), self.trials)

    def with_pairs(self, names: tuple[str, ...], values: Sequence[tuple[Any, ...]]) -> Grid:
        """This grid with the given axes set to the given tuples (replacing their old values)."""
        factors = [f for f in self.factors if not set(f.names) & set(names)]
        for f in self.factors:
            rest = [n for n in f.names if n not in names]
            if len(rest) < len(f.names) and rest:
                factors += [Factor.single(n, f.column(n)) for n in rest]
        factors.append(Factor(tuple(names), tuple(tuple(v) for v in values)))
        return Grid(tuple(factors), self.trials)

    def with_trials(self, trials: int) -> Grid:
        return Grid(self.factors, trials)

    def configurations(self) -> list[dict[str, Any]]:
        """Every configuration (a spec without trial_index), in axis order."""
        order = [a.name for a in AXES]
        configs = []
        for combo in itertools.product(*(f.values for f in self.factors)):
            spec: dict[str, Any] = {}
            for f, values in zip(self.factors, combo):
                spec.update(zip(f.names, values))
            configs.append({name: spec[name] for name in order if name in spec})
        return configs

    def specs(self) -> list[dict[str, Any]]:
        """Every trial's spec: each configuration once per trial index."""
        return [{**c, TRIAL_INDEX: i} for i in range(self.trials) for c in self.configurations()]

    def axis_values(self) -> dict[str, list[Any]]:
        """For display: each axis and its distinct values."""
        out: dict[str, list[Any]] = {}
        for f in self.factors:
            for n in f.names:
                out[n] = f.column(n)
        return {a.name: out[a.name] for a in AXES if a.name in out}

    def describe(self) -> list[str]:
        """One line per axis (or per group of paired axes), in the order of AXES."""
        first = {f.names[0]: f for f in self.factors}
        lines = []
        for axis in AXES:
            f = first.get(axis.name)
            if f is None:
                continue
            if len(f.names) == 1:
                lines.append(f"{axis.name}: {', '.join(str(v[0]) for v in f.values)}")
            else:
                pairs = ", ".join("(" + ",".join(str(x) for x in v) + ")" for v in f.values)
                lines.append(f"({', '.join(f.names)}) pairs: {pairs}")
        lines.append(f"trials per configuration: {self.trials}")
        return lines


def shuffled(specs: Sequence[Mapping[str, Any]], seed: int) -> list[dict[str, Any]]:
    """The trials in a random order that the seed fixes, so that slow drifts of the machine
    (heat, other load, TIME_WAIT sockets left by the trial before) spread over every
    configuration instead of landing on one."""
    out = [dict(s) for s in specs]
    random.Random(seed).shuffle(out)
    return out


def benchmark_args(spec: Mapping[str, Any]) -> list[str]:
    """The Benchmark's arguments for one trial: the seven positional values, then the flags."""
    args = [a.to_arg(spec[a.name]) for a in positional_axes()]
    for axis in AXES:
        if axis.to_args is not None and axis.name in spec:
            args += axis.to_args(spec[axis.name])
        elif axis.flag is not None and axis.name in spec:
            args += [axis.flag, axis.to_arg(spec[axis.name])]
    return args


def needs_data_dir(args: Sequence[str]) -> bool:
    """Whether a trial's arguments ask its host for a fresh data directory."""
    return DATA_DIR in args


MAP_TYPES = ("hashmap", "hashtable", "synchronized", "rwlock", "striped", "concurrent", "skiplist")
CHOICES = {
    "server_model": ("pool", "virtual", "nio"),
    "client_mode": ("per-op", "persistent", "pipelined", "batched"),
    "close_order": ("client-first", "server-first"),
    "client_thread_kind": ("platform", "virtual"),
    "key_dist": ("uniform", "zipfian", "hotspot", "latest", "exponential"),
    "ycsb_workload": ("A", "B", "C", "D", "F"),
    "fsync": (NO_LOG, "never", "interval", "always"),
}
V1_MAX_LENGTH = 127


def problems(config: Mapping[str, Any]) -> list[str]:
    """What the Benchmark would reject in one configuration, in its words; empty when nothing.
    The sweep checks every configuration before it plans a trial (dbf0.kv.bench.Benchmark has the
    same rules)."""
    out = []
    for name in ("server_threads", "client_threads"):
        if name in config and config[name] < 1:
            out.append(f"{name} must be at least 1, got {config[name]}")
    map_type = config.get("map_type")
    striped = map_type is not None and re.fullmatch(r"striped:\d+", map_type) is not None
    if map_type is not None and map_type not in MAP_TYPES and "." not in map_type and not striped:
        out.append(
            f"unknown map type {map_type!r}: use {', '.join(MAP_TYPES)}, striped:N, or a Map class "
            "name"
        )
    for name, choices in CHOICES.items():
        if name in config and config[name] not in choices:
            out.append(f"{name} must be one of {', '.join(choices)}, got {config[name]!r}")
    v1 = config.get("client_mode", "per-op") == "per-op"
    key_max, value_max = (V1_MAX_LENGTH, V1_MAX_LENGTH) if v1 else (1 << 16, 1 << 20)
    where = " in per-op mode (v1)" if v1 else ""
    if "key_length" in config and not 1 <= config["key_length"] <= key_max:
        out.append(f"key_length must be 1..{key_max}{where}, got {config['key_length']}")
    if "value_length" in config and not 0 <= config["value_length"] <= value_max:
        out.append(f"value_length must be 0..{value_max}{where}, got {config['value_length']}")
    if "set_frac" in config and not 0 <= config["set_frac"] <= 1:
        out.append(f"set_frac must be between 0 and 1, got {config['set_frac']:g}")
    if "pipeline" in config and not 1 <= config["pipeline"] <= 65_536:
        out.append(f"pipeline must be 1..65536, got {config['pipeline']}")
    if "batch" in config and not 1 <= config["batch"] <= 100_000:
        out.append(f"batch must be 1..100000, got {config['batch']}")
    selectors = config.get("selector_threads", 0)
    if selectors and (selectors < 0 or selectors > config.get("client_threads", selectors)):
        out.append(
            f"selector_threads must be 0..client_threads ({config.get('client_threads')}), got "
            f"{selectors}"
        )
    elif selectors and v1:
        out.append("selector_threads needs a v2 client mode (persistent, pipelined or batched)")
    if "shards" in config and config["shards"] < 1:
        out.append(f"shards must be at least 1, got {config['shards']}")
    if "records" in config and config["records"] < 1:
        out.append(f"records must be at least 1, got {config['records']}")
    if "key_dist" in config and "records" not in config and "ycsb_workload" not in config:
        out.append("key_dist needs records (or ycsb_workload): the records to choose among")
    if v1 and config.get("ycsb_workload") in ("D", "F"):
        out.append(
            f"ycsb_workload {config['ycsb_workload']} (inserts or read-modify-writes) needs a v2 "
            "client mode"
        )
    return out


def grid_problems(grid: Grid) -> list[str]:
    """Every distinct problem of every configuration of a grid, in order."""
    return list(dict.fromkeys(p for config in grid.configurations() for p in problems(config)))


def _cross(trials: int, **axes: Sequence[Any]) -> Grid:
    return Grid(tuple(Factor.single(n, v) for n, v in axes.items()), trials)


@dataclass(frozen=True)
class Preset:
    grid: Grid
    help: str


# What "scaling" and "cluster" run on every host, after their own axes: the cluster preset asks
# what the cluster adds over plain sharding, so it must run exactly the scaling preset's workload.
# One definition keeps the two from drifting apart. _cross makes one factor per keyword, in order,
# so these are spread in last in both, where each preset used to spell them out.
_SCALE_OUT_RUN: dict[str, Sequence[Any]] = {
    "server_threads": [1],
    "server_model": ["nio"],
    "client_mode": ["batched"],
    "batch": [100],
    "pipeline": [2],
    "map_type": ["concurrent"],
    "key_length": [16],
    "value_length": [64],
    "set_frac": [0.1],
    "seconds": [2],
    "warmup": [1],
}

PRESETS: dict[str, Preset] = {
    "seed": Preset(
        _cross(
            10,
            server_threads=[1, 2, 4, 8, 16, 32],
            client_threads=[1, 2, 4, 8, 16, 32],
            map_type=["hashtable", "concurrent"],
            key_length=[1, 2, 16],
            value_length=[64],
            set_frac=[0.1, 0.5, 0.9],
            seconds=[10],
        ),
        "the 2020 study's grid: 6x6 thread counts x 2 maps x 3 key lengths x 3 workloads, "
        "10 trials of 10 s",
    ),
    "smoke": Preset(
        _cross(
            1,
            server_threads=[1],
            client_threads=[1, 4],
            map_type=["concurrent"],
            key_length=[16],
            value_length=[64],
            set_frac=[0.1, 0.9],
            seconds=[1],
        ),
        "a check that everything works, not a measurement: concurrent map, server 1 x client 1,4 x "
        "read- and write-heavy, 1 trial of 1 s",
    ),
    "quick": Preset(
        _cross(
            2,
            server_threads=[1, 4],
            client_threads=[1, 8],
            map_type=["hashtable", "concurrent"],
            key_length=[16],
            value_length=[64],
            set_frac=[0.1, 0.5, 0.9],
            seconds=[2],
        ),
        "a first look: both thread-safe maps x 3 workloads x server 1,4 x client 1,8, "
        "2 trials of 2 s",
    ),
    "mid": Preset(
        _cross(
            3,
            server_threads=[1, 4, 16],
            client_threads=[1, 8, 32],
            map_type=["hashtable", "concurrent"],
            key_length=[16],
            value_length=[64],
            set_frac=[0.1, 0.5, 0.9],
            seconds=[5],
        ),
        "the results in benchmarks/reference/mid-vm.jsonl: both maps x 3 workloads x server "
        "1,4,16 x client 1,8,32, 3 trials of 5 s",
    ),
    "steps": Preset(
        Grid(
            (
                Factor(
                    (
                        "server_model",
                        "client_mode",
                        "server_threads",
                        "client_threads",
                        "pipeline",
                        "batch",
                        "close_order",
                        "selector_threads",
                    ),
                    (
                        ("pool", "per-op", 4, 8, 1, 1, "client-first", 0),
                        ("pool", "per-op", 4, 8, 1, 1, "server-first", 0),
                        ("nio", "persistent", 2, 16, 1, 1, "client-first", 0),
                        ("nio", "pipelined", 2, 2, 128, 1, "client-first", 0),
                        ("nio", "pipelined", 2, 2, 128, 1, "client-first", 2),
                        ("nio", "batched", 1, 1, 1, 1000, "client-first", 0),
                    ),
                ),
                Factor.single("map_type", ["concurrent"]),
                Factor.single("key_length", [16]),
                Factor.single("value_length", [64]),
                Factor.single("set_frac", [0.1, 0.5, 0.9]),
                Factor.single("seconds", [5]),
                Factor.single("warmup", [1]),
            ),
            3,
        ),
        "one bottleneck removed at a time: v1 per-op (4/8 threads), the same with the server "
        "closing first, v2 persistent (nio 2 loops, 16 clients), pipelined (depth 128; a thread "
        "per connection, and 2 selector threads), batched (1000 per frame); 3 workloads, 3 trials "
        "of 5 s",
    ),
    "models": Preset(
        Grid(
            (
                Factor(
                    (
                        "server_model",
                        "server_threads",
                        "client_threads",
                        "client_thread_kind",
                        "selector_threads",
                    ),
                    (
                        ("pool", 16, 16, "platform", 0),
                        ("virtual", 2, 16, "platform", 0),
                        ("nio", 2, 16, "platform", 0),
                        ("virtual", 2, 1000, "platform", 0),
                        ("nio", 2, 1000, "platform", 0),
                        ("virtual", 2, 16, "virtual", 0),
                        ("nio", 2, 16, "virtual", 0),
                        ("virtual", 2, 1000, "virtual", 0),
                        ("nio", 2, 1000, "virtual", 0),
                        ("virtual", 2, 16, "platform", 1),
                        ("nio", 2, 16, "platform", 1),
                        ("virtual", 2, 1000, "platform", 1),
                        ("nio", 2, 1000, "platform", 1),
                    ),
                ),
                Factor.single("client_mode", ["persistent"]),
                Factor.single("map_type", ["concurrent"]),
                Factor.single("key_length", [16]),
                Factor.single("value_length", [64]),
                Factor.single("set_frac", [0.5]),
                Factor.single("seconds", [5]),
                Factor.single("warmup", [1]),
            ),
            3,
        ),
        "server models under persistent connections: pool, virtual and nio with 16 clients, and "
        "virtual and nio holding 1,000, each with a platform thread per client, a virtual thread "
        "per client, and one selector thread for all clients; balanced workload, 3 trials of 5 s",
    ),
    "ycsb": Preset(
        Grid(
            (
                Factor.single("ycsb_workload", ["A", "B", "C", "D", "F"]),
                Factor(("server_threads", "client_threads"), ((1, 4), (2, 16))),
                Factor.single("server_model", ["nio"]),
                Factor.single("client_mode", ["persistent"]),
                Factor.single("map_type", ["concurrent"]),
                Factor.single("key_length", [16]),
                Factor.single("value_length", [64]),
                Factor.single("set_frac", [0.5]),
                Factor.single("seconds", [3]),
                Factor.single("records", [100_000]),
                Factor.single("warmup", [1]),
            ),
            2,
        ),
        "YCSB's core workloads A, B, C, D, F (E needs range scans) over 100,000 records, v2 "
        "persistent connections to the nio server, (server,client) threads (1,4) and (2,16); "
        "setFrac is replaced by each workload's mix; 2 trials of 3 s",
    ),
    "maps": Preset(
        _cross(
            2,
            map_type=["hashtable", "synchronized", "rwlock", "striped", "concurrent"],
            set_frac=[0.1, 0.9],
            key_dist=["uniform", "zipfian"],
            server_threads=[4],
            client_threads=[4],
            server_model=["nio"],
            client_mode=["batched"],
            batch=[100],
            key_length=[16],
            value_length=[64],
            records=[100_000],
            seconds=[3],
            warmup=[1],
        ),
        "the map ladder: one global lock (hashtable, synchronized), a read/write lock, 16 striped "
        "locks, ConcurrentHashMap; read- and write-heavy, uniform and zipfian keys over 100,000 "
        "records; nio server with 4 loops, 4 batched clients (100 per frame), 2 trials of 3 s",
    ),
    "durability": Preset(
        _cross(
            3,
            client_mode=["persistent", "pipelined"],
            server_model=["virtual", "nio"],
            set_frac=[0.9, 0.5],
            fsync=[NO_LOG, "never", "interval", "always"],
            server_threads=[2],
            client_threads=[16],
            map_type=["concurrent"],
            key_length=[16],
            value_length=[64],
            seconds=[3],
            warmup=[1],
        ),
        "the write-ahead log's cost: no log, then fsync never, interval (100 ms) and always; "
        "persistent and pipelined (16 in flight) clients, 16 connections to a virtual-thread or "
        "nio server (2 threads), write-heavy and balanced; each trial a fresh log; 3 trials of 3 "
        "s",
    ),
    "scaling": Preset(
        _cross(
            3,
            client_threads=[1, 2, 4, 8],
            shards=[1, 2, 3],
            **_SCALE_OUT_RUN,
        ),
        "scale-out: 1, 2, 3 `dbf0 server` processes (nio, one loop each) started for each trial "
        "on the --servers hosts, every --clients host running 1,2,4,8 batched client threads (100 "
        "per frame, 2 in flight) against all of them; read-heavy, 3 trials of 2 s",
    ),
    "cluster": Preset(
        _cross(
            3,
            shards=[1, 2, 3],
            cluster=[True],
            client_threads=[4],
            **_SCALE_OUT_RUN,
        ),
        "scale-out of a dbf0 cluster: 1, 2, 3 nodes (`server --cluster-nodes`, nio, one loop "
        "each) on the --servers hosts, every --clients host running 4 batched client threads "
        "(100 per frame, 2 in flight) through `bench --cluster`, which learns the slot map from "
        "one node; read-heavy, 3 trials of 2 s",
    ),
    "anchors": Preset(
        Grid(
            (
                Factor(("server_threads", "client_threads"), ((1, 1), (4, 8), (8, 16))),
                Factor.single("map_type", ["concurrent"]),
                Factor.single("key_length", [16]),
                Factor.single("value_length", [64]),
                Factor.single("set_frac", [0.1, 0.5, 0.9]),
                Factor.single("seconds", [10]),
            ),
            3,
        ),
        "the reference anchors: concurrent map, 16-byte keys, (server,client) threads "
        "(1,1) (4,8) (8,16), 3 workloads, 3 trials of 10 s",
    ),
}
