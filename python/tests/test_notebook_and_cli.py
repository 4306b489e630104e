"""The notebook, run headless on the sample results kept in the repo (a slice of the real
results in benchmarks/reference), and the analyze.py command line."""

import nbformat
import pytest

from conftest import REFERENCE_2020, SAMPLE, run_script
from dbf0lab import analysis, figures, notebook, results

pytestmark = pytest.mark.slow


def test_the_sample_is_a_slice_of_the_committed_results():
    """Never made-up numbers: every line of the sample stands, as it is, in a results file."""
    committed = set()
    for path in (SAMPLE.parents[1] / "reference").glob("*.jsonl"):
        committed.update(path.read_text().splitlines())
    lines = SAMPLE.read_text().splitlines()
    assert lines and set(lines) <= committed
    disk_lines = (SAMPLE.parent / "disk-sample.jsonl").read_text().splitlines()
    assert disk_lines and set(disk_lines) <= committed
    content = results.read(SAMPLE)
    assert content.trials and content.machines


def applicable(path):
    """The names of the figures that apply to a results file (a thread sweep, or a mode study)."""
    data = analysis.load([path])
    return sorted(f"{name}.png" for name, make in figures.FIGURES.items() if make(data) is not None)


def test_notebook_runs_headless_with_the_results_as_a_parameter(tmp_path):
    out = tmp_path / "executed.ipynb"
    samples = SAMPLE.parent
    notebook.execute(
        [SAMPLE],
        tmp_path / "figures",
        output=out,
        extra={
            "steps_results": [str(samples / "steps-sample.jsonl")],
            "models_results": [str(samples / "models-sample.jsonl")],
            "redis_results": [str(samples / "redis-compare-sample.jsonl")],
            "maps_results": [str(samples / "maps-sample.jsonl")],
            "scaling_results": [str(samples / "scaling-sample.jsonl")],
            "durability_results": [str(samples / "durability-sample.jsonl")],
            "aof_results": [str(samples.parent / "reference" / "redis-aof-nio-vm.jsonl")],
            "disk_results": [str(samples / "disk-sample.jsonl")],
            "disk_2020": str(samples.parent / "reference" / "disk-2020-vm.jsonl"),
            "cluster_results": [str(samples.parent / "reference" / "cluster-vm.jsonl")],
            "nemesis_results": [
                str(samples.parent / "reference" / f"nemesis-{system}-vm.jsonl")
                for system in ("dbf0", "redis")
            ],
            "modes_figures_dir": str(tmp_path / "modes"),
        },
    )
    nb = nbformat.read(out, as_version=4)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    # the thread-sweep figures of the sample, then client modes, server models, the map ladder,
    # the two scaling figures, the durability figure, the log against Redis's AOF, Redis, the
    # three of the disk (beside RocksDB and 2020, throughput over time, amplification), a dbf0
    # cluster's throughput against nodes, and the nemesis's recovery times and a timeline
    assert sum("image/png" in o.get("data", {}) for o in outputs) == len(applicable(SAMPLE)) + 14
    injected = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(injected) == 1 and "sample.jsonl" in injected[0].source
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == applicable(SAMPLE)
    assert sorted(p.name for p in (tmp_path / "modes").rglob("*.png")) == [
        "client-modes.png",
        "disk-amplification.png",
        "disk-throughput.png",
        "disk-versus.png",
        "durability.png",
        "maps.png",
        "nemesis-recovery.png",
        "nemesis-timeline.png",
        "redis-comparison.png",
        "redis-comparison.png",
        "scaling-clients.png",
        "scaling-shards.png",
        "scaling-shards.png",
        "server-models.png",
    ]


def test_analyze_prints_the_best_configuration_table_and_writes_figures(tmp_path):
    done = run_script("analyze.py", str(SAMPLE), "--figures", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "| workload | map | keys | server thr | client thr | median ops/s |" in done.stdout
    assert "measured on local:" in done.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == applicable(SAMPLE)


def test_analyze_on_the_2020_file_shows_its_published_best(tmp_path):
    done = run_script("analyze.py", str(REFERENCE_2020), "--figures", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "| read-heavy | concurrent | 16 B keys | 16 | 32 | 61,823 |" in done.stdout
    assert "Incomplete: 142 configurations" in done.stdout


def test_analyze_says_what_is_wrong():
    done = run_script("analyze.py", "no-such-file.jsonl")
    assert done.returncode != 0 and "no such file" in done.stderr


@pytest.mark.slow
def test_the_kernel_runs_without_the_unencrypted_tcp_warning(tmp_path, capfd):
    """ipykernel warns "running over TCP without encryption" on Jupyter's default transport; the
    notebook's kernel uses Unix sockets instead, so a run prints no such warning."""
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell("print(6 * 7)"))
    path = tmp_path / "tiny.ipynb"
    nbformat.write(nb, path)
    done = notebook.execute(notebook=path)
    assert done.cells[0].outputs[0]["text"] == "42\n"
    captured = capfd.readouterr()
    assert "without encryption" not in captured.err + captured.out


def test_the_kernel_is_stopped_before_execute_returns(tmp_path, monkeypatch):
    """A kernel left running outlives run_notebook.py and prints "Parent appears to have exited"
    after the user's prompt is back; execute() stops the kernel it started."""
    managers = []
    real = notebook.kernel_manager

    def recording(socket_dir):
        km = real(socket_dir)
        managers.append(km)
        return km

    monkeypatch.setattr(notebook, "kernel_manager", recording)
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell("print(6 * 7)"))
    path = tmp_path / "tiny.ipynb"
    nbformat.write(nb, path)
    notebook.execute(notebook=path)
    assert len(managers) == 1
    assert not managers[0].is_alive()


@pytest.mark.slow
def test_run_notebook_keeps_the_reference_data_figures_apart(tmp_path):
    """Run on a user's results, the notebook still draws its later studies from the committed
    reference data: those figures go in a subfolder that says so, not among the user's figures."""
    figures_dir = tmp_path / "figures"
    done = run_script(
        "run_notebook.py",
        str(SAMPLE),
        "--output",
        str(tmp_path / "run.ipynb"),
        "--figures",
        str(figures_dir),
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    reference = figures_dir / notebook.REFERENCE_SUBFOLDER
    assert sorted(p.name for p in figures_dir.glob("*.png")) == applicable(SAMPLE)
    assert sorted(p.name for p in figures_dir.iterdir() if p.is_dir()) == [
        notebook.REFERENCE_SUBFOLDER
    ]
    assert len(list(reference.rglob("*.png"))) == 14
    assert "figures drawn from the committed reference data (client modes" in done.stdout
    assert str(reference) in done.stdout
