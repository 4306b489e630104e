"""One process's CPU time, read from Linux's /proc, for the scripts that split a run's CPU between
its server and client processes (scripts/cpu-split.py, scripts/shard_loopback.py)."""

from __future__ import annotations

import os
from pathlib import Path


def cpu_seconds(pid: int, proc: str | Path = "/proc") -> float:
    """User plus system CPU seconds the process has used so far (fields 14 and 15 of its stat;
    the command name in parentheses may hold spaces, so the fields are counted after it)."""
    fields = Path(proc, str(pid), "stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def java_pid(pid: int, proc: str | Path = "/proc") -> int:
    """The java process: pid itself if it exec'd java, else its java child (./dbf0 is a script
    that may run java as a child), else pid."""
    if "java" in Path(proc, str(pid), "comm").read_text():
        return pid
    for child in Path(proc, str(pid), "task", str(pid), "children").read_text().split():
        if "java" in Path(proc, child, "comm").read_text():
            return int(child)
    return pid
