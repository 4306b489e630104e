"""Where trials run: this machine, or remote hosts reached with OpenSSH.

A remote host gets the jar once (``scp``, under a name that holds the jar's hash, so a host
that already has this very jar is not sent it again), is described once (machine.PROBE_SCRIPT),
and then runs one trial at a time: ``ssh host '<java> -jar <jar> bench ...'``. ssh and scp run
in BatchMode, so a host that would ask for a password fails at once instead of hanging.

Each trial runs in its own process group with a time limit. On a remote host the trial also
runs under ``timeout`` there, and writes its process id to a file, so that a trial cancelled
here (Ctrl-C, or our time limit) is ended on the host too instead of running on in the
background and disturbing the next one.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import machine
from .grid import DATA_DIR, needs_data_dir
from .results import MACHINE

SSH_EXIT_CONNECTION = 255  # what ssh exits with when it could not connect or authenticate
KILL_GRACE_SECONDS = 5


class HostError(Exception):
    """A host cannot run trials (unreachable, no usable java, jar copy failed)."""


@dataclass
class Completed:
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    cancelled: bool = False


@dataclass
class SshSettings:
    identity: str | None = None
    options: Sequence[str] = ()  # "Key=Value", each passed as -o Key=Value
    remote_java: str = "java"
    remote_dir: str = ".dbf0-bench"  # relative to the remote home, or absolute
    connect_timeout: int = 15

    def common_args(self) -> list[str]:
        args = [
            "-o",
            "BatchMode=yes",
            "-o",
            f"ConnectTimeout={self.connect_timeout}",
            "-o",
            "ServerAliveInterval=15",
        ]
        if self.identity:
            args += ["-i", self.identity]
        for option in self.options:
            args += ["-o", option]
        return args


class Host:
    """Runs commands on one host, one at a time, and can cancel the running one."""

    label: str

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[str] | None = None
        self._cancelled = False

    # --- to implement -------------------------------------------------------------------
    def prepare(self, jar: Path, jar_sha256: str) -> None:
        raise NotImplementedError

    def jar_command(
        self,
        verb: str,
        java_opts: Sequence[str],
        args: Sequence[str],
        timeout: float,
        run_id: str,
        data_root: str | None = None,
    ) -> list[str]:
        """``java -jar dbf0.jar VERB ARGS`` here or on the host (verb: bench, server).

        grid.DATA_DIR in args becomes a fresh directory under data_root, removed when the command
        ends."""
        raise NotImplementedError

    def bench_command(
        self,
        java_opts: Sequence[str],
        bench_args: Sequence[str],
        timeout: float,
        run_id: str,
        data_root: str | None = None,
    ) -> list[str]:
        return self.jar_command("bench", java_opts, bench_args, timeout, run_id, data_root)

    def probe_command(self) -> list[str]:
        raise NotImplementedError

    def cancel_remote(self, run_id: str) -> None:
        """Ends the trial on the far side, where there is one."""

    def local_grace(self) -> float:
        """Extra seconds our own limit allows beyond the trial's time limit."""
        return 0.0

    # --- shared -------------------------------------------------------------------------
    def run(self, argv: Sequence[str], timeout: float | None) -> Completed:
        """Runs argv in its own process group (so the terminal's Ctrl-C reaches us, not it),
        and kills the whole group when the time limit passes or cancel() is called."""
        with self._lock:
            if self._cancelled:
                return Completed(None, "", "", cancelled=True)
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                process_group=0,
            )
            self._proc = proc
        try:
            out, err = proc.communicate(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            out, err = proc.communicate()
            timed_out = True
        finally:
            with self._lock:
                self._proc = None
        with self._lock:
            cancelled = self._cancelled
        return Completed(
            proc.returncode, out, err, timed_out=timed_out and not cancelled, cancelled=cancelled
        )

    def run_bench(
        self,
        java_opts: Sequence[str],
        bench_args: Sequence[str],
        timeout: float,
        data_root: str | None = None,
    ) -> Completed:
        """Runs one trial. When its arguments hold grid.DATA_DIR, the trial gets a fresh data
        directory under data_root (default: the host's temporary directory), removed afterwards."""
        run_id = uuid.uuid4().hex
        done = self.run(
            self.bench_command(java_opts, bench_args, timeout, run_id, data_root),
            timeout + self.local_grace(),
        )
        if done.timed_out or done.cancelled:
            self.cancel_remote(run_id)
        return done

    def probe(self, jar_info: dict[str, Any]) -> dict[str, Any]:
        done = self.run(self.probe_command(), 120)
        if done.exit_code != 0:
            raise HostError(
                f"{self.label}: could not describe the host: "
                f"{excerpt(done.stderr) or done.exit_code}"
            )
        info = machine.parse_probe(done.stdout)
        if not info.get("dbf0_version"):
            raise HostError(
                f"{self.label}: '{info.get('java_version') or 'java'}' cannot run the jar; "
                "dbf0 needs a JDK 21+ there (see --java / --remote-java)"
            )
        return {"kind": MACHINE, "host": self.label, **info, **jar_info}

    def cancel(self) -> None:
        """Stops the running command (if any) and every later one."""
        with self._lock:
            self._cancelled = True
            proc = self._proc
        if proc is not None:
            _kill_group(proc)


def _kill_group(proc: subprocess.Popen[str]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(KILL_GRACE_SECONDS)
            return
        except subprocess.TimeoutExpired:
            continue


def excerpt(text: str, head: int = 3, tail: int = 12, width: int = 200) -> str:
    """The first and last lines of a program's output: where the error is usually said."""
    lines = [line[:width] for line in text.strip().splitlines()]
    if len(lines) > head + tail:
        lines = lines[:head] + [f"... ({len(lines) - head - tail} lines)"] + lines[-tail:]
    return "\n".join(lines)


class LocalHost(Host):
    label = "local"

    def __init__(self, java: str):
        super().__init__()
        self.java = java
        self.jar: Path | None = None

    def prepare(self, jar: Path, jar_sha256: str) -> None:
        self.jar = jar.resolve()

    def jar_command(self, verb, java_opts, args, timeout, run_id, data_root=None):
        # a DATA_DIR in args was replaced by run_bench already: the directory is made
        # here, in Python
        return [self.java, *java_opts, "-jar", str(self.jar), verb, *args]

    def run_bench(self, java_opts, bench_args, timeout, data_root=None):
        if not needs_data_dir(bench_args):
            return super().run_bench(java_opts, bench_args, timeout)
        directory = tempfile.mkdtemp(prefix="dbf0-wal-", dir=data_root)
        try:
            args = [directory if a == DATA_DIR else a for a in bench_args]
            return super().run_bench(java_opts, args, timeout)
        finally:
            shutil.rmtree(directory, ignore_errors=True)

    def probe_command(self):
        return ["sh", "-c", machine.PROBE_SCRIPT, "sh", self.java, str(self.jar)]


HOST_PATTERN = re.compile(r"^(?:(?P<user>[^@\s]+)@)?(?P<host>[^@:\s]+)(?::(?P<port>\d+))?$")


class SshHost(Host):
    def __init__(self, label: str, settings: SshSettings):
        super().__init__()
        match = HOST_PATTERN.match(label)
        if not match:
            raise ValueError(f"not a host: {label!r} (use [user@]host[:port])")
        user, host, port = match.group("user", "host", "port")
        self.label = label
        self.settings = settings
        self.destination = f"{user}@{host}" if user else host  # as ssh and scp take it
        self.hostname = (
            host  # where other nodes reach a server this host runs on a wildcard address
        )
        self.port = int(port) if port else None
        self.jar: str | None = None
        self.copied_jar = False  # whether prepare() had to send the jar

    def ssh(self, remote_command: str) -> list[str]:
        port = ["-p", str(self.port)] if self.port else []
        return ["ssh", *self.settings.common_args(), *port, self.destination, remote_command]

    def scp(self, local: Path, remote: str) -> list[str]:
        port = ["-P", str(self.port)] if self.port else []
        return [
            "scp",
            "-q",
            *self.settings.common_args(),
            *port,
            str(local),
            f"{self.destination}:{remote}",
        ]

    def _check(self, argv: list[str], what: str, timeout: float = 300) -> str:
        done = self.run(argv, timeout)
        if done.cancelled:
            raise HostError(f"{self.label}: cancelled")
        if done.exit_code != 0:
            why = (
                "timed out"
                if done.timed_out
                else excerpt(done.stderr) or f"exit code {done.exit_code}"
            )
            raise HostError(f"{self.label}: {what} failed: {why}")
        return done.stdout

    def prepare(self, jar: Path, jar_sha256: str) -> None:
        """Copies the jar unless the host already has this exact one."""
        rdir = self.settings.remote_dir.rstrip("/") or "."
        name = f"dbf0-{jar_sha256[:16]}.jar"
        target = f"{rdir}/{name}"
        q = shlex.quote
        state = self._check(
            self.ssh(
                f"mkdir -p {q(rdir)} && if [ -f {q(target)} ]; then echo present; "
                f"else echo absent; fi"
            ),
            "connecting",
        )
        if state.strip() != "present":
            part = f"{target}.part-{uuid.uuid4().hex[:8]}"
            self._check(self.scp(jar, part), "copying the jar")
            self._check(self.ssh(f"mv -f {q(part)} {q(target)}"), "installing the jar")
            self.copied_jar = True
        self.jar = target

    def probe_command(self):
        q = shlex.quote
        return self.ssh(
            f"sh -c {q(machine.PROBE_SCRIPT)} sh {q(self.settings.remote_java)} {q(self.jar)}"
        )

    def _pidfile(self, run_id: str) -> str:
        return f"{self.settings.remote_dir.rstrip('/') or '.'}/run-{run_id}.pid"

    def jar_command(self, verb, java_opts, args, timeout, run_id, data_root=None):
        q = shlex.quote
        java = " ".join(
            q(a) if a != DATA_DIR else '"$d"'
            for a in [self.settings.remote_java, *java_opts, "-jar", self.jar, verb, *args]
        )
        pidfile = q(self._pidfile(run_id))
        limit = f"{int(timeout) + 1}"
        setup = cleanup = ""
        if needs_data_dir(args):
            # a fresh directory on the host, removed however the trial ends (a cancelled trial's
            # shell gets SIGTERM or SIGHUP from the dropped connection)
            root = q(data_root) if data_root else '"${TMPDIR:-/tmp}"'
            setup = (
                f"d=$(mktemp -d {root}/dbf0-wal-XXXXXX) || exit 1; "
                "trap 'rm -rf \"$d\"' EXIT; trap 'rm -rf \"$d\"; exit 143' HUP INT TERM; "
            )
            cleanup = 'rm -rf "$d"; '
        script = (
            f"{setup}if command -v timeout >/dev/null 2>&1; "
            f"then t='timeout -k {KILL_GRACE_SECONDS} {limit}'; else t=''; fi; "
            f"$t {java} & echo $! > {pidfile}; wait $!; rc=$?; rm -f {pidfile}; {cleanup}exit $rc"
        )
        return self.ssh(script)

    def local_grace(self) -> float:
        return self.settings.connect_timeout + 2 * KILL_GRACE_SECONDS

    def cancel_remote(self, run_id: str) -> None:
        pidfile = shlex.quote(self._pidfile(run_id))
        argv = self.ssh(
            f"if [ -f {pidfile} ]; "
            f"then kill -TERM $(cat {pidfile}) 2>/dev/null; rm -f {pidfile}; fi"
        )
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=30)


def parse_hosts(names: Sequence[str], java: str, ssh: SshSettings) -> list[Host]:
    """'local' is this machine; anything else is [user@]host[:port] reached over SSH."""
    hosts: list[Host] = []
    for name in names:
        hosts.append(LocalHost(java) if name == "local" else SshHost(name, ssh))
    labels = [h.label for h in hosts]
    if len(labels) != len(set(labels)):
        raise ValueError(f"a host is named twice: {labels}")
    return hosts


def read_hosts_file(path: str | os.PathLike[str]) -> list[str]:
    """One host a line; blank lines and '#' comments are ignored."""
    names = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.append(line)
    return names
