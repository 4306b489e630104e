"""Hardware utilisation of a node during a trial, sampled from /proc once a second.

Each sample is the difference between two readings of three files a second apart:

- ``/proc/stat``, first line: jiffies spent in user (+nice), system (+irq, softirq), iowait,
  idle and the rest since boot; their shares of the interval are the CPU percentages, over all
  cores (100 % = every core busy).
- ``/proc/meminfo``: memory in use = MemTotal - MemAvailable (what the kernel says could be had
  without swapping), a level rather than a rate.
- ``/proc/net/dev``: bytes and packets received and sent per interface since boot; summed over
  every interface but ``lo`` for ``net_*`` (the traffic between nodes), and ``lo`` on its own for
  ``lo_*`` (the traffic of a trial whose clients and servers share this machine).

The same parser serves a remote node: over SSH the node only prints the three files in a loop
(``REMOTE_LOOP``, plain sh and cat, nothing to install), and the text is read here. A trial's
record keeps, per node, the median and the maximum of every metric over its samples.
"""

from __future__ import annotations

import shlex
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

INTERVAL_SECONDS = 1.0
# What a node's entry holds besides the metrics.
ROLE = "role"
SAMPLES = "samples"
# The metrics, in the order the analysis shows them.
METRICS = (
    "cpu_user_pct",
    "cpu_system_pct",
    "cpu_iowait_pct",
    "cpu_busy_pct",
    "mem_used_bytes",
    "net_rx_bytes_per_s",
    "net_tx_bytes_per_s",
    "net_rx_packets_per_s",
    "net_tx_packets_per_s",
    "lo_bytes_per_s",
)
SECTION = "@@dbf0-section "  # marks where one file ends and the next begins in the remote stream


@dataclass(frozen=True)
class Reading:
    """One reading of the counters, as the kernel keeps them since boot."""

    at: float  # seconds, monotonic
    cpu: tuple[int, int, int, int]  # jiffies: user, system, iowait, total
    mem_used: int  # bytes
    net: Mapping[
        str, tuple[int, int, int, int]
    ]  # interface -> rx bytes, rx packets, tx bytes, tx packets


def parse_stat(text: str) -> tuple[int, int, int, int]:
    """The aggregate ``cpu`` line: user, nice, system, idle, iowait, irq, softirq, steal, ...
    (guest time is already inside user and nice, so it is not added again)."""
    for line in text.splitlines():
        fields = line.split()
        if fields and fields[0] == "cpu":
            values = [int(v) for v in fields[1:]]
            values += [0] * (8 - len(values))
            user, nice, system, idle, iowait, irq, softirq, steal = values[:8]
            total = user + nice + system + idle + iowait + irq + softirq + steal
            return user + nice, system + irq + softirq, iowait, total
    raise ValueError("no 'cpu' line in /proc/stat")


def parse_meminfo(text: str) -> int:
    """Bytes in use: MemTotal - MemAvailable (kernels before 3.14 lack MemAvailable: then
    MemFree)."""
    kib: dict[str, int] = {}
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        parts = rest.split()
        if parts:
            kib[name.strip()] = int(parts[0])
    if "MemTotal" not in kib:
        raise ValueError("no MemTotal in /proc/meminfo")
    available = kib.get("MemAvailable", kib.get("MemFree", 0))
    return (kib["MemTotal"] - available) * 1024


def parse_net_dev(text: str) -> dict[str, tuple[int, int, int, int]]:
    """Per interface: received bytes and packets, sent bytes and packets (two header lines
    first)."""
    counters = {}
    for line in text.splitlines()[2:]:
        name, sep, rest = line.partition(":")
        if not sep:
            continue
        fields = rest.split()
        if len(fields) < 10:
            continue
        counters[name.strip()] = (int(fields[0]), int(fields[1]), int(fields[8]), int(fields[9]))
    return counters


def read(proc: str | Path = "/proc", clock: Callable[[], float] = time.monotonic) -> Reading:
    """Reads the three files under ``proc`` (a fake directory in tests)."""
    proc = Path(proc)
    return Reading(
        clock(),
        parse_stat((proc / "stat").read_text()),
        parse_meminfo((proc / "meminfo").read_text()),
        parse_net_dev((proc / "net" / "dev").read_text()),
    )


def sample(before: Reading, after: Reading) -> dict[str, float]:
    """One sample: rates and shares over the interval between two readings."""
    seconds = after.at - before.at
    if seconds <= 0:
        raise ValueError("readings out of order")
    jiffies = max(1, after.cpu[3] - before.cpu[3])

    def pct(i: int) -> float:
        return 100.0 * (after.cpu[i] - before.cpu[i]) / jiffies

    def rate(ifaces: Sequence[str], i: int) -> float:
        # an interface that came or went between the readings is left out rather than guessed at
        total = sum(after.net[n][i] - before.net[n][i] for n in ifaces if n in before.net)
        return max(0.0, total / seconds)

    nodes = [n for n in after.net if n != "lo"]
    lo = ["lo"] if "lo" in after.net else []
    user, system, iowait = pct(0), pct(1), pct(2)
    return {
        "cpu_user_pct": user,
        "cpu_system_pct": system,
        "cpu_iowait_pct": iowait,
        "cpu_busy_pct": user + system,
        "mem_used_bytes": float(after.mem_used),
        "net_rx_bytes_per_s": rate(nodes, 0),
        "net_rx_packets_per_s": rate(nodes, 1),
        "net_tx_bytes_per_s": rate(nodes, 2),
        "net_tx_packets_per_s": rate(nodes, 3),
        # a loopback packet is both sent and received: count it once
        "lo_bytes_per_s": rate(lo, 0),
    }


def summarize(samples: Sequence[Mapping[str, float]], role: str) -> dict[str, Any]:
    """A node's entry in the trial's record: per metric, the median and maximum over the samples."""
    entry: dict[str, Any] = {ROLE: role, SAMPLES: len(samples)}
    for metric in METRICS:
        values = [s[metric] for s in samples if metric in s]
        if values:
            entry[metric] = {
                "median": round(statistics.median(values), 2),
                "max": round(max(values), 2),
            }
    return entry


class Sampler:
    """Samples this machine's /proc once a second on a thread, from start() until stop()."""

    def __init__(self, proc: str | Path = "/proc", interval: float = INTERVAL_SECONDS):
        self.proc = proc
        self.interval = interval
        self.samples: list[dict[str, float]] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Sampler:
        self._thread = threading.Thread(target=self._run, name="utilisation", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            last = read(self.proc)
            while not self._stop.wait(self.interval):
                now = read(self.proc)
                self.samples.append(sample(last, now))
                last = now
        except (OSError, ValueError):
            pass  # no /proc (not Linux) or an unreadable file: the trial just has no samples

    def stop(self) -> list[dict[str, float]]:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        return list(self.samples)


# Prints the three files once a second, each preceded by a marker line, until killed or the time
# limit; $1 is the limit in seconds. Only sh, cat and sleep: any Linux host has them.
REMOTE_LOOP = (
    "end=$(( $(date +%s) + $1 )); while [ $(date +%s) -lt $end ]; do "
    f"echo '{SECTION}stat'; cat /proc/stat; echo '{SECTION}meminfo'; cat /proc/meminfo; "
    f"echo '{SECTION}netdev'; cat /proc/net/dev; echo '{SECTION}end'; "
    f"sleep {INTERVAL_SECONDS:g}; done"
)


def remote_command(limit_seconds: float) -> str:
    """The remote shell command that streams readings for at most ``limit_seconds``."""
    return f"sh -c {shlex.quote(REMOTE_LOOP)} sh {int(limit_seconds) + 1}"


def parse_stream(text: str, arrived: Sequence[float] | None = None) -> list[Reading]:
    """Readings from the remote loop's output. Their times are taken as one interval apart
    (``arrived`` gives real ones), since the remote clock and ours need not agree."""
    readings: list[Reading] = []
    parts: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith(SECTION):
            name = line[len(SECTION) :].strip()
            if name == "end":
                if {"stat", "meminfo", "netdev"} <= parts.keys():
                    at = arrived[len(readings)] if arrived else len(readings) * INTERVAL_SECONDS
                    readings.append(
                        Reading(
                            at,
                            parse_stat("\n".join(parts["stat"])),
                            parse_meminfo("\n".join(parts["meminfo"])),
                            parse_net_dev("\n".join(parts["netdev"])),
                        )
                    )
                parts, current = {}, None
            else:
                current = parts.setdefault(name, [])
        elif current is not None:
            current.append(line)
    return readings


def samples_from(readings: Sequence[Reading]) -> list[dict[str, float]]:
    return [sample(a, b) for a, b in zip(readings, readings[1:])]


class RemoteSampler:
    """Runs REMOTE_LOOP on a host over SSH alongside a trial; stop() ends it and parses what
    came."""

    def __init__(self, ssh_argv: Callable[[str], list[str]], limit_seconds: float):
        self._argv = ssh_argv(remote_command(limit_seconds))
        self._proc: subprocess.Popen[str] | None = None

    def start(self) -> RemoteSampler:
        try:
            self._proc = subprocess.Popen(
                self._argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                process_group=0,
            )
        except OSError:
            self._proc = None
        return self

    def stop(self) -> list[dict[str, float]]:
        if self._proc is None:
            return []
        self._proc.terminate()  # ends the local ssh; the remote loop ends at its own time limit
        try:
            out, _ = self._proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            out, _ = self._proc.communicate()
        try:
            return samples_from(parse_stream(out))
        except ValueError:
            return []
