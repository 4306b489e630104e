"""Merging the bench's latency histograms: decoded from real bench output, they give back the
bench's own percentiles, and a merge of two runs has the sum of their counts."""

import json
import subprocess

import pytest

from dbf0lab import histograms

pytestmark = pytest.mark.slow  # starts bench JVMs


def bench(java, jar, *flags):
    done = subprocess.run(
        [
            java,
            "-jar",
            str(jar),
            "bench",
            "1",
            "2",
            "concurrent",
            "16",
            "64",
            "0.5",
            "PT1S",
            "--server-model",
            "nio",
            *flags,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_one_histogram_gives_back_the_benchs_percentiles_and_two_merge(java, jar):
    a = bench(java, jar, "--client-mode", "persistent")
    b = bench(java, jar, "--client-mode", "pipelined", "--pipeline", "32")
    ha, hb = histograms.decode(a["latency_hdr"]), histograms.decode(b["latency_hdr"])
    for result, h in ((a, ha), (b, hb)):
        assert h.total == result["set"] + result["get"]  # one entry per operation counted
        for p, key in (
            (50, "p50_us"),
            (90, "p90_us"),
            (99, "p99_us"),
            (99.9, "p999_us"),
            (100, "max_us"),
        ):
            assert h.percentile(p) == result[key], key
    merged = histograms.merge([a["latency_hdr"], b["latency_hdr"]])
    assert merged.total == ha.total + hb.total
    for p in (50, 99):
        # a mixture's percentile lies between its parts'; an average of percentiles need not be it
        low, high = sorted((ha.percentile(p), hb.percentile(p)))
        assert low <= merged.percentile(p) <= high


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        histograms.decode("AAAAAAAAAAA=")
    with pytest.raises(ValueError):
        histograms.merge([])
