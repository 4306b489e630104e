"""Shared fixtures: the repository, the jar and a JDK 21+ to run it, and real sshd servers."""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
JAR = REPO / "target" / "dbf0.jar"
REFERENCE_2020 = REPO / "benchmarks" / "upstream" / "dbfromzero-2020-c5n.2xlarge.jsonl"
SAMPLE = REPO / "benchmarks" / "sample" / "sample.jsonl"
SSHD = Path("/usr/sbin/sshd")


@pytest.fixture(scope="session")
def java() -> str:
    """A JDK 21+ java, found like build.sh finds one."""
    from dbf0lab.sweep_cli import find_local_java

    try:
        return find_local_java()
    except SystemExit as e:
        pytest.skip(f"no JDK 21+ here: {e}")


@pytest.fixture(scope="session")
def jar() -> Path:
    if not JAR.is_file():
        pytest.skip(f"{JAR} is not built; ./test.sh builds it (or ./build.sh)")
    return JAR


def run_script(
    name: str, *args: str, timeout: float = 120, **kwargs
) -> subprocess.CompletedProcess[str]:
    """Runs scripts/NAME with this Python, as a user would. Past the timeout the script and every
    process it started (servers, benchmarks) are killed, so that none outlives the test."""
    command = [sys.executable, str(REPO / "scripts" / name), *args]
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        **kwargs,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            raise subprocess.TimeoutExpired(command, timeout, stdout, stderr) from None
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def interruptible() -> None:
    """preexec_fn for a program a test interrupts with SIGINT: Ctrl-C's default disposition, which
    a test runner started in the background (`cmd &` without job control) hands down as ignored,
    and which Python then keeps ignored, so that the interrupt would never arrive."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_ports(count: int) -> int:
    """The first of `count` consecutive loopback ports that are free now, for a command that takes
    a base port and counts up from it. Drawn below the kernel's ephemeral range (32768 and up on
    Linux), where no outgoing connection of a parallel test can take one in the meantime, as one
    did once after `free_port()` returned 49117 and a node then failed to listen on 49118."""
    rng = random.Random()
    for _ in range(200):
        base = rng.randrange(20000, 32000 - count)
        try:
            for port in range(base, base + count):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    raise RuntimeError(f"no {count} consecutive free ports between 20000 and 32000")


class Sshd:
    """One real OpenSSH server on 127.0.0.1, with a throwaway host key, and the client key that
    logs in to it as the current user."""

    def __init__(self, directory: Path, client_key: Path):
        self.directory = directory
        self.port = free_port()
        host_key = directory / "host_key"
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(host_key)], check=True
        )
        config = directory / "sshd_config"
        config.write_text(
            "\n".join(
                [
                    "ListenAddress 127.0.0.1",
                    f"HostKey {host_key}",
                    f"AuthorizedKeysFile {client_key}.pub",
                    f"PidFile {directory / 'sshd.pid'}",
                    "StrictModes no",
                    "UsePAM no",
                    "PubkeyAuthentication yes",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "PermitRootLogin prohibit-password",
                    "Subsystem sftp internal-sftp",  # scp speaks SFTP since OpenSSH 9
                    "",
                    "",
                ]
            )
        )
        # open while sshd runs: stop() closes it
        self.log = open(directory / "sshd.log", "w")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [str(SSHD), "-D", "-e", "-f", str(config), "-p", str(self.port)],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 10
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"sshd exited: {(directory / 'sshd.log').read_text()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    @property
    def host(self) -> str:
        return f"{os.environ.get('USER') or _user()}@127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def _user() -> str:
    import pwd

    return pwd.getpwuid(os.getuid()).pw_name


@pytest.fixture(scope="session")
def sshd_factory(tmp_path_factory):
    """Starts real sshd servers on loopback (Debian's openssh-server): ssh_args() gives the sweep
    options that log in to them with a throwaway key and no known_hosts."""
    if not SSHD.exists():
        pytest.skip(
            "sshd is not installed: `sudo bash scripts/install-test-tools.sh` installs it "
            "(Debian's openssh-server)"
        )
    if not shutil.which("ssh") or not shutil.which("ssh-keygen") or not shutil.which("scp"):
        pytest.skip("the OpenSSH client (ssh, scp, ssh-keygen) is not installed")
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege separation directory
    base = tmp_path_factory.mktemp("sshd")
    client_key = base / "client_key"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(client_key)], check=True
    )
    servers: list[Sshd] = []

    class Factory:
        def start(self) -> Sshd:
            directory = base / f"server{len(servers)}"
            directory.mkdir()
            servers.append(Sshd(directory, client_key))
            return servers[-1]

        def ssh_args(self) -> list[str]:
            return [
                "--identity",
                str(client_key),
                "--ssh-option",
                "StrictHostKeyChecking=no",
                "--ssh-option",
                "UserKnownHostsFile=/dev/null",
                "--ssh-option",
                "LogLevel=ERROR",
            ]

    yield Factory()
    for server in servers:
        server.stop()
