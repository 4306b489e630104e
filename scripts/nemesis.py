#!/usr/bin/env python3
"""Kills, pauses and partitions a replicated dbf0 cluster (or Redis Cluster) while clients record
a history, and checks it; --help explains it. The logic lives in python/dbf0lab/nemesis*.py."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from dbf0lab.nemesis import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
