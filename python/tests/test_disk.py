"""disk-bench's analysis (dbf0lab.disk) and the sweep preset disk (dbf0lab.disk_sweep)."""

import json

import pytest

from conftest import REPO
from dbf0lab import disk, disk_sweep
from dbf0lab.sweep_cli import main as sweep_main

REFERENCE_2020 = REPO / "benchmarks" / "reference" / "disk-2020-vm.jsonl"


def line(nano, put, get, *, run=None, seconds=None, **extra):
    out = {"nanoTime": nano, "put": put, "delete": 0, "deleteFound": 0, "get": get}
    out |= {"getFound": get // 2, "fileSize": 1000}
    if seconds is not None:
        out["seconds"] = seconds
        out["ops_per_sec"] = (put + get) / seconds
    if run is not None:
        out["run"] = run
    return out | extra


def write(path, lines, tail=""):
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + tail)
    return path


def test_2020_lines_take_their_interval_from_the_nano_times(tmp_path):
    f = write(tmp_path / "old.jsonl", [line(0, 100, 100), line(5_000_000_000, 300, 200)])
    frame = disk.intervals(f, type_="2020", mix="PUT_HEAVY")
    assert list(frame["seconds"]) == [10.0, 5.0]
    assert list(frame["ops_per_sec"]) == [20.0, 100.0]
    assert set(frame["type"]) == {"2020"} and set(frame["mix"]) == {"PUT_HEAVY"}
    assert list(frame["elapsed_s"]) == [10.0, 15.0]


def test_runs_are_numbered_apart_and_a_torn_last_line_is_skipped(tmp_path):
    a = dict(type="lsm", mix="BALANCED", compaction="leveled", fsync="interval")
    b = dict(type="rocksdb", mix="BALANCED", compaction="leveled", fsync="interval")
    lines = [
        line(1, 10, 10, run="x", seconds=1, **a),
        line(2, 10, 10, run="y", seconds=1, **b),
        line(3, 30, 10, run="x", seconds=2, **a),
    ]
    f = write(tmp_path / "r.jsonl", lines, tail='{"nanoTime": 4, "pu')
    frame = disk.intervals(f)
    assert len(frame) == 3
    assert list(frame["interval"]) == [1, 1, 2]
    assert list(frame["elapsed_s"]) == [1, 1, 3]
    bad = write(tmp_path / "bad.jsonl", lines[:1], tail="garbage\n" + json.dumps(lines[1]) + "\n")
    with pytest.raises(ValueError, match="not a JSON line"):
        disk.intervals(bad)


def test_summary_takes_the_median_the_last_amplification_and_blocks_per_get(tmp_path):
    common = dict(type="lsm", mix="GET_HEAVY", compaction="tiered", fsync="never", run="r")
    lines = [
        line(1, 0, 100, seconds=1, write_amp=2.0, space_amp=1.5, blocks_read=10, **common),
        line(2, 0, 300, seconds=1, write_amp=3.0, space_amp=1.2, blocks_read=50, **common),
        line(3, 0, 200, seconds=1, write_amp=4.0, space_amp=1.1, blocks_read=0, **common),
    ]
    table = disk.summary(disk.intervals(write(tmp_path / "s.jsonl", lines)))
    (row,) = table.to_dict("records")
    assert row["engine"] == "lsm tiered"
    assert row["median_ops_per_sec"] == 200
    assert row["min_ops_per_sec"] == 100 and row["max_ops_per_sec"] == 300
    assert row["write_amp"] == 4.0 and row["space_amp"] == 1.1
    assert row["read_amp"] == pytest.approx(60 / 600)


def test_the_committed_2020_figures_and_the_ratios_against_them(tmp_path):
    ref = disk.reference_2020(REFERENCE_2020)
    medians = ref.groupby("mix")["ops_per_sec"].median().to_dict()
    assert medians == {"PUT_HEAVY": 116_000, "BALANCED": 120_000, "GET_HEAVY": 108_000}
    runs = []
    for engine, rate in (("lsm", 232_000), ("rocksdb", 116_000)):
        spec = dict(type=engine, mix="PUT_HEAVY", compaction="leveled", fsync="interval")
        runs.append(line(1, rate, 0, seconds=1, run=engine, **spec))
    table = disk.comparison(disk.intervals(write(tmp_path / "c.jsonl", runs)), ref)
    (row,) = table.to_dict("records")
    assert row["lsm leveled / 2020"] == pytest.approx(2.0)
    assert row["lsm leveled / rocksdb leveled"] == pytest.approx(2.0)


def test_the_figures_are_drawn_and_saved(tmp_path):
    lines = []
    for engine in ("lsm", "rocksdb", "map"):
        for mix in ("PUT_HEAVY", "GET_HEAVY"):
            spec = dict(type=engine, mix=mix, compaction="leveled", fsync="interval")
            for i in range(3):
                lines.append(line(i, 1000 * (i + 1), 500, seconds=1, run=f"{engine}{mix}",
                                  write_amp=2.0, space_amp=1.3, blocks_read=5, **spec))  # fmt: skip
    frame = disk.intervals(write(tmp_path / "f.jsonl", lines))
    ref = disk.reference_2020(REFERENCE_2020)
    for name, fig in (
        ("throughput", disk.throughput_over_time(frame)),
        ("amplification", disk.amplification(frame)),
        ("versus", disk.versus(frame, ref)),
    ):
        assert fig is not None, name
        assert disk.save(fig, tmp_path / "figs", name).stat().st_size > 1000


def test_the_preset_alternates_engines_and_passes_the_2020_arguments_in_order():
    runs = disk_sweep.plan()
    assert len(runs) == len(disk_sweep.MIXES) * len(disk_sweep.ENGINES)
    assert [r.type for r in runs[:3]] == ["lsm", "rocksdb", "lsm"]
    assert runs[0].args("/d") == [
        "/d", "1000000", "1024", "PUT_HEAVY", "0.5", "2", "PT30S", "lsm",
        "--fsync", "interval", "--compaction", "leveled",
    ]  # fmt: skip
    assert "--compaction" not in next(r for r in runs if r.type == "map").args("/d")
    assert "--compaction" not in next(r for r in runs if r.type == "sqlite").args("/d")
    assert "--compaction" not in next(r for r in runs if r.type == "btree").args("/d")
    second = disk_sweep.plan(
        trials=2, engines=["lsm-leveled", "rocksdb-leveled"], mixes=["BALANCED"]
    )
    assert [r.key for r in second] == [
        "lsm/leveled/BALANCED/0", "rocksdb/leveled/BALANCED/0",
        "rocksdb/leveled/BALANCED/1", "lsm/leveled/BALANCED/1",
    ]  # fmt: skip


def test_the_preset_resumes_from_the_runs_in_its_file(tmp_path, capsys):
    out = tmp_path / "disk.jsonl"
    first = disk_sweep.plan()[0]
    write(out, [line(1, 1, 1, run=first.key, seconds=1)], tail='{"torn')
    assert disk_sweep.done_runs(out) == {first.key}
    code = sweep_main(["--preset", "disk", "--dry-run", "--out", str(out), "--duration", "5s"])
    printed = capsys.readouterr().out
    assert code == 0
    assert "1 runs already there: skipped" in printed
    assert f"to run: {len(disk_sweep.plan()) - 1}" in printed
    assert "PT5S" in printed
    code = sweep_main(["--preset", "disk", "--dry-run", "--out", str(out), "--fsync", "none"])
    assert code == 2


def test_the_preset_runs_only_the_engines_and_mixes_named(capsys):
    runs = disk_sweep.plan(engines=["lsm-leveled", "map", "sqlite"], mixes=["GET_HEAVY"])
    assert [r.key for r in runs] == [
        "lsm/leveled/GET_HEAVY/0", "map/none/GET_HEAVY/0", "sqlite/none/GET_HEAVY/0",
    ]  # fmt: skip
    with pytest.raises(ValueError, match="unknown engine"):
        disk_sweep.plan(engines=["bdb"])
    code = sweep_main(["--preset", "disk", "--dry-run", "--disk-mixes", "SCAN_HEAVY"])
    assert code == 2
    assert "unknown mix ['SCAN_HEAVY']" in capsys.readouterr().err
