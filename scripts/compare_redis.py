#!/usr/bin/env python3
"""Runs the same redis-benchmark tests against Redis and dbf0 in alternation; --help explains it.
The logic lives in python/dbf0lab/redis_compare.py (installed as dbf0-compare-redis)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from dbf0lab.redis_compare import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
