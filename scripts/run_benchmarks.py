#!/usr/bin/env python3
"""Runs a sweep of dbf0 Benchmark trials into a JSONL file; --help explains every option.
The logic lives in python/dbf0lab (sweep_cli, sweep, grid, hosts)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from dbf0lab.sweep_cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
