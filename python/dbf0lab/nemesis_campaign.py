"""One nemesis campaign: a fresh cluster, the Java clients for D seconds, faults one after another
meanwhile, then the verdicts: dbf0 check on the history, lost writes, stale reads, recovery times
and the timeline (nemesis_history). Whatever happens (an error, ^C, SIGTERM), every process it
started is killed and every namespace and temporary directory it made is removed."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import nemesis_history as nh
from .nemesis_faults import NEEDS_NAMESPACES, FaultRecord, Nemesis, Timing, fits, schedule
from .nemesis_net import Namespaces, node_address
from .nemesis_nodes import Cluster, Dbf0Cluster, NodeError, RedisCluster

CHECK_TIME_LIMIT = "120s"
SETTLED_S = 0.3  # a fault waits until the leaders have not changed for this long...
SETTLE_LIMIT_S = 10.0  # ...but no longer than this


@dataclass
class Settings:
    system: str  # dbf0 or redis
    seconds: float
    kinds: list[str]
    java: str
    jar: Path
    out: Path  # where histories and node logs go
    network: str  # netns or loopback
    port: int
    clients: int = 4
    keys: int = 16
    replicas: int = 2  # dbf0: copies besides the leader's; Redis always has 3 masters + 3 replicas
    shards: int = 1  # dbf0
    election_timeout_ms: int = 300
    reply_timeout_ms: int = 500  # the clients' socket timeout: a paused or cut-off node costs this
    port_offset: int = 50  # Raft port (dbf0) or cluster bus port (Redis) = port + this
    warmup_s: float = 3.0
    keep_histories: bool = False
    start_timeout_s: float = 120.0


def _node_count(s: Settings) -> int:
    return 6 if s.system == "redis" else s.shards * (s.replicas + 1)


def _cluster(s: Settings, root: Path, ns: Namespaces | None) -> Cluster:
    n = _node_count(s)
    hosts = [node_address(i) for i in range(n)] if ns else ["127.0.0.1"] * n
    prefixes = [ns.in_node(i) for i in range(n)] if ns else [[] for _ in range(n)]
    if s.system == "redis":
        return RedisCluster(hosts, s.port, root, prefixes, ns.in_hub() if ns else [], s.port_offset)
    return Dbf0Cluster(
        s.java, s.jar, hosts, s.port, s.replicas, root, prefixes,
        s.election_timeout_ms, s.port_offset,
    )  # fmt: skip


def timing_for(s: Settings) -> Timing:
    election_s = (1000 if s.system == "redis" else s.election_timeout_ms) / 1000
    # A pause outlasts two election timeouts (a follower waits up to twice one) and a second more.
    return Timing(hold_s=3.0, pause_s=max(3.0, 2 * election_s + 1), settle_s=4.0)


def _client(s: Settings, cluster: Cluster, ns: Namespaces | None, history: Path, seed: int):
    command = (ns.in_hub() if ns else []) + [s.java, "-Xmx512m", "-jar", str(s.jar)]
    command += [
        "nemesis-client",
        *cluster.client_args(),
        "--duration",
        f"{int(s.seconds * 1000)}ms",
    ]
    command += ["--clients", str(s.clients), "--keys", str(s.keys), "--seed", str(seed)]
    command += ["--history", str(history), "--reply-timeout", f"{s.reply_timeout_ms}ms"]
    return subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )


def check(s: Settings, history: Path) -> dict[str, Any]:
    """dbf0 check's verdict on the history: linearizable (exit 0), not (1), unknown (3)."""
    done = subprocess.run(
        [s.java, "-jar", str(s.jar), "check", "--time-limit", CHECK_TIME_LIMIT, str(history)],
        capture_output=True,
        text=True,
    )
    verdict = {0: "linearizable", 1: "not linearizable", 3: "unknown"}.get(done.returncode, "error")
    first = (done.stdout.strip().splitlines() or [done.stderr.strip()])[0]
    return {"verdict": verdict, "check": first[:300]}


def _inject(
    s: Settings, nemesis: Nemesis, kinds: list[str], rng: random.Random, started: float
) -> list[FaultRecord]:
    """Faults one after another from the warm-up's end until the next would not fit."""
    faults: list[FaultRecord] = []
    time.sleep(s.warmup_s)
    for kind in schedule(kinds, rng, 1000):
        nemesis.cluster.settle(SETTLED_S, time.monotonic() + SETTLE_LIMIT_S)
        if time.monotonic() - started + fits(nemesis.timing, kind) > s.seconds - 1:
            break
        faults.append(nemesis.run(kind))
        time.sleep(nemesis.timing.settle_s)
    return faults


def run_campaign(s: Settings, index: int, seed: int) -> dict[str, Any]:
    """One campaign; returns its JSON line's object (raises NodeError if the cluster never came
    up)."""
    rng = random.Random(seed)
    skipped = {}
    kinds = list(s.kinds)
    if s.network != "netns":
        for k in NEEDS_NAMESPACES & set(kinds):
            skipped[k] = "needs network namespaces (--network netns)"
        kinds = [k for k in kinds if k not in NEEDS_NAMESPACES]
    if s.system == "redis" and "wipe" in kinds:
        skipped["wipe"] = "dbf0's Raft rule only"
        kinds.remove("wipe")
    s.out.mkdir(parents=True, exist_ok=True)
    name = f"{s.system}-{index:03d}"
    history = s.out / f"{name}.history.jsonl"
    root = Path(tempfile.mkdtemp(prefix=f"dbf0-nemesis-{name}-"))
    ns = cluster = client = None
    elections = None
    try:
        ns = Namespaces(_node_count(s)) if s.network == "netns" else None
        cluster = _cluster(s, root, ns)
        cluster.start_all(time.monotonic() + s.start_timeout_s)
        nemesis = Nemesis(cluster, ns, timing_for(s), rng)
        client = _client(s, cluster, ns, history, seed)
        first = client.stdout.readline()
        if '"started"' not in first:
            raise NodeError(f"nemesis-client did not start: {first}{client.stderr.read()[-500:]}")
        started = time.monotonic()
        faults = []
        try:
            faults = _inject(s, nemesis, kinds, rng, started)
        finally:
            nemesis.heal_everything()
        out, err = client.communicate(timeout=s.seconds + 120)
        if client.returncode != 0:
            raise NodeError(f"nemesis-client exited {client.returncode}: {err.strip()[-500:]}")
        done = json.loads(out.strip().splitlines()[-1])
    finally:
        if client is not None and client.poll() is None:
            client.kill()
            client.wait()
        if cluster is not None:
            logs = s.out / f"{name}-logs"
            logs.mkdir(exist_ok=True)
            cluster.close()
            elections = cluster.elections()
            for n in cluster.nodes:
                if n.log.exists():
                    shutil.copy(n.log, logs / n.log.name)
        if ns is not None:
            ns.remove()
        shutil.rmtree(root, ignore_errors=True)
    result = analyse(s, name, history, done, [f.to_json() for f in faults])
    result.update(seed=seed, network=s.network, skipped_faults=skipped, campaign=index)
    result["elections"] = elections
    if not s.keep_histories and result["verdict"] == "linearizable" and not result["lost_writes"]:
        history.unlink(missing_ok=True)
        shutil.rmtree(s.out / f"{name}-logs", ignore_errors=True)
        result["history"] = None
    return result


def analyse(
    s: Settings, name: str, history: Path, done: dict[str, Any], faults: list[dict[str, Any]]
) -> dict[str, Any]:
    h = nh.read_history(history)
    key_shards = done["key_shards"]
    started, stopped = done["started_ns"], done["stopped_ns"]
    recovery = nh.recovery(h, faults, key_shards, stopped)
    for f, r in zip(faults, recovery):
        f["recovery_ms"] = r
        f["at_s"] = round((f.pop("injected_ns") - started) / 1e9, 3)
        f["healed_s"] = round((f.pop("healed_ns") - started) / 1e9, 3)
        f["ready_s"] = round((f.pop("ready_ns") - started) / 1e9, 3)
    seconds = (stopped - started) / 1e9
    result: dict[str, Any] = {
        "system": s.system,
        "name": name,
        "seconds": round(seconds, 3),
        "faults": faults,
        "ops": {k: done[k] for k in ("ok_writes", "ok_reads", "pending_writes", "pending_reads")}
        | {"failed": done["failed"]},
        "ops_per_sec": round((done["ok_writes"] + done["ok_reads"]) / seconds, 1),
        "answers": done["answers"],
        "final_reads_complete": done["complete"],
    }
    lost = nh.lost_writes(h, done["final_values"])
    result["lost_writes"] = lost["lost_writes"] + done["once_lost"]
    result["lost_shared_keys"] = lost["lost_writes"]
    result["unexplained_final_values"] = lost["unexplained_final_values"]
    result["once_writes"] = {k: done[f"once_{k}"] for k in ("acknowledged", "lost", "unread")}
    result |= nh.stale_reads(h)
    result |= check(s, history)
    result["timeline"] = nh.timeline(h, started, stopped)
    result["history"] = str(history)
    return result
