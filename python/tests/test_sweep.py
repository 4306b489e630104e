"""The sweep on this machine, with real JVMs: tiny grids of one-second trials."""

import json
import re
import signal
import subprocess
import sys
import time

import pytest

from conftest import REPO, interruptible, run_script
from dbf0lab import grid, results

pytestmark = pytest.mark.slow

TINY = [
    "--preset",
    "quick",
    "--server-threads",
    "1",
    "--client-threads",
    "1,2",
    "--map-type",
    "concurrent",
    "--set-frac",
    "0.5",
    "--duration",
    "PT1S",
    "--no-progress",
]


def trials(path):
    return results.read(path).trials


def test_dry_run_prints_the_plan_and_runs_nothing(tmp_path):
    out = tmp_path / "r.jsonl"
    done = run_script("run_benchmarks.py", "--preset", "seed", "--dry-run", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "plan: 6480 trials = 648 configurations x 10 trials" in done.stdout
    assert "estimated time 20 h" in done.stdout and "dry run: nothing was run" in done.stdout
    assert not out.exists()


def test_help_explains_every_option():
    done = run_script("run_benchmarks.py", "--help")
    assert done.returncode == 0
    for option in [
        "--preset",
        "--server-threads",
        "--client-threads",
        "--map-type",
        "--key-length",
        "--value-length",
        "--set-frac",
        "--duration",
        "--thread-pairs",
        "--trials",
        "--out",
        "--dry-run",
        "--order-seed",
        "--timeout",
        "--retry-failed",
        "--hosts",
        "--hosts-file",
        "--identity",
        "--ssh-option",
        "--remote-java",
        "--remote-dir",
        "--servers",
        "--clients",
        "--server-bind",
        "--server-port",
        "--shards",
    ]:
        assert option in done.stdout
    for preset in ["seed", "quick", "mid", "anchors", "smoke", "scaling"]:
        assert f"  {preset} " in done.stdout
    # every text in full, whatever the wrapping: nothing cut off mid-sentence
    flat = " ".join(done.stdout.split())
    for preset in grid.PRESETS.values():
        assert " ".join(preset.help.split()) in flat
    for axis in grid.AXES:
        assert " ".join(axis.help.split()) in flat


def test_help_quotes_each_presets_dry_run_estimate(tmp_path):
    """--help's "(N trials, estimated time T ...)" per preset is what --dry-run prints for it."""
    flat = " ".join(run_script("run_benchmarks.py", "--help").stdout.split())
    for name in grid.PRESETS:
        done = run_script(
            "run_benchmarks.py",
            "--preset",
            name,
            "--dry-run",
            "--out",
            str(tmp_path / f"{name}.jsonl"),
        )
        assert done.returncode == 0, done.stderr
        trials = int(re.search(r"^plan: (\d+) trials", done.stdout, re.M).group(1))
        estimate = re.search(r"estimated time (.+)$", done.stdout, re.M).group(1)
        assert f"({trials:,} trials, estimated time {estimate} on one host)" in flat, (
            name,
            estimate,
        )


@pytest.mark.parametrize(
    "script", ["run_benchmarks.py", "analyze.py", "run_notebook.py", "compare_redis.py"]
)
def test_every_script_describes_itself_in_whole_sentences(script):
    done = run_script(script, "--help")
    assert done.returncode == 0, done.stderr
    description = done.stdout.split("\n\n")[1]  # after the usage lines
    assert description.rstrip().endswith((".", ":")), description


def test_sweep_records_results_and_machine_then_resumes(tmp_path, jar):
    out = tmp_path / "r.jsonl"
    done = run_script("run_benchmarks.py", *TINY, "--trials", "2", "--out", str(out))
    assert done.returncode == 0, done.stderr
    content = results.read(out)
    assert len(content.trials) == 4 and not content.bad_lines
    assert {(s["client_threads"], s["trial_index"]) for s, _ in content.trials} == {
        (1, 0),
        (1, 1),
        (2, 0),
        (2, 1),
    }
    for spec, result in content.trials:
        assert result["set"] + result["get"] > 0 and result["host"] == "local"
        assert spec["seconds"] == 1 and spec["set_frac"] == 0.5
    (machine,) = content.machines
    for key in [
        "cpu_model",
        "cores",
        "memory_bytes",
        "os",
        "java_version",
        "dbf0_version",
        "git_commit",
    ]:
        assert machine[key], key
    assert machine["dbf0_version"].startswith("dbf0 ")

    again = run_script("run_benchmarks.py", *TINY, "--trials", "2", "--out", str(out))
    assert again.returncode == 0 and "nothing to run" in again.stderr
    more = run_script("run_benchmarks.py", *TINY, "--trials", "3", "--out", str(out))
    assert "4 of these trials already there" in more.stdout
    content = results.read(out)
    assert (
        len(content.trials) == 6 and len(content.machines) == 1
    )  # the same machine is not recorded twice


def test_failed_and_timed_out_trials_are_recorded_and_the_sweep_goes_on(tmp_path, jar, java):
    out = tmp_path / "r.jsonl"
    # a java whose benchmark with 2 client threads exits 2 at once, as the Benchmark does on
    # bad arguments
    picky = tmp_path / "java"
    picky.write_text(
        "#!/bin/sh\n"
        'case " $* " in *" bench 1 2 "*) echo "Usage: dbf0 bench (refused)" >&2; exit 2;; esac\n'
        f'exec "{java}" "$@"\n'
    )
    picky.chmod(0o755)
    done = run_script(
        "run_benchmarks.py", *TINY, "--trials", "1", "--java", str(picky), "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert "done: 2 trials recorded" in done.stdout and ", 1 failed" in done.stdout
    by_clients = {s["client_threads"]: r for s, r in trials(out)}
    assert by_clients[2]["exit_code"] == 2 and by_clients[2]["error"] == "exit code 2"
    assert "Usage" in by_clients[2]["stderr"]
    assert by_clients[1]["get"] > 0

    slow = tmp_path / "slow.jsonl"
    done = run_script(
        "run_benchmarks.py",
        *TINY,
        "--client-threads",
        "1",
        "--duration",
        "PT20S",
        "--trials",
        "1",
        "--timeout",
        "2",
        "--out",
        str(slow),
    )
    assert done.returncode == 1, done.stderr  # its one trial failed: every trial failed
    assert "every trial failed (1)" in done.stderr
    ((spec, result),) = trials(slow)
    assert result["error"] == "timed out" and result["wall_seconds"] < 15


def test_ctrl_c_stops_cleanly_and_the_same_command_resumes(tmp_path, jar):
    out = tmp_path / "r.jsonl"
    argv = [
        sys.executable,
        str(REPO / "scripts" / "run_benchmarks.py"),
        *TINY,
        "--trials",
        "3",  # six trials of a second: they cannot all end before the interrupt arrives
        "--out",
        str(out),
    ]
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=interruptible
    )
    deadline = time.monotonic() + 60
    while not (out.exists() and len(trials(out)) >= 1):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "Run the same command again to resume" in stdout
    first = results.read(out)
    assert 1 <= len(first.trials) < 6 and not first.bad_lines
    assert all("error" not in r for _, r in first.trials)  # the interrupted trial is not recorded

    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    keys = [results.spec_key(s) for s, _ in trials(out)]
    assert len(keys) == 6 and len(set(keys)) == 6
    assert f"{len(first.trials)} of these trials already there" in done.stdout


def test_a_sweep_killed_with_sigkill_resumes(tmp_path, jar):
    out = tmp_path / "r.jsonl"
    argv = [
        sys.executable,
        str(REPO / "scripts" / "run_benchmarks.py"),
        *TINY,
        "--trials",
        "2",
        "--out",
        str(out),
    ]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (out.exists() and len(trials(out)) >= 1):
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.1)
    proc.kill()
    proc.wait(10)
    kept = len(trials(out))
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"{kept} of these trials already there" in done.stdout
    keys = [results.spec_key(s) for s, _ in trials(out)]
    assert len(keys) == 4 and len(set(keys)) == 4


def test_a_killed_sweep_resumes_past_a_half_written_line(tmp_path, jar):
    out = tmp_path / "r.jsonl"
    first = run_script(
        "run_benchmarks.py", *TINY, "--client-threads", "1", "--trials", "1", "--out", str(out)
    )
    assert first.returncode == 0, first.stderr
    with open(out, "a") as f:  # what SIGKILL in the middle of a write would leave
        f.write('[{"server_threads": 1, "client_thr')
    done = run_script("run_benchmarks.py", *TINY, "--trials", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    content = results.read(out)
    assert len(content.trials) == 2 and len(content.bad_lines) == 1
    assert json.loads(out.read_text().splitlines()[-1])[0]["client_threads"] == 2


@pytest.mark.parametrize(
    "axis, value, message",
    [
        ("--map-type", "nosuchmap", "unknown map type 'nosuchmap'"),
        ("--server-threads", "0", "server_threads must be at least 1, got 0"),
        ("--set-frac", "2", "set_frac must be between 0 and 1, got 2"),
    ],
)
def test_impossible_axis_values_are_refused_before_planning(tmp_path, axis, value, message):
    out = tmp_path / "r.jsonl"
    done = run_script("run_benchmarks.py", "--preset", "quick", axis, value, "--out", str(out))
    assert done.returncode == 2
    assert "the grid has values the benchmark cannot run" in done.stderr and message in done.stderr
    assert "plan:" not in done.stdout and not out.exists()


def test_durations_take_the_java_forms(tmp_path):
    done = run_script(
        "run_benchmarks.py",
        "--preset",
        "quick",
        "--duration",
        "2s",
        "--warmup",
        "500ms",
        "--dry-run",
        "--out",
        str(tmp_path / "r.jsonl"),
    )
    assert done.returncode == 0, done.stderr
    assert "seconds: 2\n" in done.stdout and "warmup: 0.5\n" in done.stdout
    assert "bench 1 1 " in done.stdout or " PT2S --warmup PT0.5S" in done.stdout


def test_a_sweep_whose_every_trial_failed_exits_1(tmp_path, jar, java):
    out = tmp_path / "r.jsonl"
    # a java that answers the sweep's probe of the host but whose every benchmark exits 1
    broken = tmp_path / "java"
    broken.write_text(
        f'#!/bin/sh\ncase " $* " in *" bench "*) echo "bench broke" >&2; exit 1;; esac\n'
        f'exec "{java}" "$@"\n'
    )
    broken.chmod(0o755)
    done = run_script(
        "run_benchmarks.py", *TINY, "--trials", "1", "--java", str(broken), "--out", str(out)
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "done: 2 trials recorded" in done.stdout and "2 failed" in done.stdout
    assert "every trial failed (2)" in done.stderr
    assert all(r["error"] == "exit code 1" for _, r in trials(out))


def test_a_sweep_reports_its_failed_count_even_when_none_failed_and_surfaces_warnings(
    tmp_path, jar
):
    out = tmp_path / "r.jsonl"
    # a pool of one thread with two persistent clients: the benchmark warns, the sweep says so
    done = run_script(
        "run_benchmarks.py",
        *TINY,
        "--client-threads",
        "2",
        "--client-mode",
        "persistent",
        "--trials",
        "1",
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    assert "done: 1 trial recorded" in done.stdout and ", 0 failed" in done.stdout
    assert "warning: the pool server has 1 thread for 2 persistent v2 connections" in done.stderr
    assert "1 trial carried a warning from the benchmark (see above)" in done.stdout
    # the summary in plain words (its second client waits for the pool's one thread all run long:
    # a second-long operation, which the host's counters may or may not explain)
    assert re.search(r"^1 trial ran; .* stalled for no reason we could see", done.stdout, re.M)
    ((_, result),) = trials(out)
    assert len(result["warnings"]) == 1
    analysed = run_script("analyze.py", str(out), "--no-figures")
    assert analysed.returncode == 0, analysed.stderr
    assert "Trials with a warning from the benchmark: 1" in analysed.stdout


def test_a_users_own_sweep_cannot_resume_into_the_committed_results(monkeypatch):
    """--preset mid on a host named vm once resumed into the committed mid-vm.jsonl and ran
    nothing."""
    from dbf0lab import sweep_cli

    monkeypatch.setattr(sweep_cli.socket, "gethostname", lambda: "vm")
    out = sweep_cli.default_out("mid", ["local"])
    assert out == REPO / "benchmarks" / "results" / "mid-vm.jsonl"
    tracked = subprocess.run(
        ["git", "ls-files", "benchmarks/results"], cwd=REPO, capture_output=True, text=True
    )
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    assert tracked.stdout == "", "nothing committed where user runs write"
    ignored = subprocess.run(["git", "check-ignore", "-q", str(out)], cwd=REPO)
    assert ignored.returncode == 0, "git ignores the users' own results"
    assert (REPO / "benchmarks" / "reference" / "mid-vm.jsonl").is_file()
