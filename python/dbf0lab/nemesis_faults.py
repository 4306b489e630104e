"""The nemesis's faults, each injected on a running cluster and then healed.

    kill       SIGKILL a shard's leader; restart it after --down seconds
    pause      SIGSTOP a shard's leader for longer than an election, then SIGCONT
    partition  cut a shard's leader off from its peers (its clients still reach it), then heal;
               needs the network namespaces (nemesis_net)
    kill-all   SIGKILL every node at once; restart them all after --down seconds
    wipe       SIGKILL a replica (not the leader), empty its data directory, restart it: a Raft
               member that forgot its log and its votes. dbf0 refuses to start such a node, by
               design, and the fault records that; so it is left out of the default mix (name it
               in --faults to run it)

Every fault is recorded with the monotonic clock the Java client's history uses
(``time.monotonic_ns`` and ``System.nanoTime`` both read CLOCK_MONOTONIC on Linux), so the analysis
can line faults up with the operations.
"""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from .nemesis_net import Namespaces
from .nemesis_nodes import Cluster, NodeError, wipe

KINDS = ("kill", "pause", "partition", "kill-all", "wipe")
DEFAULT_KINDS = ("kill", "pause", "partition", "kill-all")
NEEDS_NAMESPACES = {"partition"}


@dataclass
class FaultRecord:
    kind: str
    victims: list[int]
    shard: int | None
    injected_ns: int
    healed_ns: int = 0
    ready_ns: int = 0  # when the healed nodes said they are up again (restarts), else healed_ns
    slot_ranges: list[tuple[int, int]] = field(default_factory=list)  # Redis: the victim's
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Timing:
    hold_s: float  # how long a fault lasts before it is healed
    pause_s: float  # how long a pause lasts: longer than an election
    settle_s: float  # time after a heal before the next fault
    restart_s: float = 90.0  # how long a restarted node may take to say it listens


def pick_victim(
    cluster: Cluster, kind: str, rng: random.Random
) -> tuple[list[int], int | None, str]:
    """The node(s) a fault hits, the shard, and a note when no leader was found."""
    if kind == "kill-all":
        return list(range(len(cluster.nodes))), None, ""
    shards = cluster.shards()
    shard = rng.randrange(len(shards))
    leader = cluster.leader(shard)
    if kind == "wipe":
        others = [i for i in shards[shard] if i != leader] or shards[shard]
        return [rng.choice(others)], shard, ""
    if leader is None:
        return [rng.choice(shards[shard])], shard, "no leader known: a member at random"
    return [leader], shard, ""


class Nemesis:
    """Injects one fault at a time; :meth:`heal_everything` undoes whatever is still in effect."""

    def __init__(
        self,
        cluster: Cluster,
        namespaces: Namespaces | None,
        timing: Timing,
        rng: random.Random,
    ):
        self.cluster = cluster
        self.namespaces = namespaces
        self.timing = timing
        self.rng = rng
        self.cut: set[int] = set()
        self.retired: set[int] = set()  # wiped nodes that refused to start again

    def run(self, kind: str) -> FaultRecord:
        victims, shard, note = pick_victim(self.cluster, kind, self.rng)
        record = FaultRecord(kind, victims, shard, time.monotonic_ns(), note=note)
        if kind != "kill-all":
            record.slot_ranges = [r for v in victims for r in self.cluster.slot_ranges(v)]
        self._mark(f"{kind} of node(s) {victims}")
        getattr(self, "_" + kind.replace("-", "_"))(record)
        self._mark(f"{kind} of node(s) {victims} healed")
        if not record.ready_ns:
            record.ready_ns = record.healed_ns
        return record

    def _mark(self, what: str) -> None:
        """A line in every node's log, with both clocks: the log's own times are wall-clock, the
        campaign's monotonic, and a reader lines up the elections with the faults by it."""
        wall = datetime.now().strftime("%H:%M:%S.%f")[:-3]
        line = f"--- nemesis: {what} at {time.monotonic_ns()} ({wall})\n"
        for n in self.cluster.nodes:
            with n.log.open("a") as log:
                log.write(line)

    def _deadline(self) -> float:
        return time.monotonic() + self.timing.restart_s

    def _kill(self, record: FaultRecord) -> None:
        for v in record.victims:
            self.cluster.nodes[v].kill()
        record.injected_ns = time.monotonic_ns()
        time.sleep(self.timing.hold_s)
        record.healed_ns = time.monotonic_ns()
        back = [v for v in record.victims if v not in self.retired]
        self.cluster.restart_many(back, self._deadline())
        record.ready_ns = time.monotonic_ns()

    _kill_all = _kill

    def _pause(self, record: FaultRecord) -> None:
        for v in record.victims:
            self.cluster.nodes[v].pause()
        time.sleep(self.timing.pause_s)
        record.healed_ns = time.monotonic_ns()
        for v in record.victims:
            self.cluster.nodes[v].resume()

    def _partition(self, record: FaultRecord) -> None:
        assert self.namespaces is not None, "partition needs namespaces"
        for v in record.victims:
            self.namespaces.cut_off(v)
            self.cut.add(v)
        time.sleep(self.timing.hold_s)
        record.healed_ns = time.monotonic_ns()
        for v in record.victims:
            self.namespaces.heal(v)
            self.cut.discard(v)

    def _wipe(self, record: FaultRecord) -> None:
        """A node that refuses to rejoin with an empty data directory (EmptyDataDirTest's rule)
        stays down for the rest of the campaign, and the record says why; one that rejoins is the
        case a Raft member must not allow: it forgot whom it voted for."""
        for v in record.victims:
            self.cluster.nodes[v].kill()
            wipe(self.cluster.nodes[v])
        time.sleep(self.timing.hold_s)
        record.healed_ns = time.monotonic_ns()
        for v in record.victims:
            try:
                self.cluster.restart(v, self._deadline())
                record.note = "rejoined with an empty data directory"
            except NodeError as e:
                self.retired.add(v)
                record.note = f"refused to rejoin: {e}"[:300]
        record.ready_ns = time.monotonic_ns()

    def heal_everything(self) -> None:
        """Resumes paused nodes, lifts partitions, restarts dead nodes (after an error or ^C)."""
        for n in self.cluster.nodes:
            if n.paused:
                n.resume()
        if self.namespaces is not None:
            for v in list(self.cut):
                self.namespaces.heal(v)
                self.cut.discard(v)
        dead = [i for i, n in enumerate(self.cluster.nodes) if not n.alive()]
        self.cluster.restart_many([i for i in dead if i not in self.retired], self._deadline())


def schedule(kinds: list[str], rng: random.Random, count: int) -> list[str]:
    """``count`` faults mixing ``kinds``: each round uses every kind once, in a random order."""
    out: list[str] = []
    while len(out) < count:
        round_ = list(kinds)
        rng.shuffle(round_)
        out += round_
    return out[:count]


def fits(timing: Timing, kind: str) -> float:
    """Seconds a fault of ``kind`` takes from injection to the end of its settling time, not
    counting restarts (which take what they take)."""
    hold = timing.pause_s if kind == "pause" else timing.hold_s
    return hold + timing.settle_s
