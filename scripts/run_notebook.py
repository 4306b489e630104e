#!/usr/bin/env python3
"""Executes benchmarks/analysis.ipynb headless with results files as its parameter; --help.
The logic lives in python/dbf0lab/notebook.py."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from dbf0lab.notebook import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
