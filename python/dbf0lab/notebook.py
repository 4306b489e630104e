"""Runs benchmarks/analysis.ipynb headless (nbclient), with the results files as a parameter.

Parameters follow papermill's convention: the notebook has a cell tagged ``parameters`` holding
the defaults, and the values given here go into a new cell right after it, tagged
``injected-parameters`` (replacing one left by an earlier run). papermill can run the notebook
the same way.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import nbformat
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "benchmarks" / "analysis.ipynb"
OWN_FIGURES = REPO / "benchmarks" / "results" / "figures" / "notebook"  # git-ignored
# Outside --in-place, the studies after the thread sweep (steps, models, maps, scaling, durability,
# Redis) are drawn from the committed reference data: their figures go in this subfolder of the
# run's figures, never beside the figures of the results given.
REFERENCE_SUBFOLDER = "from-reference-data"
PARAMETERS_TAG = "parameters"
INJECTED_TAG = "injected-parameters"


def _tags(cell: Mapping[str, Any]) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def inject(nb: nbformat.NotebookNode, values: Mapping[str, Any]) -> None:
    """Puts ``name = value`` lines for the given parameters right after the 'parameters' cell."""
    nb.cells = [c for c in nb.cells if INJECTED_TAG not in _tags(c)]
    if not values:
        return
    where = next((i for i, c in enumerate(nb.cells) if PARAMETERS_TAG in _tags(c)), None)
    if where is None:
        raise ValueError("the notebook has no cell tagged 'parameters'")
    source = "# Parameters given to this run\n" + "".join(
        f"{k} = {v!r}\n" for k, v in values.items()
    )
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": [INJECTED_TAG]})
    nb.cells.insert(where + 1, cell)


def _relative(path: str | os.PathLike[str], start: Path) -> str:
    """A path as the notebook (which runs in its own folder) should see it."""
    absolute = Path(path).resolve()
    try:
        return os.path.relpath(absolute, start)
    except ValueError:  # another drive on Windows
        return str(absolute)


def kernel_manager(socket_dir: str) -> KernelManager:
    """The notebook's kernel, talking to us over Unix sockets in a private folder (absolute paths:
    the kernel runs in the notebook's folder). Over TCP, Jupyter's default, ipykernel warns that
    its loopback traffic is not encrypted; where there are no Unix sockets (Windows) we say once
    what that warning means."""
    if os.name == "posix":
        return KernelManager(
            kernel_name="python3", transport="ipc", ip=os.path.join(socket_dir, "kernel")
        )
    print(
        "run_notebook: the kernel is local and listens on 127.0.0.1 only; its warning about TCP "
        "without encryption concerns other users of this machine",
        file=sys.stderr,
    )
    return KernelManager(kernel_name="python3")


def execute(
    results: Sequence[str | os.PathLike[str]] | None = None,
    figures_dir: str | os.PathLike[str] | None = None,
    notebook: Path = NOTEBOOK,
    output: Path | None = None,
    timeout: int = 600,
    extra: Mapping[str, Any] | None = None,
) -> nbformat.NotebookNode:
    """Executes the notebook in its own folder; writes the executed copy to output if given.
    ``extra`` sets further parameters by name (paths are passed as they are, so make them
    absolute)."""
    nb = nbformat.read(notebook, as_version=4)
    values: dict[str, Any] = dict(extra or {})
    if results:
        values["results"] = [_relative(p, notebook.parent) for p in results]
    if figures_dir is not None:
        values["figures_dir"] = _relative(figures_dir, notebook.parent)
    inject(nb, values)
    with tempfile.TemporaryDirectory(prefix="dbf0-kernel-") as sockets:
        km = kernel_manager(sockets)
        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            km=km,
            resources={"metadata": {"path": str(notebook.parent)}},
        )
        try:
            client.execute()
        finally:
            # A client given its kernel manager leaves the kernel running; stop it here, or it
            # outlives us and prints "Parent appears to have exited".
            if km.has_kernel:
                km.shutdown_kernel()
    if output is not None:
        nbformat.write(nb, output)
    return nb


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="run_notebook.py",
        description="Executes benchmarks/analysis.ipynb headless with the given results files, "
        "saving its figures; writes the executed notebook to --output, or back into the notebook "
        "with --in-place.",
    )
    p.add_argument(
        "results",
        nargs="*",
        type=Path,
        metavar="RESULTS.jsonl",
        help="results files (default: the ones named in the notebook's parameters cell)",
    )
    p.add_argument(
        "--figures",
        type=Path,
        metavar="DIR",
        help="where the notebook saves its figures (default with --output: "
        "benchmarks/results/figures/notebook, which git ignores; with --in-place: the "
        "committed folders under benchmarks/figures). With --output, the figures the "
        f"notebook draws from the committed reference data go to DIR/{REFERENCE_SUBFOLDER}",
    )
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--output", type=Path, help="write the executed notebook here")
    where.add_argument(
        "--in-place",
        action="store_true",
        help="write it back to benchmarks/analysis.ipynb (to refresh the committed copy)",
    )
    args = p.parse_args(argv)
    missing = [str(path) for path in args.results if not path.is_file()]
    if missing:
        print(f"run_notebook.py: no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    output = NOTEBOOK if args.in_place else args.output
    figures_dir, extra = args.figures, {}
    if not args.in_place:
        # Keep the committed figures as they are: this run's figures go where git does not look.
        figures_dir = figures_dir or OWN_FIGURES
        extra["modes_figures_dir"] = str(Path(figures_dir).resolve() / REFERENCE_SUBFOLDER)
    try:
        execute(args.results, figures_dir, output=output, extra=extra)
    except CellExecutionError as e:
        print(
            f"run_notebook.py: a cell of {NOTEBOOK.name} failed: {_last_line(e)}", file=sys.stderr
        )
        return 1
    print(
        f"executed {NOTEBOOK} on {', '.join(map(str, args.results)) or 'its default results'} -> "
        f"{output}; figures in {figures_dir or 'benchmarks/figures'}"
    )
    if "modes_figures_dir" in extra:
        print(
            "figures drawn from the committed reference data (client modes, server models, maps, "
            f"scaling, durability, Redis, disk): {extra['modes_figures_dir']}"
        )
    return 0


def _last_line(error: Exception) -> str:
    """The exception line of a cell's traceback (nbclient puts the whole traceback in the
    message)."""
    lines = [line for line in str(error).splitlines() if line.strip()]
    named = [line for line in lines if re.match(r"^\w*(Error|Exception|Interrupt)\b", line)]
    return (named or lines or ["unknown error"])[-1].strip()
