"""Trials that look stalled, and what explains them: the one rule, used by the sweep as trials
finish and by the analysis, which judges each trial against all of its configuration's trials.

A trial looks stalled beside its twins (the other trials of its configuration) when one of its
operations took half a second or more where theirs did not, or when its ops/s fell below a fifth
of theirs. A latency every twin shares is the configuration's behaviour, not a stall.

On loopback the usual cause is the one chapter 1 teaches: under one connection per operation the
seed's listen backlog of 50 overflows, the kernel drops a SYN, and the client sends it again after
1 s. The sweep counts those events on the host during each trial (tcp_counters.py). A trial whose
slow operations they explain is labelled and kept: that is how the seed's server behaves. Only a
stall that nothing explains is left out of the medians, named with its reason.

The counters are the whole host's, so a count alone proves little: another program's connections
move them too. A count explains a slow operation only when that operation took just over a SYN
retry's wait (a whole number of seconds, see SYN_WAITS), and a fall in ops/s only when the SYN
waits add up to at least half of the client time the trial lost.
"""

from __future__ import annotations

import numbers
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from . import words

STALL_MAX_US = 500_000  # one operation took half a second or more, where the twins' median did not
STALL_FRACTION = 0.2  # ops/s below a fifth of the median of the twins' ops/s
# SYN_WAITS: a SYN that gets no answer is sent again after 1 s, then after 2 s, 4 s ... more (the
# initial retransmission timeout of RFC 6298, doubled each time). When the accept queue is full as
# the handshake's last ACK arrives, the server drops that ACK instead, and sends its SYN-ACK again
# after 1 s, 2 s ... The two timers add up, so an operation that waited on them took a whole number
# of seconds (1 s for one dropped SYN, 2 s when the retried handshake was dropped again, ...) plus
# its ordinary time, which we allow to be anything short of a stall by itself.
MAX_SYN_WAIT_S = 63  # six retries
SYN_WAIT_SLACK_US = 10_000  # a wait read off the latency histogram may come out this much short
COVERED_FRACTION = 0.5  # the SYN waits must make up this much of the client time a trial lost
CHAPTER = "chapter 1"
LISTEN_QUEUE = "listen queue"  # the kinds of label
SYN_RETRY = "SYN retry"

Twins = Sequence[tuple[float, float | None]]  # (ops/s, max_us) of the other trials


@dataclass(frozen=True)
class Label:
    """What the host's TCP counters say a trial's slowest operation waited for."""

    kind: str  # LISTEN_QUEUE: the listen queue overflowed; SYN_RETRY: a SYN was sent again
    wait_s: int  # the SYN retry wait the slowest operation sat just past

    def __str__(self) -> str:
        if self.kind == LISTEN_QUEUE:
            return f"listen queue full: a SYN waited {self.wait_s} s ({CHAPTER})"
        return f"a SYN was sent again after {self.wait_s} s (no listen queue overflow seen)"


@dataclass(frozen=True)
class Verdict:
    label: Label | None = None
    stall: str | None = None  # why the trial looks stalled beside its twins, or None
    explained: bool = False  # the label accounts for all of the stall

    @property
    def left_out(self) -> bool:
        """A stall nothing explains: the analysis leaves the trial out of its medians."""
        return self.stall is not None and not self.explained


def stall_reason(ops_per_sec: float, max_us: float | None, twins: Twins) -> str | None:
    """Why a trial looks stalled, or None. ``twins``: (ops/s, max_us) of the other trials of its
    configuration, as many as there are (none: only its own max_us can tell)."""
    reasons = [r for r in (_slow_operation(max_us, twins), _low_rate(ops_per_sec, twins)) if r]
    return "; ".join(reasons) or None


def syn_wait_s(max_us: float | None) -> int | None:
    """The SYN retry wait (a whole number of seconds) a latency sits just past, or None."""
    if not _is_number(max_us):
        return None
    wait = int((max_us + SYN_WAIT_SLACK_US) // 1_000_000)
    if 1 <= wait <= MAX_SYN_WAIT_S and max_us < wait * 1_000_000 + STALL_MAX_US:
        return wait
    return None


def label(max_us: float | None, tcp: Mapping[str, int] | None) -> Label | None:
    """The label of a trial whose slowest operation took just over a SYN retry's wait while the
    host's counters moved: the listen queue overflowed, or at least a SYN was sent again."""
    wait = syn_wait_s(max_us)
    if not tcp or wait is None:
        return None
    if tcp.get("listen_overflows", 0) > 0:
        return Label(LISTEN_QUEUE, wait)
    if tcp.get("syn_retrans", 0) > 0 or tcp.get("listen_drops", 0) > 0:
        return Label(SYN_RETRY, wait)
    return None


def client_seconds(client_threads, seconds, client_hosts=1) -> float | None:
    """The client time a trial had: its client threads (on every client host) times its length."""
    values = [client_threads, seconds, client_hosts]
    if not all(_is_number(v) for v in values):
        return None
    return float(client_threads) * float(seconds) * float(client_hosts)


def judge(
    ops_per_sec: float,
    max_us: float | None,
    twins: Twins,
    tcp: Mapping[str, int] | None = None,
    client_time: float | None = None,
) -> Verdict:
    """A trial's label, whether it looks stalled beside its twins, and whether the label explains
    it. ``tcp``: the host's counter deltas during the trial (None for older results);
    ``client_time``: client_seconds() of the trial."""
    found = label(max_us, tcp)
    slow = _slow_operation(max_us, twins)
    low = _low_rate(ops_per_sec, twins)
    if not slow and not low:
        return Verdict(found)
    why_not = []
    if slow and not found:
        why_not.append(_no_explanation(max_us, tcp))
    if low:
        lost = (1 - ops_per_sec / _twin_rate(twins)) * (client_time or 0)
        waited = max(tcp.get("syn_retrans", 0), tcp.get("listen_drops", 0)) if tcp else 0
        if not found:
            why_not.append(_no_explanation(max_us, tcp))
        elif client_time is None or waited < COVERED_FRACTION * lost:
            why_not.append(
                f"its SYN waits (at least {waited} s in all) make up less than half of the "
                f"{lost:,.0f} s of client time it lost"
            )
    stall = "; ".join(r for r in (slow, low) if r)
    if not why_not:
        return Verdict(found, stall, explained=True)
    return Verdict(found, "; ".join([stall, *dict.fromkeys(why_not)]), explained=False)


def sweep_summary(
    ran: int, failed: int, labels: Sequence[Label], stalled: int, watched: bool
) -> str:
    """The sweep's last word on its trials, in plain words."""
    parts = [f"{words.count(ran, 'trial')} ran" + (f" ({failed} failed)" if failed else "")]
    queue = [x for x in labels if x.kind == LISTEN_QUEUE]
    retried = [x for x in labels if x.kind == SYN_RETRY]
    if queue:
        parts.append(
            f"{len(queue)} saw the listen queue overflow (a SYN retried after {_waits(queue)}, "
            f"{CHAPTER}) and {'is' if len(queue) == 1 else 'are'} kept"
        )
    elif watched:
        parts.append("none saw the listen queue overflow")
    else:
        parts.append("the listen queue could not be watched here (no /proc/net/netstat)")
    if retried:
        parts.append(
            f"{len(retried)} had a SYN retried after {_waits(retried)} with no listen queue "
            f"overflow seen, and {'is' if len(retried) == 1 else 'are'} kept"
        )
    parts.append(
        f"{stalled} stalled for no reason we could see"
        + (
            " (named above; the analysis leaves them out of its medians where their configuration "
            "has other trials)"
            if stalled
            else ""
        )
    )
    return "; ".join(parts) + "."


def _waits(labels: Sequence[Label]) -> str:
    return " or ".join(f"{w} s" for w in sorted({x.wait_s for x in labels}))


def _slow_operation(max_us: float | None, twins: Twins) -> str | None:
    twin_max = _median([m for _, m in twins if _is_number(m)])
    if not _is_number(max_us) or max_us < STALL_MAX_US:
        return None
    if twin_max is not None and twin_max >= STALL_MAX_US:
        return None  # every twin waits as long: that is the configuration
    return (
        f"its slowest operation took {max_us / 1000:,.0f} ms (>= {STALL_MAX_US / 1000:,.0f} ms"
        + (f"; its twins' median {twin_max / 1000:,.0f} ms)" if twin_max is not None else ")")
    )


def _low_rate(ops_per_sec: float, twins: Twins) -> str | None:
    twin_ops = _twin_rate(twins)
    if twin_ops is None or not ops_per_sec < STALL_FRACTION * twin_ops:
        return None
    n = len(twins)
    return (
        f"{ops_per_sec:,.0f} ops/s is below 1/{round(1 / STALL_FRACTION)} of the median "
        f"{twin_ops:,.0f} of its configuration's other {words.count(n, 'trial')}"
    )


def _no_explanation(max_us: float | None, tcp: Mapping[str, int] | None) -> str:
    if not tcp:
        return "no TCP counters were recorded to explain it"
    if not any(tcp.values()):
        return "the host saw no listen queue overflow and no SYN retry during it"
    slowest = f"{max_us / 1000:,.0f} ms" if _is_number(max_us) else "its slowest operation"
    return (
        f"the host saw {tcp.get('listen_overflows', 0)} listen queue overflows and "
        f"{tcp.get('syn_retrans', 0)} SYN retries during it, but {slowest} is no SYN retry's wait "
        f"(a whole number of seconds, and less than {STALL_MAX_US / 1000:,.0f} ms more)"
    )


def _twin_rate(twins: Twins) -> float | None:
    return _median([o for o, _ in twins if _is_number(o)])


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and value == value


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None
