"""Latency histograms from several bench processes, merged into one distribution.

Percentiles of separate runs cannot be averaged: the p99 of two clients together is not the mean
of their p99s. So each bench result carries its whole HdrHistogram as ``latency_hdr`` (base64 of
HdrHistogram's compressed V2 encoding, see BenchmarkResult.encodeHistogram), and this module
decodes those, adds their counts bucket by bucket, and reads percentiles off the sum the way the
Java HdrHistogram does, so that one histogram read here gives the bench's own ``p99_us``.

The format (HdrHistogram's ``encodeIntoCompressedByteBuffer``): a compressed header (cookie,
length of the deflated bytes), then zlib-deflated: a header of cookie, payload length,
normalizing index offset, significant digits, lowest and highest trackable value, and a
conversion ratio; then the counts array as ZigZag LEB128 varints, a negative one meaning that many
empty buckets.
"""

from __future__ import annotations

import base64
import math
import struct
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field

COMPRESSED_COOKIE = 0x1C849304  # V2 compressed encoding
ENCODING_COOKIE = 0x1C849303  # V2 encoding
WORD_SIZE_BITS = (
    0xF0  # the cookies' bits 4-7 carry a word size (0x10 in V2): not the format's identity
)
HEADER = struct.Struct(
    ">iiiiqqd"
)  # cookie, payload length, index offset, digits, lowest, highest, ratio


@dataclass
class Histogram:
    """Counts per bucket index of one HdrHistogram layout (significant digits and lowest value)."""

    digits: int
    lowest: int
    counts: dict[int, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    # The bucket layout, as HdrHistogram computes it from the digits and the lowest value.
    def _layout(self) -> tuple[int, int]:
        largest_single_unit = 2 * 10**self.digits
        sub_bucket_count_magnitude = math.ceil(math.log2(largest_single_unit))
        half_magnitude = max(sub_bucket_count_magnitude, 1) - 1
        unit_magnitude = int(math.floor(math.log2(self.lowest)))
        return half_magnitude, unit_magnitude

    def value_range(self, index: int) -> tuple[int, int]:
        """The lowest and highest value that count in bucket ``index``."""
        half_magnitude, unit = self._layout()
        half_count = 1 << half_magnitude
        bucket = (index >> half_magnitude) - 1
        sub_bucket = (index & (half_count - 1)) + half_count
        if bucket < 0:
            sub_bucket -= half_count
            bucket = 0
        low = sub_bucket << (bucket + unit)
        return low, low + (1 << (bucket + unit)) - 1

    def percentile(self, p: float) -> int:
        """Java's getValueAtPercentile: the highest value of the bucket where the count reaches
        p %."""
        requested = min(max(math.nextafter(p, -math.inf), 0.0), 100.0)
        wanted = max(1, math.ceil(requested * self.total / 100.0))
        seen = 0
        for index in sorted(self.counts):
            seen += self.counts[index]
            if seen >= wanted:
                low, high = self.value_range(index)
                return low if p == 0 else high
        return 0

    def add(self, other: Histogram) -> None:
        if (other.digits, other.lowest) != (self.digits, self.lowest):
            raise ValueError("histograms of different layouts cannot be added bucket by bucket")
        for index, count in other.counts.items():
            self.counts[index] = self.counts.get(index, 0) + count


def _varints(data: bytes, pos: int, end: int) -> Iterable[int]:
    """ZigZag LEB128 longs, at most 9 bytes each (the ninth carries 8 bits)."""
    while pos < end:
        value, shift = 0, 0
        for i in range(9):
            b = data[pos]
            pos += 1
            if i == 8:
                value |= b << 56
                break
            value |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        yield (value >> 1) ^ -(value & 1)


def decode(text: str) -> Histogram:
    """One ``latency_hdr`` value."""
    raw = base64.b64decode(text)
    cookie, length = struct.unpack_from(">ii", raw)
    if cookie & ~WORD_SIZE_BITS != COMPRESSED_COOKIE:
        raise ValueError(f"not a compressed V2 HdrHistogram (cookie {cookie:#x})")
    body = zlib.decompress(raw[8 : 8 + length])
    cookie, payload, offset, digits, lowest, _highest, _ratio = HEADER.unpack_from(body)
    if cookie & ~WORD_SIZE_BITS != ENCODING_COOKIE:
        raise ValueError(f"not a V2 HdrHistogram encoding (cookie {cookie:#x})")
    if offset != 0:
        raise ValueError("shifted histograms (normalizing index offset) are not supported")
    histogram = Histogram(digits, max(1, lowest))
    index = 0
    for value in _varints(body, HEADER.size, HEADER.size + payload):
        if value < 0:
            index += -value
        else:
            if value:
                histogram.counts[index] = value
            index += 1
    return histogram


def merge(encoded: Iterable[str]) -> Histogram:
    """The sum of several ``latency_hdr`` values (they must share one layout, as bench's do)."""
    merged: Histogram | None = None
    for text in encoded:
        h = decode(text)
        if merged is None:
            merged = h
        else:
            merged.add(h)
    if merged is None:
        raise ValueError("nothing to merge")
    return merged
