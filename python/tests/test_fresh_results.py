"""The README's path end to end on results measured here and now: a real sweep with the
current Benchmark, then scripts/analyze.py and scripts/run_notebook.py on the file it just
wrote. (The committed results predate fields the Benchmark adds, so they cannot stand in.)"""

import subprocess

import nbformat
import pytest

from conftest import REPO, run_script
from dbf0lab import results

pytestmark = pytest.mark.slow


def tracked_changes(path: str) -> str:
    done = subprocess.run(
        ["git", "status", "--porcelain", "--", path], cwd=REPO, capture_output=True, text=True
    )
    return done.stdout if done.returncode == 0 else ""


def test_a_fresh_sweep_then_its_analysis_and_notebook(tmp_path, jar):
    out = tmp_path / "smoke.jsonl"
    before = tracked_changes("benchmarks")
    sweep = run_script("run_benchmarks.py", "--preset", "smoke", "--no-progress", "--out", str(out))
    assert sweep.returncode == 0, sweep.stderr
    content = results.read(out)
    assert len(content.trials) == 4 and all("client_mode" in r for _, r in content.trials)

    figures = tmp_path / "figures"
    analysed = run_script("analyze.py", str(out), "--figures", str(figures))
    assert analysed.returncode == 0, analysed.stderr
    assert "| workload | map | keys | server thr | client thr | median ops/s |" in analysed.stdout
    assert "| read-heavy | concurrent | 16 B keys | 1 |" in analysed.stdout
    assert any(figures.glob("*.png"))

    executed = tmp_path / "executed.ipynb"
    ran = run_script(
        "run_notebook.py",
        str(out),
        "--figures",
        str(tmp_path / "nb-figures"),
        "--output",
        str(executed),
        timeout=600,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    nb = nbformat.read(executed, as_version=4)
    errors = [
        o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"
    ]
    assert not errors
    injected = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(injected) == 1 and "smoke.jsonl" in injected[0].source
    text = "".join(
        str(o.get("data", {}).get("text/markdown", ""))
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
    )
    assert "**smoke**: 4 trials" in text
    assert any((tmp_path / "nb-figures").glob("*.png"))
    assert tracked_changes("benchmarks") == before, (
        "the committed results and figures stay as they were"
    )


def test_run_notebook_on_a_missing_file_says_so_in_one_line(tmp_path):
    done = run_script(
        "run_notebook.py", str(tmp_path / "nope.jsonl"), "--output", str(tmp_path / "x.ipynb")
    )
    assert done.returncode == 2
    assert done.stderr.strip() == f"run_notebook.py: no such file: {tmp_path / 'nope.jsonl'}"
    assert "Traceback" not in done.stderr
