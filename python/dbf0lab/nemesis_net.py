"""Network namespaces for the nemesis's partitions, all on one machine.

Each node runs in a network namespace of its own, wired by a veth pair to a bridge in one more
namespace, the hub, where the clients run; every namespace here is made by this module, named
``dbf0nem<tag>...``, and removed by :meth:`Namespaces.remove`. A partition is iptables rules inside
the victim's namespace that drop its peers' packets, both ways, while the hub still reaches it: the
leader keeps its clients but loses its followers. Nothing outside these namespaces is touched:
the veth pairs are made inside the hub and their far end moved straight into the node's namespace.

    hub (clients)  10.77.0.1/24 on bridge br0
      ├── v0 ──── eth0 10.77.0.10  node 0
      ├── v1 ──── eth0 10.77.0.11  node 1
      └── ...

The address plan can be the same in every run: each hub is a network of its own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Sequence

PREFIX = "dbf0nem"
HUB_ADDRESS = "10.77.0.1"
PREFIX_LENGTH = 24


def node_address(i: int) -> str:
    return f"10.77.0.{10 + i}"


def unavailable() -> str | None:
    """Why namespaces cannot be made here, or None if they can (checked by making one)."""
    if os.geteuid() != 0:
        return "not root (network namespaces and iptables need root)"
    for tool in ("ip", "iptables"):
        if shutil.which(tool) is None:
            return f"no {tool} command on PATH"
    probe = f"{PREFIX}{uuid.uuid4().hex[:6]}p"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"ip netns add failed: {made.stderr.strip()}"
    try:
        rules = subprocess.run(
            ["ip", "netns", "exec", probe, "iptables", "-L", "INPUT", "-n"],
            capture_output=True,
            text=True,
        )
        if rules.returncode != 0:
            return f"iptables does not work inside a namespace: {rules.stderr.strip()}"
    finally:
        subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def _run(args: Sequence[str]) -> None:
    done = subprocess.run(list(args), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {done.stderr.strip() or done.returncode}")


class Namespaces:
    """The hub and one namespace per node, made on construction; :meth:`remove` undoes it all,
    and is safe to call twice or after a half-made set-up."""

    def __init__(self, nodes: int):
        tag = uuid.uuid4().hex[:6]
        self.hub = f"{PREFIX}{tag}h"
        self.nodes = [f"{PREFIX}{tag}n{i}" for i in range(nodes)]
        self._made: list[str] = []
        try:
            self._make()
        except BaseException:
            self.remove()
            raise

    def _add(self, name: str) -> None:
        _run(["ip", "netns", "add", name])
        self._made.append(name)
        _run(["ip", "-n", name, "link", "set", "lo", "up"])

    def _make(self) -> None:
        self._add(self.hub)
        _run(["ip", "-n", self.hub, "link", "add", "br0", "type", "bridge"])
        _run(["ip", "-n", self.hub, "addr", "add", f"{HUB_ADDRESS}/{PREFIX_LENGTH}", "dev", "br0"])
        _run(["ip", "-n", self.hub, "link", "set", "br0", "up"])
        for i, ns in enumerate(self.nodes):
            self._add(ns)
            veth = f"v{i}"
            _run(
                ["ip", "-n", self.hub, "link", "add", veth, "type", "veth"]
                + ["peer", "name", "eth0", "netns", ns]
            )
            _run(["ip", "-n", self.hub, "link", "set", veth, "master", "br0"])
            _run(["ip", "-n", self.hub, "link", "set", veth, "up"])
            _run(
                ["ip", "-n", ns, "addr", "add", f"{node_address(i)}/{PREFIX_LENGTH}", "dev", "eth0"]
            )
            _run(["ip", "-n", ns, "link", "set", "eth0", "up"])

    def in_hub(self) -> list[str]:
        """The prefix that runs a command in the hub (where the clients are)."""
        return ["ip", "netns", "exec", self.hub]

    def in_node(self, i: int) -> list[str]:
        return ["ip", "netns", "exec", self.nodes[i]]

    def cut_off(self, victim: int) -> None:
        """Drops every packet between node ``victim`` and the other nodes, inside its namespace;
        the hub's (the clients') still pass."""
        ns = self.nodes[victim]
        for j in range(len(self.nodes)):
            if j != victim:
                peer = node_address(j)
                _run(
                    ["ip", "netns", "exec", ns, "iptables", "-A", "INPUT", "-s", peer, "-j", "DROP"]
                )
                _run(
                    [
                        "ip",
                        "netns",
                        "exec",
                        ns,
                        "iptables",
                        "-A",
                        "OUTPUT",
                        "-d",
                        peer,
                        "-j",
                        "DROP",
                    ]
                )

    def heal(self, victim: int) -> None:
        """Removes the victim's rules (its namespace has no others)."""
        ns = self.nodes[victim]
        _run(["ip", "netns", "exec", ns, "iptables", "-F", "INPUT"])
        _run(["ip", "netns", "exec", ns, "iptables", "-F", "OUTPUT"])

    def remove(self) -> None:
        """Deletes every namespace made (their veths and the bridge go with them). The processes
        inside must have been stopped first, or a namespace lives on, nameless, until they exit."""
        while self._made:
            subprocess.run(["ip", "netns", "del", self._made.pop()], capture_output=True)
