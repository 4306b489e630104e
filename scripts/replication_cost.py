#!/usr/bin/env python3
"""Measures what copies cost: dbf0 with 1, 3 and 5 copies beside Redis with a replica; --help
explains it. The logic lives in python/dbf0lab/replication_cost.py."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from dbf0lab.replication_cost import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
