import pytest

from dbf0lab import grid, sweep_cli
from dbf0lab.grid import PRESETS, Axis, Factor, Grid, benchmark_args, parse_duration, shuffled


def test_seed_preset_is_the_2020_grid():
    g = PRESETS["seed"].grid
    assert g.trials == 10
    assert g.axis_values() == {
        "server_threads": [1, 2, 4, 8, 16, 32],
        "client_threads": [1, 2, 4, 8, 16, 32],
        "map_type": ["hashtable", "concurrent"],
        "key_length": [1, 2, 16],
        "value_length": [64],
        "set_frac": [0.1, 0.5, 0.9],
        "seconds": [10],
    }
    assert len(g.specs()) == 6 * 6 * 2 * 3 * 3 * 10


def test_quick_preset_covers_every_workload_and_both_safe_maps():
    values = PRESETS["quick"].grid.axis_values()
    assert values["set_frac"] == [0.1, 0.5, 0.9]
    assert values["map_type"] == ["hashtable", "concurrent"]
    assert (
        1 in values["server_threads"] and 1 in values["client_threads"]
    )  # single-threaded, for the impact


def test_anchors_preset_pairs_threads_instead_of_crossing_them():
    specs = PRESETS["anchors"].grid.specs()
    pairs = {(s["server_threads"], s["client_threads"]) for s in specs}
    assert pairs == {(1, 1), (4, 8), (8, 16)}
    assert len(specs) == 3 * 3 * 3
    assert {s["seconds"] for s in specs} == {10} and {s["map_type"] for s in specs} == {
        "concurrent"
    }


def test_specs_use_the_2020_keys_in_order():
    spec = PRESETS["quick"].grid.specs()[0]
    assert list(spec) == [
        "server_threads",
        "client_threads",
        "map_type",
        "key_length",
        "value_length",
        "set_frac",
        "seconds",
        "trial_index",
    ]


def test_benchmark_args_are_the_seven_positionals():
    spec = {
        "server_threads": 4,
        "client_threads": 8,
        "map_type": "concurrent",
        "key_length": 16,
        "value_length": 64,
        "set_frac": 0.1,
        "seconds": 10,
        "trial_index": 3,
    }
    assert benchmark_args(spec) == ["4", "8", "concurrent", "16", "64", "0.1", "PT10S"]


@pytest.mark.parametrize(
    "text, seconds",
    [("PT10S", 10), ("pt2s", 2), ("PT1M30S", 90), ("PT0.5S", 0.5), ("5", 5), ("2.5", 2.5)],
)
def test_parse_duration(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["PT", "ten", "0", "-3"])
def test_parse_duration_rejects(text):
    with pytest.raises(ValueError):
        parse_duration(text)


def test_overriding_a_paired_axis_unpairs_it():
    g = PRESETS["anchors"].grid.with_axis("server_threads", [2])
    pairs = {(s["server_threads"], s["client_threads"]) for s in g.specs()}
    assert pairs == {(2, 1), (2, 8), (2, 16)}


def test_with_pairs_replaces_crossed_axes():
    g = PRESETS["quick"].grid.with_pairs(("server_threads", "client_threads"), [(1, 1), (4, 8)])
    assert {(s["server_threads"], s["client_threads"]) for s in g.specs()} == {(1, 1), (4, 8)}


def test_grid_refuses_unknown_or_missing_axes():
    with pytest.raises(ValueError, match="unknown"):
        PRESETS["quick"].grid.with_axis("colour", ["red"])
    with pytest.raises(ValueError, match="no value"):
        Grid((Factor.single("server_threads", [1]),), 1)


def test_shuffle_is_fixed_by_the_seed_and_keeps_every_trial():
    specs = PRESETS["quick"].grid.specs()
    a, b, c = shuffled(specs, 1), shuffled(specs, 1), shuffled(specs, 2)
    assert a == b and a != c and a != specs
    assert sorted(map(str, a)) == sorted(map(str, specs))


def test_a_new_axis_is_one_line(monkeypatch):
    """A later Benchmark flag (here a hypothetical --key-distribution) becomes a sweep option, a
    spec key and a flag from one Axis line."""
    monkeypatch.setattr(
        grid,
        "AXES",
        grid.AXES
        + (
            Axis(
                "key_distribution",
                "--key-distribution",
                str,
                "uniform, zipf",
                flag="--key-distribution",
            ),
        ),
    )
    args = sweep_cli.build_parser().parse_args(
        ["--preset", "anchors", "--key-distribution", "uniform,zipf"]
    )
    g = sweep_cli.make_grid(args)
    specs = g.specs()
    assert len(specs) == 2 * len(PRESETS["anchors"].grid.specs())
    assert {s["key_distribution"] for s in specs} == {"uniform", "zipf"}
    assert list(specs[0])[-2:] == ["key_distribution", "trial_index"]
    assert benchmark_args(specs[0])[-2:] == ["--key-distribution", specs[0]["key_distribution"]]
    # a grid that does not set the new axis leaves it out of the spec, so old files still match
    assert "key_distribution" not in PRESETS["anchors"].grid.specs()[0]


def test_cli_options_override_the_preset():
    args = sweep_cli.build_parser().parse_args(
        [
            "--preset",
            "quick",
            "--map-type",
            "concurrent",
            "--duration",
            "PT5S",
            "--trials",
            "3",
            "--thread-pairs",
            "1:1,8:16",
        ]
    )
    g = sweep_cli.make_grid(args)
    values = g.axis_values()
    assert values["map_type"] == ["concurrent"] and values["seconds"] == [5] and g.trials == 3
    assert {(s["server_threads"], s["client_threads"]) for s in g.specs()} == {(1, 1), (8, 16)}


def test_steps_preset_takes_away_one_bottleneck_at_a_time():
    specs = PRESETS["steps"].grid.specs()
    assert len(specs) == 6 * 3 * 3
    # pipelining is measured with a thread per connection and with the selector client
    assert {s["selector_threads"] for s in specs if s["client_mode"] == "pipelined"} == {0, 2}
    modes = {(s["client_mode"], s["close_order"]) for s in specs}
    assert {m for m, _ in modes} == {"per-op", "persistent", "pipelined", "batched"}
    assert ("per-op", "client-first") in modes and ("per-op", "server-first") in modes
    pipelined = next(s for s in specs if s["client_mode"] == "pipelined")
    args = benchmark_args(pipelined)
    assert args[:5] == ["2", "2", "concurrent", "16", "64"]
    assert args[args.index("--server-model") + 1] == "nio"
    assert args[args.index("--pipeline") + 1] == "128"
    assert args[args.index("--warmup") + 1] == "PT1S"


def test_models_preset_holds_a_thousand_connections_on_virtual_and_nio():
    specs = PRESETS["models"].grid.specs()
    assert {s["client_mode"] for s in specs} == {"persistent"}
    assert {s["server_model"] for s in specs if s["client_threads"] == 1000} == {"virtual", "nio"}
    assert {s["server_model"] for s in specs if s["client_threads"] == 16} == {
        "pool",
        "virtual",
        "nio",
    }
    # every model that can hold 1,000 connections is measured with both kinds of client thread
    for model in ("virtual", "nio"):
        for n in (16, 1000):
            assert {
                s["client_thread_kind"]
                for s in specs
                if s["server_model"] == model and s["client_threads"] == n
            } == {"platform", "virtual"}
    args = benchmark_args(next(s for s in specs if s["client_thread_kind"] == "virtual"))
    assert args[args.index("--client-thread-kind") + 1] == "virtual"
    # and with one selector thread driving all the connections
    for model in ("virtual", "nio"):
        assert {
            s["client_threads"]
            for s in specs
            if s["server_model"] == model and s["selector_threads"] == 1
        } == {16, 1000}
    args = benchmark_args(next(s for s in specs if s["selector_threads"] == 1))
    assert args[args.index("--selector-threads") + 1] == "1"


def test_grids_without_the_flag_axes_send_no_flags():
    spec = PRESETS["mid"].grid.specs()[0]
    assert "server_model" not in spec
    assert benchmark_args(spec)[7:] == []


@pytest.mark.parametrize(
    "text, seconds",
    [
        ("2s", 2),
        ("500ms", 0.5),
        ("1m", 60),
        ("2.5", 2.5),
        ("PT2S", 2),
        ("1.5s", 1.5),
        ("P1D", 86400),
    ],
)
def test_parse_duration_takes_what_the_java_command_lines_take(text, seconds):
    """dbf0.common.Durations: ISO-8601, seconds, or a number with ms, s or m."""
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    "change, message",
    [
        ({"map_type": "nosuchmap"}, "unknown map type 'nosuchmap'"),
        ({"server_threads": 0}, "server_threads must be at least 1, got 0"),
        ({"client_threads": 0}, "client_threads must be at least 1, got 0"),
        ({"set_frac": 2.0}, "set_frac must be between 0 and 1, got 2"),
        ({"key_length": 200}, "key_length must be 1..127 in per-op mode (v1), got 200"),
        ({"value_length": 128}, "value_length must be 0..127 in per-op mode (v1), got 128"),
        (
            {"server_model": "threads"},
            "server_model must be one of pool, virtual, nio, got 'threads'",
        ),
        (
            {"client_mode": "turbo"},
            "client_mode must be one of per-op, persistent, pipelined, batched",
        ),
        ({"selector_threads": 1}, "selector_threads needs a v2 client mode"),
        ({"client_mode": "pipelined", "pipeline": 0}, "pipeline must be 1..65536, got 0"),
    ],
)
def test_problems_name_what_the_benchmark_would_reject(change, message):
    config = {**PRESETS["quick"].grid.configurations()[0], **change}
    assert any(message in p for p in grid.problems(config)), grid.problems(config)


def test_every_preset_passes_its_own_checks():
    for name, preset in PRESETS.items():
        assert grid.grid_problems(preset.grid) == [], name
    v2 = {
        **PRESETS["quick"].grid.configurations()[0],
        "client_mode": "persistent",
        "key_length": 300,
        "value_length": 5000,
        "map_type": "java.util.TreeMap",
    }
    assert grid.problems(v2) == []


def test_smoke_preset_is_a_few_short_trials():
    specs = PRESETS["smoke"].grid.specs()
    assert 2 <= len(specs) <= 4 and {s["seconds"] for s in specs} <= {1, 2}


def test_keyed_axes_are_flags_one_line_each():
    spec = {
        "server_threads": 1,
        "client_threads": 4,
        "map_type": "concurrent",
        "key_length": 16,
        "value_length": 64,
        "set_frac": 0.5,
        "seconds": 3,
        "records": 100000,
        "key_dist": "zipfian",
        "ycsb_workload": "A",
    }
    assert benchmark_args(spec)[7:] == [
        "--records",
        "100000",
        "--key-dist",
        "zipfian",
        "--workload",
        "A",
    ]
    assert {"records", "key_dist", "ycsb_workload"} <= {a.name for a in grid.AXES if a.flag}


def test_ycsb_preset_runs_every_core_workload_but_e_at_two_thread_settings():
    g = PRESETS["ycsb"].grid
    specs = g.specs()
    assert {s["ycsb_workload"] for s in specs} == {"A", "B", "C", "D", "F"}
    assert {(s["server_threads"], s["client_threads"]) for s in specs} == {(1, 4), (2, 16)}
    assert {s["client_mode"] for s in specs} == {
        "persistent"
    }  # D inserts and F reads-modifies-writes: v2 only
    assert len(specs) == 5 * 2 * g.trials
    assert grid.grid_problems(g) == []


@pytest.mark.parametrize(
    "config, message",
    [
        ({"key_dist": "zipfian"}, "needs records"),
        ({"records": 10, "key_dist": "gaussian"}, "key_dist must be one of"),
        ({"ycsb_workload": "E"}, "ycsb_workload must be one of"),
        ({"ycsb_workload": "F", "client_mode": "per-op"}, "needs a v2 client mode"),
        ({"records": 0}, "records must be at least 1"),
    ],
)
def test_keyed_problems(config, message):
    assert any(message in p for p in grid.problems(config))


def test_maps_preset_climbs_the_lock_ladder():
    g = PRESETS["maps"].grid
    values = g.axis_values()
    assert values["map_type"] == ["hashtable", "synchronized", "rwlock", "striped", "concurrent"]
    assert values["set_frac"] == [0.1, 0.9] and values["key_dist"] == ["uniform", "zipfian"]
    assert grid.grid_problems(g) == []


def test_striped_n_is_a_map_type():
    assert grid.problems({"map_type": "striped:64"}) == []
    assert grid.problems({"map_type": "rwlock"}) == []
    assert grid.problems({"map_type": "striped:x"})
