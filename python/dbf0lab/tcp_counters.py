"""The host's TCP counters that show a listen queue overflowing, read from /proc/net/netstat.

The file holds a pair of lines per prefix: one names the counters, the next gives their values,
in the same order::

    TcpExt: SyncookiesSent SyncookiesRecv ... ListenOverflows ListenDrops ... TCPSynRetrans ...
    TcpExt: 56 116 ... 257 257 ... 191 ...

Three of them tell chapter 1's story:

- ``ListenOverflows``: a connection arrived while the listening socket's accept queue (its
  backlog) was full, and the kernel dropped it;
- ``ListenDrops``: every connection a listening socket dropped, the overflows included;
- ``TCPSynRetrans``: SYNs (and SYN-ACKs) sent again because no answer came. A client whose SYN
  was dropped sends it again after 1 s, then after 2 s more, and so on.

They count since boot, for the whole host: every program's connections move them, not only the
trial's. A trial records the difference between a reading just before it and one just after it
(``result["tcp"]``). This machine's file is read directly; a remote host's with ``cat`` over SSH,
as utilisation.py reads its /proc. Where the file is absent (macOS), nothing is recorded, and the
sweep says so once per host.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .hosts import Host, SshHost

TCP = "tcp"  # the trial result's field
PATH = Path("/proc/net/netstat")
# The result's names for the counters, and where /proc/net/netstat keeps them.
COUNTERS = {
    "listen_overflows": ("TcpExt", "ListenOverflows"),
    "listen_drops": ("TcpExt", "ListenDrops"),
    "syn_retrans": ("TcpExt", "TCPSynRetrans"),
}
REMOTE_SECONDS = 30  # how long `cat` over SSH may take, beyond the connection's own timeout


def parse(text: str) -> dict[str, dict[str, int]]:
    """Every counter in the file, by prefix: ``{"TcpExt": {"ListenOverflows": 12, ...}, ...}``."""
    tables: dict[str, dict[str, int]] = {}
    names: dict[str, list[str]] = {}
    for line in text.splitlines():
        prefix, sep, rest = line.partition(":")
        if not sep:
            continue
        fields = rest.split()
        if prefix not in names:  # the first line of a pair names the counters
            names[prefix] = fields
            continue
        header = names.pop(prefix)
        if len(header) != len(fields):
            raise ValueError(f"{prefix}: {len(header)} names but {len(fields)} values")
        tables[prefix] = {name: int(value) for name, value in zip(header, fields)}
    return tables


def pick(text: str) -> dict[str, int]:
    """The three counters of COUNTERS, under the result's names (a kernel that lacks one simply
    leaves it out)."""
    tables = parse(text)
    return {
        key: tables[prefix][name]
        for key, (prefix, name) in COUNTERS.items()
        if name in tables.get(prefix, {})
    }


def delta(before: Mapping[str, int] | None, after: Mapping[str, int] | None) -> dict[str, int]:
    """What the counters did between two readings; empty when either reading is missing, or when
    a counter went back (the host rebooted between them)."""
    if before is None or after is None:
        return {}
    moved = {key: after[key] - before[key] for key in COUNTERS if key in before and key in after}
    return {} if any(v < 0 for v in moved.values()) else moved


def total(deltas: Sequence[Mapping[str, int]]) -> dict[str, int]:
    """The sum of several hosts' deltas (a trial with roles); empty when any host had none."""
    if not deltas or any(not d for d in deltas):
        return {}
    keys = set.intersection(*(set(d) for d in deltas))
    return {key: sum(d[key] for d in deltas) for key in COUNTERS if key in keys}


def read_local(path: str | Path | None = None) -> dict[str, int] | None:
    """This machine's counters (``path``: a fake file in tests), or None where there are none."""
    try:
        return pick(Path(path or PATH).read_text())
    except (OSError, ValueError):
        return None


def read_remote(ssh_argv: Callable[[str], list[str]], timeout: float) -> dict[str, int] | None:
    """The counters of a host reached over SSH: ``cat /proc/net/netstat`` there."""
    try:
        done = subprocess.run(
            ssh_argv("cat /proc/net/netstat"),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return pick(done.stdout) if done.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None


class Watch:
    """Reads the counters of the hosts a sweep runs trials on; says once per host when it cannot
    (no /proc/net/netstat there), and whether any host could be read at all."""

    def __init__(self, log: Callable[[str], None]):
        self.log = log
        self.read_any = False
        self._lock = threading.Lock()
        self._said: set[str] = set()

    def read(self, host: Host) -> dict[str, int] | None:
        if isinstance(host, SshHost):
            counters = read_remote(host.ssh, host.settings.connect_timeout + REMOTE_SECONDS)
        else:
            counters = read_local()
        with self._lock:
            if counters:
                self.read_any = True
            elif host.label not in self._said:
                self._said.add(host.label)
                self.log(
                    f"{host.label}: no TCP counters (/proc/net/netstat cannot be read there, as on "
                    "macOS): the sweep cannot see whether the listen queue overflowed, so a stall "
                    "it sees stays unexplained"
                )
        return counters or None

    def read_all(self, hosts: Sequence[Host]) -> list[dict[str, int] | None]:
        """Every host's counters, read at once (one SSH round trip each, side by side)."""
        if len(hosts) <= 1:
            return [self.read(h) for h in hosts]
        with ThreadPoolExecutor(max_workers=len(hosts)) as pool:
            return list(pool.map(self.read, hosts))
