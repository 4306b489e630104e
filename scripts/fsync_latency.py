#!/usr/bin/env python3
"""The fsync latency of the disk under a directory, measured alone: append N small records to a
file, fdatasync after each (what dbf0's --fsync always costs a lone writer), and print the
percentiles. Usage: python3 scripts/fsync_latency.py DIR [N] [RECORD_BYTES]"""

import os
import sys
import time


def main():
    directory = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    size = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    path = os.path.join(directory, "fsync-latency.tmp")
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC | os.O_APPEND, 0o600)
    record = b"x" * size
    times = []
    try:
        for _ in range(n):
            os.write(fd, record)
            start = time.perf_counter()
            os.fdatasync(fd)  # the same call as FileChannel.force(false)
            times.append(time.perf_counter() - start)
    finally:
        os.close(fd)
        os.unlink(path)
    times.sort()

    def pct(p):
        return times[min(len(times) - 1, int(p / 100 * len(times)))] * 1e6

    mean = sum(times) / len(times) * 1e6
    print(
        f"{n} appends of {size} B, fdatasync after each, in {directory}: mean {mean:.0f} us, p50 "
        f"{pct(50):.0f} us, p99 {pct(99):.0f} us, max {times[-1] * 1e6:.0f} us, so at most "
        f"{1e6 / mean:,.0f} fsyncs/s for one writer"
    )


if __name__ == "__main__":
    main()
