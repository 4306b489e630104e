"""dbf0lab.replication_summary without servers: configurations, the order of a run, resp-load's
JSON, the sizes and CPU figures, and the summary with its ratios and verdicts; then, when Redis is
installed, scripts/replication_cost.py on a tiny real run."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import run_script
from dbf0lab import redis_compare as rc
from dbf0lab import replication_summary as rs

RESP_LOAD_OUT = (
    '{"ops":33200,"seconds":3.248,"ops_per_sec":10221.3,"p50_ms":26.719,"p99_ms":203.007,'
    '"p999_ms":256.767,"max_ms":270.591,"errors":0,"wait_short":0,"command":"SET",'
    '"connections":50,"pipeline":16,"wait_replicas":1,"value_size":64,"keyspace":100000,'
    '"warmup_seconds":1.0}\n'
)


def test_choose_configs_keeps_the_canonical_order_and_refuses_unknown_names():
    assert [c["name"] for c in rs.choose_configs("redis, r0")] == ["r0", "redis"]
    with pytest.raises(ValueError, match=r"unknown configuration\(s\) r3; choose from r0, r2"):
        rs.choose_configs("r0,r3")
    with pytest.raises(ValueError, match=r"\(none given\)"):
        rs.choose_configs(",")


def test_each_round_starts_one_configuration_later():
    configs = rs.choose_configs("r0,r2,redis")
    order = [(r, c["name"]) for r, c in rs.schedule(configs, 3)]
    assert order == [
        (0, "r0"), (0, "r2"), (0, "redis"),
        (1, "r2"), (1, "redis"), (1, "r0"),
        (2, "redis"), (2, "r0"), (2, "r2"),
    ]  # fmt: skip


def test_cells_run_resp_load_first_and_wait_only_on_redis_sets():
    tests = rc.choose_tests("c50-P16")

    def runs(config):
        cells = rs.cells(config, tests, ["SET", "GET"])
        return [(c["tool"], c["command"], c["wait_replicas"]) for c in cells]

    dbf0, redis = runs(rs.CONFIGS[1]), runs(rs.CONFIGS[3])
    assert dbf0 == [
        ("resp-load", "SET", 0),
        ("redis-benchmark", "SET", 0),
        ("redis-benchmark", "GET", 0),
    ]
    assert redis == [
        ("resp-load", "SET", 0),
        ("redis-benchmark", "SET", 0),
        ("resp-load", "SET", 1),
        ("redis-benchmark", "GET", 0),
    ]


def test_parse_resp_load_takes_the_json_line():
    figures = rs.parse_resp_load("some log line\n" + RESP_LOAD_OUT)
    assert figures["rps"] == 10221.3 and figures["ops"] == 33200
    assert (figures["p50_ms"], figures["p99_ms"]) == (26.719, 203.007)
    assert figures["errors"] == 0 and figures["first_error"] is None
    with pytest.raises(ValueError, match="printed no JSON"):
        rs.parse_resp_load("resp-load: error: 127.0.0.1:7600: connection refused\n")


def test_sizes_cpu_and_load_figures():
    assert rs.requests_for(13_624.0, 10) == 136_000
    assert rs.requests_for(168.0, 10) == 2_000  # at least the minimum
    assert rs.cpu_us_per_op(10.0, 10.5, 100_000) == pytest.approx(5.0)
    assert rs.cpu_us_per_op(10.0, 10.5, 0) is None
    assert rs.load_one_minute("37.25 28.53 19.70 23/489 16614") == 37.25


def row(config, rnd, rps, cpu, tool="resp-load", wait=0, test="c50-P16", errors=0):
    return {
        "config": config,
        "round": rnd,
        "tool": tool,
        "wait_replicas": wait,
        "test": test,
        "command": "SET",
        "rps": rps,
        "p50_ms": 1.0,
        "p99_ms": 2.0,
        "cpu_us_per_op": cpu,
        "errors": errors,
        "load_1m": 3.0,
        "cpu_seconds": 5.0,
        "seconds": 10.0,
    }


def test_summary_gives_medians_and_per_round_ratios_and_verdicts():
    rows = []
    for rnd, (r0, r2, wait) in enumerate([(1000, 400, 100), (2000, 600, 200), (3000, 1500, 300)]):
        rows += [
            row("r0", rnd, r0, 10.0),
            row("r2", rnd, r2, 20.0 + rnd * 10),
            row("redis", rnd, wait, 50.0, wait=1),
        ]
    rows.append(row("r2", 3, 99_999, 1.0, errors=5))  # error replies: left out
    rows.append({**row("r2", 4, 0, None), "rps": None, "error": "TRYAGAIN"})  # a failed client
    summary = {s["label"]: s for s in rs.summarize(rows)}
    three = summary["dbf0 R=2 (3 copies)"]
    assert three["rounds"] == 3 and three["rps"] == 600
    assert three["rps_vs_r0"] == pytest.approx(0.4)  # the median of 0.4, 0.3 and 0.5
    assert three["cpu_vs_r0"] == pytest.approx(3.0)  # of 2, 3 and 4
    assert three["rps_vs_wait"] == pytest.approx(4.0)  # of 4, 3 and 5
    assert summary[rs.WAIT_LABEL]["rps_vs_r0"] is None  # Redis has no R=0
    table = rs.summary_table(list(summary.values()))
    assert any("| dbf0 R=2 (3 copies) | 600 |" in line for line in table)
    assert three["server_cores"] == pytest.approx(0.5)  # 5 CPU seconds in 10 s
    verdicts = rs.verdicts(rs.summarize(rows))
    assert "3.00× (target ≤ 2.5×: missed)" in verdicts[0]
    assert "4.00 (target ≥ 1: met)" in verdicts[1]


def test_summarize_prints_the_table_of_an_earlier_run(tmp_path):
    rows = [row("r0", 0, 1000, 10.0), row("r2", 0, 500, 25.0)]
    earlier = tmp_path / "earlier.jsonl"
    earlier.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = run_script("replication_cost.py", "--summarize", str(earlier))
    assert result.returncode == 0, result.stderr
    assert "medians of 1 rounds" in result.stdout
    assert "CPU per write, 3 copies ÷ 1 copy (c50-P16, resp-load): 2.50× (target ≤ 2.5×: met)" in (
        result.stdout
    )
    missing = run_script("replication_cost.py", "--summarize", str(tmp_path / "none.jsonl"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_one_short_round_measures_every_configuration(tmp_path, jar, java):
    if shutil.which("redis-server") is None or shutil.which("redis-benchmark") is None:
        pytest.skip("redis-server/redis-benchmark are not installed: scripts/install-test-tools.sh")
    out = tmp_path / "replication.jsonl"
    result = run_script(
        "replication_cost.py",
        *("--rounds", "1", "--seconds", "1", "--warmup", "0", "--configs", "r0,r2,redis"),
        *("--tests", "c50-P16", "--port-base", "7650", "--redis-port", "7750"),
        *("--out", str(out), "--jar", str(jar)),
        timeout=400,
    )
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {(r["label"], r["tool"]) for r in rows} == {
        ("dbf0 R=0 (1 copy)", "resp-load"),
        ("dbf0 R=0 (1 copy)", "redis-benchmark"),
        ("dbf0 R=2 (3 copies)", "resp-load"),
        ("dbf0 R=2 (3 copies)", "redis-benchmark"),
        ("Redis +1 replica", "resp-load"),
        ("Redis +1 replica", "redis-benchmark"),
        (rs.WAIT_LABEL, "resp-load"),
    }
    assert all(r["rps"] > 0 and r["errors"] == 0 for r in rows)
    # every server process of a configuration is counted: three dbf0 nodes, Redis and its replica
    assert {r["config"]: r["server_processes"] for r in rows} == {"r0": 1, "r2": 3, "redis": 2}
    assert all(r["cpu_seconds"] > 0 and "loadavg_before" in r for r in rows)
    assert "CPU per write, 3 copies ÷ 1 copy" in result.stdout
