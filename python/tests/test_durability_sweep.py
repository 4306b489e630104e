"""The write-ahead-log axis of the sweep: --fsync, the durability preset, the fresh data directory
every logged trial gets (locally and in the shell script a remote host runs), and one real trial."""

import json
import subprocess
from pathlib import Path

import pytest

from conftest import run_script
from dbf0lab import grid, machine, results
from dbf0lab.grid import DATA_DIR, PRESETS, benchmark_args
from dbf0lab.hosts import LocalHost, SshHost, SshSettings

BASE = {
    "server_threads": 2,
    "client_threads": 16,
    "map_type": "concurrent",
    "key_length": 16,
    "value_length": 64,
    "set_frac": 0.9,
    "seconds": 3,
}


def test_durability_preset_crosses_modes_models_workloads_and_every_policy():
    g = PRESETS["durability"].grid
    values = g.axis_values()
    assert values["fsync"] == ["none", "never", "interval", "always"]
    assert values["client_mode"] == ["persistent", "pipelined"] and values["set_frac"] == [0.9, 0.5]
    assert values["server_model"] == ["virtual", "nio"]
    assert len(g.specs()) == 4 * 2 * 2 * 2 * g.trials and g.trials >= 2
    assert grid.grid_problems(g) == []
    # shuffled like every preset: the policies are not run in blocks
    order = [s["fsync"] for s in grid.shuffled(g.specs(), 1)]
    assert order[:8] != sorted(order[:8])


def test_a_policy_becomes_a_fresh_data_dir_and_no_rewrites_and_none_adds_nothing():
    assert benchmark_args({**BASE, "fsync": "none"}) == benchmark_args(BASE)
    args = benchmark_args({**BASE, "fsync": "interval"})
    assert args[7:] == ["--data-dir", DATA_DIR, "--fsync", "interval", "--rewrite-growth", "0"]
    assert grid.needs_data_dir(args) and not grid.needs_data_dir(benchmark_args(BASE))


def test_an_unknown_policy_is_a_problem_named_with_the_choices():
    assert grid.problems({**BASE, "fsync": "sometimes"}) == [
        "fsync must be one of none, never, interval, always, got 'sometimes'"
    ]


def fake_java(tmp_path: Path) -> Path:
    """A 'java' that, as bench, records the --data-dir it was given and whether it existed then."""
    seen = tmp_path / "seen.txt"
    script = tmp_path / "java"
    script.write_text(
        '#!/bin/sh\nwhile [ $# -gt 0 ]; do\n  if [ "$1" = --data-dir ]; then\n'
        f'    if [ -d "$2" ]; then echo "exists $2" >> {seen}; '
        f'else echo "missing $2" >> {seen}; fi\n'
        '  fi\n  shift\ndone\necho \'{"set": 1, "get": 0}\'\n'
    )
    script.chmod(0o755)
    return script


def test_a_local_trial_gets_its_own_directory_under_the_root_and_it_is_removed(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    host = LocalHost(str(fake_java(tmp_path)))
    host.jar = tmp_path / "dbf0.jar"
    args = benchmark_args({**BASE, "fsync": "always"})
    for _ in range(2):
        done = host.run_bench([], args, 30, str(root))
        assert done.exit_code == 0, done.stderr
    seen = (tmp_path / "seen.txt").read_text().split("\n")[:2]
    assert all(line.startswith(f"exists {root}/dbf0-wal-") for line in seen)
    assert seen[0] != seen[1], "each trial has a fresh directory"
    assert list(root.iterdir()) == [], "and it is removed afterwards"


def test_the_remote_script_makes_and_removes_the_directory(tmp_path):
    # the script an SSH host runs, run here by sh: the same text, without the ssh
    root = tmp_path / "root"
    root.mkdir()
    host = SshHost(
        "nobody@example.invalid",
        SshSettings(remote_java=str(fake_java(tmp_path)), remote_dir=str(tmp_path)),
    )
    host.jar = str(tmp_path / "dbf0.jar")
    argv = host.bench_command([], benchmark_args({**BASE, "fsync": "never"}), 30, "run1", str(root))
    script = argv[-1]
    assert DATA_DIR not in script
    done = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["set"] == 1
    assert (tmp_path / "seen.txt").read_text().startswith(f"exists {root}/dbf0-wal-")
    assert list(root.iterdir()) == []
    # without a root, the host's temporary directory
    plain = host.bench_command([], benchmark_args({**BASE, "fsync": "never"}), 30, "run2")[-1]
    assert '"${TMPDIR:-/tmp}"/dbf0-wal-XXXXXX' in plain


def test_filesystem_of_picks_the_longest_mount_point(tmp_path):
    mounts = tmp_path / "mounts"
    mounts.write_text(
        "/dev/vda / ext4 rw 0 0\ntmpfs /tmp tmpfs rw 0 0\n/dev/vdb /tmpdata xfs rw 0 0\n"
    )
    assert machine.filesystem_of("/tmp/x/y", mounts) == "tmpfs on tmpfs"
    assert machine.filesystem_of("/tmpdata", mounts) == "xfs on /dev/vdb"
    assert machine.filesystem_of("/home", mounts) == "ext4 on /dev/vda"
    assert machine.filesystem_of("/home", tmp_path / "absent") == "unknown file system"


def test_a_missing_data_root_is_refused(tmp_path):
    done = run_script(
        "run_benchmarks.py",
        "--preset",
        "durability",
        "--data-root",
        str(tmp_path / "nope"),
        "--out",
        str(tmp_path / "r.jsonl"),
    )
    assert done.returncode != 0 and "is not a directory" in done.stderr


@pytest.mark.slow
def test_one_logged_trial_per_policy_records_the_logs_figures(tmp_path, jar):
    out = tmp_path / "r.jsonl"
    root = tmp_path / "root"
    root.mkdir()
    done = run_script(
        "run_benchmarks.py",
        "--preset",
        "durability",
        "--client-mode",
        "persistent",
        "--server-model",
        "virtual",
        "--set-frac",
        "0.9",
        "--client-threads",
        "4",
        "--duration",
        "1",
        "--warmup",
        "200ms",
        "--trials",
        "1",
        "--no-progress",
        "--data-root",
        str(root),
        "--out",
        str(out),
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    assert f"fresh under {root}" in done.stdout
    by_policy = {spec["fsync"]: result for spec, result in results.read(out).trials}
    assert set(by_policy) == {"none", "never", "interval", "always"}
    assert "fsync" not in by_policy["none"]
    for policy in ("never", "interval", "always"):
        assert by_policy[policy]["fsync"] == policy and by_policy[policy]["wal_records"] > 0
    assert by_policy["never"]["wal_fsyncs"] == 0
    assert by_policy["always"]["wal_records_per_fsync"] >= 1
    assert list(root.iterdir()) == []


def test_a_log_with_servers_by_role_is_refused(tmp_path):
    done = run_script(
        "run_benchmarks.py",
        "--preset",
        "durability",
        "--shards",
        "2",
        "--dry-run",
        "--out",
        str(tmp_path / "r.jsonl"),
    )
    assert done.returncode == 2
    assert "--fsync needs each trial's own server" in done.stderr
