"""dbf0lab.redis_compare without Redis: choosing tests, the order of the runs, parsing
redis-benchmark's CSV, the summary and the retention lines. (test_compare_redis.py runs the real
thing against redis-server when it is installed.)"""

from __future__ import annotations

import math

import pytest

from dbf0lab import redis_compare as rc

CSV = """"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
"SET","150375.94","0.180","0.056","0.167","0.271","0.359","1.999"
"GET","163398.69","0.166","0.048","0.159","0.239","0.311","0.807"
"""  # noqa: E501 (redis-benchmark --csv output as it prints it)


def test_choose_tests_keeps_the_canonical_order_and_refuses_unknown_names():
    assert [t["name"] for t in rc.choose_tests("c1000, c1,c50")] == ["c50", "c1", "c1000"]
    with pytest.raises(
        ValueError, match=r"unknown test\(s\) c7, x; choose from c50, c50-P16, c1, c1000"
    ):
        rc.choose_tests("c50,x,c7")
    with pytest.raises(ValueError, match=r"\(none given\)"):
        rc.choose_tests(" , ")


def test_schedule_alternates_redis_and_dbf0_within_each_pair():
    tests = rc.choose_tests("c50,c1")
    runs = [(pair, test["name"], server) for pair, test, server in rc.schedule(tests, 2)]
    assert runs == [
        (0, "c50", "redis"),
        (0, "c50", "dbf0"),
        (0, "c1", "redis"),
        (0, "c1", "dbf0"),
        (1, "c50", "redis"),
        (1, "c50", "dbf0"),
        (1, "c1", "redis"),
        (1, "c1", "dbf0"),
    ]
    assert list(rc.schedule(tests, 0)) == []


def test_benchmark_command_names_the_test_and_the_sizes():
    test = {"name": "c50-P16", "clients": 50, "pipeline": 16}
    command = rc.benchmark_command("/usr/bin/redis-benchmark", 6390, test, 1000, 64, 100)
    assert command[0] == "/usr/bin/redis-benchmark" and command[-1] == "--csv"
    flags = dict(zip(command[1:-1:2], command[2:-1:2]))
    assert flags == {
        "-h": "127.0.0.1",
        "-p": "6390",
        "-t": "set,get",
        "-d": "64",
        "-r": "100",
        "-n": "1000",
        "-c": "50",
        "-P": "16",
    }


def test_parse_benchmark_csv_reads_rate_and_latencies():
    rows = rc.parse_benchmark_csv(CSV)
    assert rows == [
        {"command": "SET", "rps": 150375.94, "p50_ms": 0.167, "p99_ms": 0.359},
        {"command": "GET", "rps": 163398.69, "p50_ms": 0.159, "p99_ms": 0.311},
    ]


def test_parse_benchmark_csv_without_latency_columns_gives_nan_and_empty_output_fails():
    rows = rc.parse_benchmark_csv('"test","rps"\n"SET","1000.00"\n')
    assert (
        rows[0]["rps"] == 1000.0 and math.isnan(rows[0]["p50_ms"]) and math.isnan(rows[0]["p99_ms"])
    )
    with pytest.raises(ValueError, match="no CSV rows"):
        rc.parse_benchmark_csv("")


def rows_of(rates):
    """rates: {(test, command, pair): (redis_rps, dbf0_rps)} -> the JSONL rows."""
    rows = []
    for (test, command, pair), (redis, dbf0) in rates.items():
        rows.append(
            {"server": "redis", "test": test, "command": command, "pair": pair, "rps": redis}
        )
        rows.append({"server": "dbf0", "test": test, "command": command, "pair": pair, "rps": dbf0})
    return rows


def test_summary_is_the_median_of_the_pair_ratios_not_the_ratio_of_the_medians():
    # Pair ratios 0.8, 0.75 and 4.0: median 0.8. The medians of the rates, 150 / 200, would
    # say 0.75.
    rows = rows_of(
        {
            ("c50", "SET", 0): (100, 80),
            ("c50", "SET", 1): (200, 150),
            ("c50", "SET", 2): (400, 1600),
            ("c50", "GET", 0): (100, 90),
        }
    )
    summary = {(s["test"], s["command"]): s for s in rc.summarize(rows)}
    assert (
        summary[("c50", "SET")]["redis_rps"] == 200 and summary[("c50", "SET")]["dbf0_rps"] == 150
    )
    assert (
        summary[("c50", "SET")]["ratio"] == pytest.approx(0.8)
        and summary[("c50", "SET")]["pairs"] == 3
    )
    assert summary[("c50", "GET")]["ratio"] == pytest.approx(0.9)
    table = rc.summary_table(rc.summarize(rows))
    assert table[0].startswith("| test | command |") and "| c50 | SET | 200 | 150 | 0.80 |" in table
    assert rc.summarize([]) == []


def test_summary_ignores_a_pair_missing_one_server():
    rows = rows_of({("c1", "SET", 0): (100, 80)})
    rows.append({"server": "redis", "test": "c1", "command": "SET", "pair": 1, "rps": 1_000_000})
    (only,) = rc.summarize(rows)
    assert only["pairs"] == 1 and only["ratio"] == pytest.approx(0.8)


def test_retention_compares_c1000_with_c50_per_command_and_is_silent_without_both():
    summary = rc.summarize(rows_of({("c50", "SET", 0): (100, 200), ("c1000", "SET", 0): (50, 150)}))
    assert rc.retention(summary) == [
        "",
        "SET with c1000 kept 50% of c50's rate on Redis and 75% on dbf0",
    ]
    assert rc.retention(rc.summarize(rows_of({("c50", "SET", 0): (100, 200)}))) == []


def test_redis_version_from_the_version_line():
    assert (
        rc.redis_version("Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64")
        == "7.0.15"
    )
    assert rc.redis_version("") == "?"


def test_a_bad_test_name_exits_2_before_looking_for_redis(capsys):
    with pytest.raises(SystemExit) as exit_:
        rc.main(["--tests", "c50,c7"])
    assert exit_.value.code == 2
    assert "unknown test(s) c7" in capsys.readouterr().err


# --aof: Redis's append-only file against dbf0's write-ahead log ----------------------------------


def test_aof_policies_map_to_the_dbf0_policy_with_the_same_promise():
    assert rc.AOF_TO_DBF0 == {"always": "always", "everysec": "interval", "no": "never"}
    assert rc.choose_policies("no, always") == ["always", "no"]
    with pytest.raises(
        ValueError,
        match=r"unknown appendfsync polic\(ies\) sometimes; choose from always, everysec, no",
    ):
        rc.choose_policies("always,sometimes")


def test_aof_schedule_alternates_servers_within_each_policy_and_test():
    tests = rc.choose_tests("c50,c50-P16")
    runs = [
        (pair, policy, test["name"], server)
        for pair, policy, test, server in rc.aof_schedule(["always", "no"], tests, 1)
    ]
    assert runs == [
        (0, "always", "c50", "redis"),
        (0, "always", "c50", "dbf0"),
        (0, "always", "c50-P16", "redis"),
        (0, "always", "c50-P16", "dbf0"),
        (0, "no", "c50", "redis"),
        (0, "no", "c50", "dbf0"),
        (0, "no", "c50-P16", "redis"),
        (0, "no", "c50-P16", "dbf0"),
    ]


def test_the_log_figures_of_a_run_are_the_difference_of_two_info_replies():
    before = rc.parse_info(
        "# Persistence\r\naof_enabled:1\r\ndbf0_records_written:100\r\ndbf0_fsyncs:10\r\n"
    )
    after = rc.parse_info("# Persistence\r\ndbf0_records_written:1100\r\ndbf0_fsyncs:50\r\n\r\n")
    assert before["aof_enabled"] == "1"
    assert rc.log_figures(before, after) == {
        "log_records": 1000,
        "log_fsyncs": 40,
        "records_per_fsync": 25.0,
    }
    assert (
        rc.log_figures(after, after)["records_per_fsync"] is None
    )  # nothing forced: no group to measure


def test_an_aof_summary_keeps_the_policies_apart_and_shows_records_per_fsync():
    rows = []
    for policy, pair, redis, dbf0, per in (
        ("always", 0, 100, 200, 10.0),
        ("always", 1, 100, 100, 30.0),
        ("no", 0, 1000, 500, None),
    ):
        rows.append(
            {
                "server": "redis",
                "policy": policy,
                "test": "c50",
                "command": "SET",
                "pair": pair,
                "rps": redis,
            }
        )
        rows.append(
            {
                "server": "dbf0",
                "policy": policy,
                "test": "c50",
                "command": "SET",
                "pair": pair,
                "rps": dbf0,
                "records_per_fsync": per,
            }
        )
    summary = rc.summarize(rows)
    assert [(s["policy"], s["pairs"]) for s in summary] == [("always", 2), ("no", 1)]
    assert summary[0]["ratio"] == pytest.approx(1.5) and summary[0][
        "records_per_fsync"
    ] == pytest.approx(20.0)
    table = rc.summary_table(summary)
    assert table[0].startswith("| Redis appendfsync / dbf0 --fsync | test |")
    assert "| always / always | c50 | SET | 100 | 150 | 1.50 | 20.0 |" in table
    assert "| no / never | c50 | SET | 1,000 | 500 | 0.50 |  |" in table


def test_an_unknown_aof_policy_exits_2(capsys):
    with pytest.raises(SystemExit) as exit_:
        rc.main(["--aof", "always,sometimes"])
    assert exit_.value.code == 2
    assert "unknown appendfsync polic(ies) sometimes" in capsys.readouterr().err
