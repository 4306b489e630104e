"""The nemesis: faults against a replicated dbf0 cluster (or Redis Cluster), checked.

Runs --campaigns campaigns of --seconds seconds. Each starts a fresh cluster (dbf0: one shard of
three nodes, each shard a Raft group, --fsync always; Redis: 3 masters + 3 replicas, appendfsync
always, cluster-node-timeout 1000), runs `dbf0 nemesis-client` against it (4 clients reading and
writing 16 keys, every write a value of its own, every operation in a history) and meanwhile
injects faults one after another, mixing --faults:

    kill       SIGKILL a shard's leader; restart it 3 s later
    pause      SIGSTOP a leader for longer than two election timeouts, then SIGCONT
    partition  cut a leader off from its peers while its clients still reach it (iptables inside
               the node's own network namespace), then heal it
    kill-all   SIGKILL every node at once, restart them all
    wipe       restart a replica with an empty data directory (not in the default mix: dbf0
               refuses to start by design, and the fault records that)

With --network netns (the default when root, `ip` and iptables are here) each node runs in a
network namespace of its own, bridged to one more where the clients run; every namespace is made
by the run and removed after it, also on error or ^C. Elsewhere the nodes run on 127.0.0.1 and
partitions are skipped, saying why.

Each campaign appends one JSON line to --out/campaigns.jsonl: its faults (when, which node, how long
writes to the keys it hit went unacknowledged: recovery_ms), the operations, acknowledged writes
lost (by the final reads), stale reads, dbf0 check's verdict on the history, and acknowledged
writes and answered reads per 100 ms (the timeline, with the faults' times beside it). Histories
and node logs are kept for campaigns that lost a write or were not linearizable (--keep-histories:
all). The end prints medians; --timeline draws each campaign's timeline and the recovery times
(nemesis_figures) as PNG files beside the lines.

    scripts/nemesis.py                                      # 3 campaigns of 30 s against dbf0
    scripts/nemesis.py --campaigns 100 --seconds 30         # the long run, unattended
    scripts/nemesis.py --system redis --campaigns 5         # the same against Redis Cluster

Needs target/dbf0.jar (./build.sh) and a JDK 21+; --system redis needs redis-server and
redis-cli (scripts/install-test-tools.sh installs them).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import signal
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tqdm import tqdm

from . import nemesis_figures, nemesis_net
from .nemesis_campaign import Settings, run_campaign
from .nemesis_faults import DEFAULT_KINDS, KINDS, NEEDS_NAMESPACES
from .nemesis_history import median
from .sweep_cli import REPO, find_local_java

DEFAULT_PORTS = {"dbf0": 7400, "redis": 7420}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="nemesis.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--system", choices=("dbf0", "redis"), default="dbf0")
    p.add_argument("--campaigns", type=int, default=3, help="how many (default 3)")
    p.add_argument("--seconds", type=float, default=30, help="each campaign's length (default 30)")
    p.add_argument(
        "--faults",
        default=",".join(DEFAULT_KINDS),
        help=f"comma-separated, from {', '.join(KINDS)} (default {','.join(DEFAULT_KINDS)})",
    )
    p.add_argument(
        "--network",
        choices=("auto", "netns", "loopback"),
        default="auto",
        help="netns: a namespace per node (root); loopback: 127.0.0.1, no partitions;"
        " auto: netns when possible (default)",
    )
    p.add_argument("--clients", type=int, default=4, help="client threads (default 4)")
    p.add_argument("--keys", type=int, default=16, help="keys they share (default 16)")
    p.add_argument("--shards", type=int, default=1, help="dbf0 shards of 3 nodes (default 1)")
    p.add_argument(
        "--election-timeout-ms",
        type=int,
        default=300,
        help="dbf0's --election-timeout: a follower stands after 1 to 2 times it (default 300)",
    )
    p.add_argument(
        "--reply-timeout-ms",
        type=int,
        default=500,
        help="the clients' --reply-timeout, a Redis client's socket timeout (default 500)",
    )
    p.add_argument("--port", type=int, help="first port (default 7400 dbf0, 7420 Redis)")
    p.add_argument("--seed", type=int, help="seed of the first campaign (default: random)")
    p.add_argument("--out", type=Path, help="results folder (default benchmarks/results/nemesis/…)")
    p.add_argument("--keep-histories", action="store_true", help="keep every history and log")
    p.add_argument(
        "--timeline", action="store_true", help="draw each campaign's ops per 100 ms (PNG in --out)"
    )
    p.add_argument("--jar", type=Path, default=REPO / "target" / "dbf0.jar")
    p.add_argument("--java", help="java to run (default: the JDK 21+ build.sh finds)")
    return p


def choose_network(wanted: str) -> tuple[str, str | None]:
    """The network to use and, when namespaces cannot be had, why."""
    if wanted == "loopback":
        return "loopback", "--network loopback"
    reason = nemesis_net.unavailable()
    if reason is None:
        return "netns", None
    if wanted == "netns":
        raise SystemExit(f"nemesis.py: error: --network netns: {reason}")
    return "loopback", reason


def summary(results: list[dict[str, Any]]) -> str:
    """The plain summary: totals, verdicts, medians of throughput and of recovery per fault."""
    if not results:
        return "no campaign finished"
    verdicts: dict[str, int] = {}
    for r in results:
        verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
    lines = [
        f"{len(results)} campaigns of {results[0]['system']}:"
        f" {sum(r['ops']['ok_writes'] for r in results)} writes acknowledged,"
        f" {sum(r['lost_writes'] for r in results)} lost,"
        f" {sum(r['stale_reads'] for r in results)} stale reads;"
        f" check: {', '.join(f'{n} {v}' for v, n in sorted(verdicts.items()))}",
        f"  median ops/s {median(r['ops_per_sec'] for r in results)}",
    ]
    kinds = sorted({f["kind"] for r in results for f in r["faults"]})
    for k in kinds:
        rec = [f["recovery_ms"] for r in results for f in r["faults"] if f["kind"] == k]
        m = median(rec)
        lines.append(
            f"  {k}: {len(rec)} faults, median longest wait for an acknowledged write"
            f" {'-' if m is None else f'{m:.0f} ms'}, longest {max((x or 0) for x in rec)} ms"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    kinds = [k.strip() for k in args.faults.split(",") if k.strip()]
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown or not kinds:
        print(
            f"nemesis.py: error: --faults: unknown {unknown or 'empty'}; from {KINDS}",
            file=sys.stderr,
        )
        return 2
    if args.campaigns < 1 or args.seconds < 10:
        print("nemesis.py: error: --campaigns must be 1+ and --seconds 10+", file=sys.stderr)
        return 2
    if not args.jar.is_file():
        print(
            f"nemesis.py: error: {args.jar} is missing; build it with ./build.sh", file=sys.stderr
        )
        return 2
    if args.system == "redis" and not (shutil.which("redis-server") and shutil.which("redis-cli")):
        print("nemesis.py: error: --system redis needs redis-server and redis-cli"
              " (scripts/install-test-tools.sh)", file=sys.stderr)  # fmt: skip
        return 2
    network, why = choose_network(args.network)
    if why and NEEDS_NAMESPACES & set(kinds):
        print(f"nemesis.py: partitions skipped: {why}", file=sys.stderr)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    out = args.out or REPO / "benchmarks" / "results" / "nemesis" / f"{stamp}-{args.system}"
    settings = Settings(
        system=args.system,
        seconds=args.seconds,
        kinds=kinds,
        java=args.java or find_local_java(),
        jar=args.jar,
        out=out,
        network=network,
        port=args.port or DEFAULT_PORTS[args.system],
        clients=args.clients,
        keys=args.keys,
        shards=args.shards,
        election_timeout_ms=args.election_timeout_ms,
        reply_timeout_ms=args.reply_timeout_ms,
        keep_histories=args.keep_histories,
    )
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)

    def stop(signum, frame):  # SIGTERM: clean up as ^C does
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    out.mkdir(parents=True, exist_ok=True)
    results = []
    failures = 0
    print(f"nemesis.py: writing {out / 'campaigns.jsonl'}", file=sys.stderr)
    with (out / "campaigns.jsonl").open("a") as sink:
        bar = tqdm(range(args.campaigns), desc=args.system, unit="campaign", file=sys.stderr)
        for i in bar:
            try:
                r = run_campaign(settings, i, seed + i)
            except KeyboardInterrupt:
                bar.close()
                print("nemesis.py: interrupted; everything started was stopped", file=sys.stderr)
                print(summary(results))
                return 130
            except Exception as e:  # one campaign's failure is recorded; the run goes on
                failures += 1
                r = {"system": args.system, "campaign": i, "seed": seed + i, "error": str(e)}
                sink.write(json.dumps(r) + "\n")
                sink.flush()
                tqdm.write(f"nemesis.py: campaign {i} failed: {e}", file=sys.stderr)
                continue
            sink.write(json.dumps(r) + "\n")
            sink.flush()
            results.append(r)
            if args.timeline:
                nemesis_figures.save(nemesis_figures.timeline(r), out, f"{r['name']}-timeline")
            bar.set_postfix(lost=sum(x["lost_writes"] for x in results), verdict=r["verdict"])
    print(summary(results))
    if args.timeline and (fig := nemesis_figures.recovery(results)) is not None:
        print(f"figures: {nemesis_figures.save(fig, out, 'recovery')} and one timeline a campaign")
    if failures:
        print(f"{failures} campaigns failed to run (their lines say why)")
    bad = any(r["lost_writes"] or r["verdict"] == "not linearizable" for r in results)
    return 1 if bad and args.system == "dbf0" else 0
