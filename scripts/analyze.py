#!/usr/bin/env python3
"""Prints the best-configuration table of one or more results files as Markdown and writes the
figures; --help for the options. The logic lives in python/dbf0lab (analysis, figures)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from dbf0lab.analyze_cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
