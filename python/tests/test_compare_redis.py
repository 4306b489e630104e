"""scripts/compare_redis.py against the real redis-server and dbf0, on a tiny run."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import run_script


def test_bad_test_name_is_refused_with_the_choices(tmp_path):
    result = run_script("compare_redis.py", "--tests", "c50,c7", "--out", str(tmp_path / "x.jsonl"))
    assert result.returncode == 2
    assert "unknown test(s) c7" in result.stderr and "c1000" in result.stderr


def test_one_pair_writes_rows_and_prints_ratios_and_retention(tmp_path, jar, java):
    if shutil.which("redis-server") is None or shutil.which("redis-benchmark") is None:
        pytest.skip(
            "redis-server/redis-benchmark are not installed: `sudo bash "
            "scripts/install-test-tools.sh` installs them"
        )
    out = tmp_path / "compare.jsonl"
    result = run_script(
        "compare_redis.py",
        "--pairs",
        "1",
        "--requests",
        "3000",
        "--warmup-requests",
        "0",
        "--tests",
        "c50,c1000",
        "--out",
        str(out),
        "--jar",
        str(jar),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    # two tests x two servers x SET and GET, each with a positive rate
    assert {(r["test"], r["server"], r["command"]) for r in rows} == {
        (t, s, c) for t in ("c50", "c1000") for s in ("redis", "dbf0") for c in ("SET", "GET")
    }
    assert all(r["rps"] > 0 for r in rows)
    assert {r["clients"] for r in rows if r["test"] == "c1000"} == {1000}
    assert "| c1000 | SET |" in result.stdout
    assert "SET with c1000 kept" in result.stdout and "on Redis and" in result.stdout


def test_aof_runs_fresh_logged_servers_and_reports_dbf0s_group_commit(tmp_path, jar, java):
    if shutil.which("redis-server") is None or shutil.which("redis-benchmark") is None:
        pytest.skip(
            "redis-server/redis-benchmark are not installed: `sudo bash "
            "scripts/install-test-tools.sh` installs them"
        )
    out = tmp_path / "aof.jsonl"
    root = tmp_path / "data"
    root.mkdir()
    result = run_script(
        "compare_redis.py",
        "--aof",
        "always,no",
        "--tests",
        "c50",
        "--pairs",
        "1",
        "--requests",
        "2000",
        # a short warm-up: the test reads the rows and the log's counts, not the speed
        "--warmup-requests",
        "2000",
        "--dbf0-model",
        "virtual",
        "--data-root",
        str(root),
        "--out",
        str(out),
        "--jar",
        str(jar),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {(r["policy"], r["dbf0_fsync"], r["server"], r["command"]) for r in rows} == {
        (p, d, s, "SET")
        for p, d in (("always", "always"), ("no", "never"))
        for s in ("redis", "dbf0")
    }
    assert all(r["rps"] > 0 for r in rows)
    always = next(r for r in rows if r["server"] == "dbf0" and r["policy"] == "always")
    # 500 SETs (a quarter of --requests under always), every one acknowledged after its fsync
    assert always["requests"] == 500 and always["log_records"] >= 500
    assert 1 <= always["records_per_fsync"] <= always["log_records"]
    never = next(r for r in rows if r["server"] == "dbf0" and r["policy"] == "no")
    assert never["log_fsyncs"] == 0 and never["records_per_fsync"] is None
    assert (
        "| always / always | c50 | SET |" in result.stdout
        and "| no / never | c50 | SET |" in result.stdout
    )
    assert list(root.iterdir()) == [], "every run's data directory is removed"
