"""Where a trial ran: the host's CPU, memory, OS and JDK, the dbf0 version and git commit.

The same small POSIX shell probe runs on the local machine and, over SSH, on remote hosts, so
both are described the same way. Linux first (/proc, /etc/os-release); macOS falls back on
sysctl. Each line of its output is ``key=value``.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path
from typing import Any

# $1 = the java command, $2 = the jar
PROBE_SCRIPT = r"""
java=$1; jar=$2
echo "hostname=$(uname -n)"
cpu=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)
[ -n "$cpu" ] || cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1)
[ -n "$cpu" ] || cpu=$(sysctl -n machdep.cpu.brand_string 2>/dev/null)
echo "cpu_model=$cpu"
echo "cores=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null)"
mem=$(sed -n 's/^MemTotal:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/meminfo 2>/dev/null)
if [ -n "$mem" ]; then echo "memory_bytes=$((mem * 1024))"
else echo "memory_bytes=$(sysctl -n hw.memsize 2>/dev/null)"; fi
os=$( (. /etc/os-release && echo "$PRETTY_NAME") 2>/dev/null)
[ -n "$os" ] || os="$(sw_vers -productName 2>/dev/null) $(sw_vers -productVersion 2>/dev/null)"
echo "os=$os"
echo "kernel=$(uname -sr)"
echo "arch=$(uname -m)"
echo "java_version=$("$java" -version 2>&1 | head -n 1)"
echo "dbf0_version=$("$java" -jar "$jar" --version 2>/dev/null | head -n 1)"
"""

INT_FIELDS = ("cores", "memory_bytes")


def parse_probe(text: str) -> dict[str, Any]:
    info: dict[str, Any] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            info[key.strip()] = value.strip()
    for key in INT_FIELDS:
        try:
            info[key] = int(info[key])
        except (KeyError, ValueError):
            info[key] = None
    return info


def git_commit(repo: Path) -> dict[str, Any]:
    """The commit the jar was built from (as far as the working tree tells) and whether the tree
    had uncommitted changes. Both None outside a git checkout."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=20
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no") if commit else None
    return {"git_commit": commit, "git_dirty": None if status is None else bool(status)}


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def describe(info: dict[str, Any]) -> str:
    """One line for people: 'Intel Xeon ..., 2 cores, 24 GiB, Debian 12, OpenJDK 25'."""
    parts = [info.get("cpu_model") or "unknown CPU"]
    if info.get("cores"):
        parts.append(f"{info['cores']} cores")
    if info.get("memory_bytes"):
        parts.append(f"{info['memory_bytes'] / 2**30:.0f} GiB")
    for key in ("os", "java_version", "dbf0_version"):
        if info.get(key):
            parts.append(str(info[key]))
    if info.get("git_commit"):
        parts.append(
            f"commit {info['git_commit'][:10]}"
            + (" (+ local changes)" if info.get("git_dirty") else "")
        )
    return ", ".join(parts)


def filesystem_of(path: str | Path, mounts: str = "/proc/mounts") -> str:
    """The file system a path lives on, as 'ext4 on /dev/vda' (the longest mount point that holds
    the path, from /proc/mounts), or 'unknown file system' where there is no such file. What an
    fsync costs is the disk's and the file system's: on a tmpfs it costs nothing."""
    target = Path(path).resolve()
    best: tuple[int, str] | None = None
    try:
        lines = Path(mounts).read_text().splitlines()
    except OSError:
        return "unknown file system"
    for line in lines:
        fields = line.split()
        if len(fields) < 3:
            continue
        device, point, kind = fields[0], fields[1].replace("\\040", " "), fields[2]
        if (target == Path(point) or Path(point) in target.parents) and (
            best is None or len(point) > best[0]
        ):
            best = (len(point), f"{kind} on {device}")
    return best[1] if best else "unknown file system"
