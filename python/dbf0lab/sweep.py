"""Runs a grid of Benchmark trials and appends each result to a JSONL file as it finishes.

- Trials run in a shuffled order fixed by a seed, one fresh JVM each, under a time limit.
- A trial that fails or times out is recorded as ``[spec, {"error": ...}]`` and the sweep goes on.
- Trials already in the file are skipped, so running the same command again resumes.
- Ctrl-C (or SIGTERM) ends the running trials, records nothing for them, and returns.
- With several hosts, each runs one trial at a time, all hosts at once.
"""

from __future__ import annotations

import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tqdm import tqdm

from . import cluster, machine, outliers, results, tcp_counters, utilisation
from .bench_output import parse_bench_output
from .grid import Grid, benchmark_args, shuffled
from .hosts import SSH_EXIT_CONNECTION, Host, HostError, SshHost

JVM_OVERHEAD_SECONDS = 1.5  # start, warm-up and shutdown of one trial's JVM, for the estimate
SSH_OVERHEAD_SECONDS = 0.5  # one ssh connection per trial
HOST_RETIRE_AFTER = 3  # consecutive connection failures before a host is given up
UTILISATION = "utilisation"  # the result's field: per node, medians and maxima of its /proc samples


def default_timeout(seconds: float) -> float:
    return 2 * seconds + 30


@dataclass
class Plan:
    grid: Grid
    out: Path
    todo: list[dict[str, Any]]  # in the order they will be handed out
    total: int
    already: int  # trials of this grid found in the file

    def estimated_seconds(self, hosts: Sequence[Host]) -> float:
        per = [s["seconds"] + JVM_OVERHEAD_SECONDS for s in self.todo]
        remote = all(isinstance(h, SshHost) for h in hosts)
        busy = sum(per) + (SSH_OVERHEAD_SECONDS * len(per) if remote else 0)
        return busy / max(1, len(hosts))


def make_plan(grid: Grid, out: Path, order_seed: int, retry_failed: bool) -> Plan:
    specs = grid.specs()
    done: set[str] = set()
    if out.exists():
        done = results.done_keys(results.read(out), retry_failed)
    todo = [s for s in shuffled(specs, order_seed) if results.spec_key(s) not in done]
    return Plan(grid, out, todo, total=len(specs), already=len(specs) - len(todo))


def format_seconds(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, s = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {s:02d} s"
    hours, m = divmod(minutes, 60)
    return f"{hours} h {m:02d} min"


def describe_spec(spec: dict[str, Any]) -> str:
    text = (
        f"S{spec['server_threads']} C{spec['client_threads']} {spec['map_type']} "
        f"key {spec['key_length']} value {spec['value_length']} set {spec['set_frac']:g} "
        f"{spec['seconds']:g}s"
    )
    extra = [f"{k}={v}" for k, v in spec.items() if k not in DESCRIBED]
    return " ".join([text, *extra])


DESCRIBED = {
    "server_threads",
    "client_threads",
    "map_type",
    "key_length",
    "value_length",
    "set_frac",
    "seconds",
    "trial_index",
}


@dataclass
class Options:
    java_opts: Sequence[str] = ()
    timeout: float | None = None  # per trial; None: default_timeout(seconds)
    progress: bool | None = None  # None: a bar when stderr is a terminal, else one line a trial
    utilisation: bool = True  # sample each node's /proc once a second during every trial
    data_root: str | None = (
        None  # where trials with a log get their fresh data dirs (None: temp dir)
    )
    log: Callable[[str], None] = field(
        default=lambda text: print(text, file=sys.stderr, flush=True)
    )


@dataclass
class Outcome:
    ran: int = 0
    failed: int = 0
    warned: int = 0  # trials whose result carries the Benchmark's "warnings"
    stalled: int = 0  # trials that look stalled for no reason the TCP counters show (outliers.py)
    labels: list[outliers.Label] = field(default_factory=list)  # what explained slow operations
    watched: bool = False  # whether any host's TCP counters could be read
    # per configuration, (ops/s, max_us) of this run's trials so far: a new trial's twins
    twins: dict[str, list[tuple[float, float | None]]] = field(default_factory=dict)
    interrupted: bool = False
    not_run: int = 0
    retired: list[str] = field(default_factory=list)


def _prepare_hosts(
    hosts: Sequence[Host], jar: Path, repo: Path, log
) -> list[tuple[Host, dict[str, Any]]]:
    """Copies the jar to every host and describes each, in parallel.

    Hosts that fail are left out."""
    jar_info = {"jar_sha256": machine.sha256_of(jar), **machine.git_commit(repo)}

    def one(host: Host):
        host.prepare(jar, jar_info["jar_sha256"])
        if isinstance(host, SshHost):
            log(f"{host.label}: " + ("jar copied" if host.copied_jar else "jar already there"))
        return host, host.probe(jar_info)

    ready = []
    with ThreadPoolExecutor(max_workers=len(hosts)) as pool:
        futures = [pool.submit(one, h) for h in hosts]
        try:
            for future in futures:
                try:
                    ready.append(future.result())
                except HostError as e:
                    log(f"left out: {e}")
        except KeyboardInterrupt:
            for h in hosts:  # ends the copies and probes under way before the pool waits for them
                h.cancel()
            raise
    return ready


def _record_machines(
    out: results.Appender, described: list[dict[str, Any]], existing: list[dict[str, Any]]
):
    """Appends each host's description unless the file's last one for that host says the same."""

    def same(a, b):
        drop = {"recorded_at"}
        return {k: v for k, v in a.items() if k not in drop} == {
            k: v for k, v in b.items() if k not in drop
        }

    latest = {m.get("host"): m for m in existing}
    for info in described:
        if info["host"] not in latest or not same(latest[info["host"]], info):
            out.append({**info, "recorded_at": now()})


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def run(plan: Plan, hosts: Sequence[Host], jar: Path, repo: Path, options: Options) -> Outcome:
    """Runs the plan's trials on the hosts; returns when all ran, or on Ctrl-C / SIGTERM."""
    log = options.log
    outcome = Outcome()
    if not plan.todo:
        log(f"all {plan.total} trials are already in {plan.out}; nothing to run")
        return outcome
    existing = results.read(plan.out).machines if plan.out.exists() else []
    previous_sigterm = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        with results.Appender(plan.out) as out:
            ready = _prepare_hosts(hosts, jar, repo, log)
            if not ready:
                raise HostError("no host can run trials")
            _record_machines(out, [info for _, info in ready], existing)
            _run_trials(plan, [h for h, _ in ready], options, out, outcome)
    except KeyboardInterrupt:  # before the first trial started
        outcome.interrupted = True
        outcome.not_run = len(plan.todo)
    finally:
        signal.signal(signal.SIGTERM, previous_sigterm)
    return outcome


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def _run_trials(
    plan: Plan, hosts: list[Host], options: Options, out: results.Appender, outcome: Outcome
):
    todo: queue.Queue[dict[str, Any]] = queue.Queue()
    for spec in plan.todo:
        todo.put(spec)
    finished: queue.Queue[tuple[dict[str, Any], dict[str, Any]] | tuple[str, str]] = queue.Queue()
    stop = threading.Event()

    def worker(host: Host) -> None:
        connection_failures = 0
        while not stop.is_set():
            try:
                spec = todo.get_nowait()
            except queue.Empty:
                return
            started = time.monotonic()
            started_at = now()
            limit = options.timeout or default_timeout(spec["seconds"])
            before = watch.read(host)
            sampler = _sampler(host, limit) if options.utilisation else None
            try:
                done = host.run_bench(
                    options.java_opts, benchmark_args(spec), limit, options.data_root
                )
            finally:
                samples = sampler.stop() if sampler else []
            after = watch.read(host) if before and not done.cancelled else None
            if done.cancelled or stop.is_set():
                return
            result = parse_bench_output(done)
            result.update(
                host=host.label,
                started_at=started_at,
                wall_seconds=round(time.monotonic() - started, 3),
            )
            if sampler and not results.is_failure(result):
                # the bench JVM runs the clients and, unless it connects elsewhere, the server too
                role = "client" if spec.get("connect") else "client+server"
                result[UTILISATION] = {host.label: utilisation.summarize(samples, role)}
            tcp = tcp_counters.delta(before, after)
            if tcp and not results.is_failure(result):
                result[tcp_counters.TCP] = tcp
            finished.put((spec, result))
            if isinstance(host, SshHost) and done.exit_code == SSH_EXIT_CONNECTION:
                connection_failures += 1
                if connection_failures >= HOST_RETIRE_AFTER:
                    finished.put(("retired", host.label))
                    return
            else:
                connection_failures = 0

    bar = tqdm(
        total=len(plan.todo),
        unit="trial",
        desc="sweep",
        dynamic_ncols=True,
        smoothing=0.1,
        disable=not _want_bar(options.progress),
    )
    watch = tcp_counters.Watch(lambda text: bar.write(text, file=sys.stderr))
    threads = [
        threading.Thread(target=worker, args=(h,), name=f"host {h.label}", daemon=True)
        for h in hosts
    ]
    for t in threads:
        t.start()
    try:
        while any(t.is_alive() for t in threads) or not finished.empty():
            try:
                item = finished.get(timeout=0.2)
            except queue.Empty:
                continue
            if item[0] == "retired":
                outcome.retired.append(item[1])
                bar.write(
                    f"giving up on {item[1]} after {HOST_RETIRE_AFTER} connection failures in a row"
                )
                continue
            spec, result = item
            out.trial(spec, result)
            outcome.ran += 1
            _report(bar, outcome, spec, result, len(plan.todo))
    except KeyboardInterrupt:
        outcome.interrupted = True
        stop.set()
        for h in hosts:
            h.cancel()
        for t in threads:
            t.join(timeout=60)
    finally:
        bar.close()
    outcome.watched = watch.read_any
    outcome.not_run = len(plan.todo) - outcome.ran


def _sampler(host: Host, limit: float):
    """Samples the node a trial runs on: this machine's /proc directly, a remote one's over SSH."""
    if isinstance(host, SshHost):
        return utilisation.RemoteSampler(host.ssh, limit + host.local_grace()).start()
    return utilisation.Sampler().start()


def _want_bar(progress: bool | None) -> bool:
    return sys.stderr.isatty() if progress is None else progress


def _config_key(spec: dict[str, Any]) -> str:
    return results.spec_key({k: v for k, v in spec.items() if k != "trial_index"})


def _report(
    bar: tqdm, outcome: Outcome, spec: dict[str, Any], result: dict[str, Any], total: int
) -> None:
    warnings = list(result.get("warnings") or [])
    if warnings:
        outcome.warned += 1
    labelled = False
    if results.is_failure(result):
        outcome.failed += 1
        what = f"FAILED ({result['error']})"
    else:
        ops = results.trial_ops_per_sec(spec, result)
        what = f"{ops:,.0f} ops/s"
        twins = outcome.twins.setdefault(_config_key(spec), [])
        client_time = outliers.client_seconds(
            spec["client_threads"],
            result.get("seconds") or spec["seconds"],
            result.get("client_hosts", 1),
        )
        verdict = outliers.judge(
            ops, result.get("max_us"), twins, result.get(tcp_counters.TCP), client_time
        )
        twins.append((ops, result.get("max_us")))
        if verdict.label:
            labelled = True
            outcome.labels.append(verdict.label)
            what += f"; {verdict.label}" + ("" if verdict.left_out else ", kept")
        if verdict.left_out:
            outcome.stalled += 1
            warnings.append(f"looks stalled, for no reason we could see: {verdict.stall}")
    if warnings:
        what += "; warning: " + "; ".join(warnings)
    line = (
        f"[{outcome.ran}/{total}] {describe_spec(spec)} #{spec['trial_index']} "
        f"on {result['host']}: {what}"
    )
    if bar.disable or results.is_failure(result) or warnings or labelled:
        bar.write(line, file=sys.stderr)
    if not bar.disable:
        bar.set_postfix_str(what if len(what) < 30 else "failed", refresh=False)
        bar.update(1)


# Trials with roles (--servers, --clients): one trial at a time over every host --------------------

CLUSTER_HOST = "cluster"  # the trial's "host" field: it ran on all of them


def estimated_cluster_seconds(plan: Plan, remote: bool) -> float:
    """Serial trials: each trial's duration and warm-up, a server JVM start, a client JVM."""
    per = [
        s["seconds"]
        + s.get("warmup", 0)
        + 2 * JVM_OVERHEAD_SECONDS
        + (2 * SSH_OVERHEAD_SECONDS if remote else 0)
        for s in plan.todo
    ]
    return sum(per)


def run_cluster(plan: Plan, layout, jar: Path, repo: Path, options: Options) -> Outcome:
    """Runs the plan's trials one after the other, each on all the layout's hosts (cluster.py).
    Returns when all ran, or on Ctrl-C / SIGTERM, with every server stopped."""
    log = options.log
    outcome = Outcome()
    if not plan.todo:
        log(f"all {plan.total} trials are already in {plan.out}; nothing to run")
        return outcome
    existing = results.read(plan.out).machines if plan.out.exists() else []
    previous_sigterm = signal.signal(signal.SIGTERM, _raise_interrupt)
    running = cluster.Running()
    hosts = layout.hosts()
    watch = tcp_counters.Watch(log)
    worker: threading.Thread | None = None
    try:
        with results.Appender(plan.out) as out:
            ready = _prepare_hosts(hosts, jar, repo, log)
            lost = {h.label for h in hosts} - {h.label for h, _ in ready}
            if lost:  # a trial needs every server and client host it was planned for
                raise HostError(f"cannot run trials without {', '.join(sorted(lost))}")
            _record_machines(out, [info for _, info in ready], existing)
            bar = tqdm(
                total=len(plan.todo),
                unit="trial",
                desc="sweep",
                dynamic_ncols=True,
                smoothing=0.1,
                disable=not _want_bar(options.progress),
            )
            watch.log = lambda text: bar.write(text, file=sys.stderr)
            try:
                for spec in plan.todo:
                    finished: queue.Queue[dict[str, Any]] = queue.Queue()
                    started, started_at = time.monotonic(), now()
                    limit = options.timeout or default_timeout(
                        spec["seconds"] + spec.get("warmup", 0)
                    )

                    def trial(spec=spec, limit=limit, finished=finished):
                        try:
                            before = watch.read_all(hosts)
                            result = cluster.run_trial(
                                spec,
                                benchmark_args(spec),
                                layout,
                                options.java_opts,
                                limit,
                                running,
                                options.utilisation,
                                cluster.local_or_remote_sampler,
                                lambda text: bar.write(text, file=sys.stderr),
                            )
                            if not results.is_failure(result):
                                # the host-wide counters of every server and client host, added up
                                after = watch.read_all(hosts)
                                tcp = tcp_counters.total(
                                    [tcp_counters.delta(b, a) for b, a in zip(before, after)]
                                )
                                if tcp:
                                    result[tcp_counters.TCP] = tcp
                            finished.put(result)
                        except Exception as e:  # recorded as the trial's failure; the sweep goes on
                            finished.put({"error": f"{type(e).__name__}: {e}"})

                    worker = threading.Thread(target=trial, name="cluster trial", daemon=True)
                    worker.start()
                    while True:  # the main thread waits here, where Ctrl-C can reach it
                        try:
                            result = finished.get(timeout=0.2)
                            break
                        except queue.Empty:
                            continue
                    worker.join()
                    if result.get("cancelled"):
                        break
                    result.update(
                        host=CLUSTER_HOST,
                        started_at=started_at,
                        wall_seconds=round(time.monotonic() - started, 3),
                    )
                    out.trial(spec, result)
                    outcome.ran += 1
                    _report(bar, outcome, spec, result, len(plan.todo))
            finally:
                bar.close()
    except KeyboardInterrupt:
        outcome.interrupted = True
        running.cancelled.set()
        for h in hosts:
            h.cancel()
        running.stop_servers()
        if worker is not None:
            worker.join(timeout=60)
    finally:
        running.cancelled.set()
        running.stop_servers()  # nothing should be left; this makes sure of it on any error
        signal.signal(signal.SIGTERM, previous_sigterm)
    outcome.watched = watch.read_any
    outcome.not_run = len(plan.todo) - outcome.ran
    return outcome
