"""The /proc sampler: exact figures from a fake /proc, one real short sample, the SSH stream, and
what the results file and analyze.py make of it (old files without it still load)."""

import json
import time

import pytest

from dbf0lab import analysis, results, utilisation
from dbf0lab.analyze_cli import report

STAT = """cpu  {user} {nice} {system} {idle} {iowait} {irq} {softirq} 0 0 0
cpu0 1 2 3 4 5 6 7 0 0 0
intr 12345
"""
MEMINFO = """MemTotal:       16000000 kB
MemFree:         1000000 kB
MemAvailable:   12000000 kB
"""
NET_DEV = """Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo: {lo} 10 0 0 0 0 0 0 {lo} 10 0 0 0 0 0 0
  eth0: {rx} {rxp} 0 0 0 0 0 0 {tx} {txp} 0 0 0 0 0 0
"""  # noqa: E501 (the kernel's /proc/net/dev header, verbatim)


def fake_proc(root, user, system, idle, iowait, rx, tx, lo, mem_available_kib=12000000):
    (root / "net").mkdir(parents=True, exist_ok=True)
    (root / "stat").write_text(
        STAT.format(user=user, nice=0, system=system, idle=idle, iowait=iowait, irq=0, softirq=0)
    )
    (root / "meminfo").write_text(MEMINFO.replace("12000000", str(mem_available_kib)))
    (root / "net" / "dev").write_text(
        NET_DEV.format(lo=lo, rx=rx, rxp=rx // 100, tx=tx, txp=tx // 100)
    )


def test_a_sample_from_a_fake_proc_has_the_exact_shares_and_rates(tmp_path):
    fake_proc(tmp_path, user=1000, system=500, idle=8000, iowait=500, rx=10_000, tx=20_000, lo=0)
    clock = iter([10.0, 12.0])
    before = utilisation.read(tmp_path, clock=lambda: next(clock))
    # 2 s later: 400 more jiffies, of which user 200, system 100, iowait 20, idle 80
    fake_proc(
        tmp_path,
        user=1200,
        system=600,
        idle=8080,
        iowait=520,
        rx=210_000,
        tx=420_000,
        lo=1_000_000,
        mem_available_kib=11000000,
    )
    after = utilisation.read(tmp_path, clock=lambda: next(clock))
    s = utilisation.sample(before, after)
    assert s["cpu_user_pct"] == pytest.approx(50.0)
    assert s["cpu_system_pct"] == pytest.approx(25.0)
    assert s["cpu_iowait_pct"] == pytest.approx(5.0)
    assert s["cpu_busy_pct"] == pytest.approx(75.0)
    assert s["mem_used_bytes"] == (16000000 - 11000000) * 1024
    assert s["net_rx_bytes_per_s"] == pytest.approx(100_000)  # 200,000 B over 2 s, lo left out
    assert s["net_tx_bytes_per_s"] == pytest.approx(200_000)
    assert s["net_rx_packets_per_s"] == pytest.approx(1_000)
    assert s["net_tx_packets_per_s"] == pytest.approx(2_000)
    assert s["lo_bytes_per_s"] == pytest.approx(500_000)


def test_summary_keeps_median_and_max_per_metric():
    samples = [{"cpu_busy_pct": v, "lo_bytes_per_s": 10 * v} for v in (10, 30, 95)]
    entry = utilisation.summarize(samples, "client")
    assert entry["role"] == "client" and entry["samples"] == 3
    assert entry["cpu_busy_pct"] == {"median": 30, "max": 95}
    assert entry["lo_bytes_per_s"] == {"median": 300, "max": 950}
    assert "net_rx_bytes_per_s" not in entry  # a metric with no samples is left out, not zeroed


def test_a_real_short_sample_of_this_machine():
    sampler = utilisation.Sampler(interval=0.3).start()
    end = time.monotonic() + 1.0
    while time.monotonic() < end:  # keep a core busy so there is something to see
        sum(i * i for i in range(10_000))
    samples = sampler.stop()
    assert 1 <= len(samples) <= 5
    for s in samples:
        assert 0 <= s["cpu_user_pct"] <= 100 and 0 <= s["cpu_busy_pct"] <= 100
        assert s["mem_used_bytes"] > 0
    assert max(s["cpu_user_pct"] for s in samples) > 0


def test_the_remote_stream_parses_like_the_files(tmp_path):
    chunks = []
    for user, rx in ((100, 1000), (300, 5000)):
        fake_proc(tmp_path, user=user, system=0, idle=100, iowait=0, rx=rx, tx=0, lo=0)
        for name, path in (("stat", "stat"), ("meminfo", "meminfo"), ("netdev", "net/dev")):
            chunks.append(utilisation.SECTION + name + "\n" + (tmp_path / path).read_text())
        chunks.append(utilisation.SECTION + "end\n")
    chunks.append(utilisation.SECTION + "stat\ncpu 1 2")  # cut off mid-reading by the kill: ignored
    readings = utilisation.parse_stream("".join(chunks))
    assert len(readings) == 2
    [s] = utilisation.samples_from(readings)
    assert s["cpu_user_pct"] == pytest.approx(100.0)
    assert s["net_rx_bytes_per_s"] == pytest.approx(4000)  # one interval is taken as 1 s


@pytest.mark.slow
def test_a_remote_node_is_sampled_over_ssh(sshd_factory):
    from dbf0lab.hosts import SshHost, SshSettings

    server = sshd_factory.start()
    args = sshd_factory.ssh_args()
    settings = SshSettings(identity=args[1], options=[a for a in args[2:] if a != "--ssh-option"])
    host = SshHost(server.host, settings)
    sampler = utilisation.RemoteSampler(host.ssh, limit_seconds=10).start()
    time.sleep(3.5)
    samples = sampler.stop()
    assert len(samples) >= 1
    assert all(s["mem_used_bytes"] > 0 for s in samples)


def trial(index, busy, role="client+server"):
    spec = {
        "server_threads": 1,
        "client_threads": 2,
        "map_type": "concurrent",
        "key_length": 16,
        "value_length": 64,
        "set_frac": 0.1,
        "seconds": 1,
        "trial_index": index,
    }
    result = {"set": 10, "get": 90, "seconds": 1.0, "host": "local"}
    if busy is not None:
        result["utilisation"] = {
            "local": utilisation.summarize(
                [
                    {
                        "cpu_user_pct": busy - 10,
                        "cpu_system_pct": 10,
                        "cpu_iowait_pct": 0,
                        "cpu_busy_pct": busy,
                        "mem_used_bytes": 2**30,
                        "net_rx_bytes_per_s": 0,
                        "net_tx_bytes_per_s": 0,
                        "net_rx_packets_per_s": 0,
                        "net_tx_packets_per_s": 0,
                        "lo_bytes_per_s": 5e6,
                    }
                ],
                role,
            )
        }
    return json.dumps([spec, result])


def test_analysis_tables_utilisation_and_flags_a_busy_load_generator(tmp_path):
    hot = tmp_path / "hot.jsonl"
    hot.write_text("\n".join([trial(0, 95.0), trial(1, 97.0)]) + "\n")
    data = analysis.load([hot])
    assert "utilisation" not in data.trials  # kept apart, so the trial table stays flat
    table = analysis.utilisation_table(data)
    assert list(table["node"]) == ["local"] and table["trials"][0] == 2
    assert table["CPU busy % (max)"][0] == "96 (97)"
    text = report(data)
    assert "### Utilisation per node" in text
    assert "the load generator may be the bottleneck" in text

    calm = tmp_path / "calm.jsonl"
    calm.write_text(trial(0, 40.0) + "\n")
    assert "may be the bottleneck" not in report(analysis.load([calm]))


def test_files_without_utilisation_still_load_and_report(tmp_path):
    old = tmp_path / "old.jsonl"
    old.write_text("\n".join([trial(0, None), trial(1, None)]) + "\n")
    data = analysis.load([old])
    assert len(data.trials) == 2 and data.utilisation.empty
    assert analysis.utilisation_table(data).empty
    assert "Utilisation" not in report(data)


@pytest.mark.slow
def test_a_sweep_records_utilisation_and_analyze_prints_it(tmp_path, jar, java):
    from conftest import run_script

    out = tmp_path / "u.jsonl"
    grid = [
        "--preset",
        "quick",
        "--server-threads",
        "1",
        "--client-threads",
        "1",
        "--map-type",
        "concurrent",
        "--set-frac",
        "0.1",
        "--duration",
        "PT2S",
        "--trials",
        "1",
        "--no-progress",
        "--java",
        java,
        "--jar",
        str(jar),
        "--out",
    ]
    done = run_script("run_benchmarks.py", *grid, str(out))
    assert done.returncode == 0, done.stderr
    [(_, result)] = results.read(out).trials
    node = result["utilisation"]["local"]
    assert node["role"] == "client+server" and node["samples"] >= 1
    assert 0 < node["cpu_busy_pct"]["median"] <= node["cpu_busy_pct"]["max"] <= 100
    assert node["lo_bytes_per_s"]["max"] > 0  # the bench talked to its own server over loopback
    shown = run_script("analyze.py", str(out), "--no-figures")
    assert shown.returncode == 0 and "### Utilisation per node" in shown.stdout

    off = tmp_path / "off.jsonl"
    done = run_script("run_benchmarks.py", *grid, str(off), "--no-utilisation")
    assert done.returncode == 0, done.stderr
    assert "utilisation" not in results.read(off).trials[0][1]
