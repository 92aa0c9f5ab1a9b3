"""What ``ovonehot run`` says of each output beyond its shape, as ``polygraphy run`` does: min,
max, mean, standard deviation, NaN and infinity counts, and for a large output a small text
histogram of its finite values.

The numbers are computed in chunks in float64 (an output may be most of the memory there is),
so a float64 copy of the whole output is never made; integer minima and maxima are exact.
Strings and raw bytes have no statistics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# Elements read at a time.
CHUNK = 1 << 20
# A histogram for outputs with more elements than this (smaller ones print their values).
HISTOGRAM_ABOVE = 64
BINS = 10
BAR_WIDTH = 30


@dataclass(frozen=True, slots=True)
class Stats:
    """An output's statistics; min/max/mean/std over its finite values (None when it has none)."""

    count: int
    minimum: float | int | None
    maximum: float | int | None
    mean: float | None
    std: float | None
    nan: int
    posinf: int
    neginf: int
    # (low, high, count) per bin; the last bin includes its high end.
    histogram: tuple[tuple[float, float, int], ...] = ()

    def lines(self) -> list[str]:
        """The text ``run`` prints under the output's shape line."""
        if self.minimum is None:
            head = f"stats: no finite values ({self.count} elements)"
        else:
            head = (
                f"stats: min {_number(self.minimum)} max {_number(self.maximum)} mean {_number(self.mean)} "
                f"std {_number(self.std)}"
            )
        lines = [f"{head} | nan {self.nan} +inf {self.posinf} -inf {self.neginf}"]
        if self.histogram:
            top = max(k for _, _, k in self.histogram) or 1
            labels = [
                f"[{_number(lo)}, {_number(hi)}{']' if i == len(self.histogram) - 1 else ')'}"
                for i, (lo, hi, _) in enumerate(self.histogram)
            ]
            width = max(len(label) for label in labels)
            digits = max(len(str(k)) for _, _, k in self.histogram)
            lines.append("histogram of the finite values:")
            for label, (_, _, k) in zip(labels, self.histogram, strict=True):
                bar = "#" * math.ceil(BAR_WIDTH * k / top) if k else ""
                lines.append(f"  {label:<{width}} {k:>{digits}} {bar}".rstrip())
        return lines

    def as_json(self) -> dict[str, object]:
        return {
            "min": self.minimum,
            "max": self.maximum,
            "mean": self.mean,
            "std": self.std,
            "nan": self.nan,
            "posinf": self.posinf,
            "neginf": self.neginf,
        }


def _number(value: float | int | None) -> str:
    if value is None:
        return "-"
    return str(value) if isinstance(value, int) else f"{value:.6g}"


def numeric(value: np.ndarray) -> bool:
    """Whether ``value`` has statistics: numbers and booleans (bf16/f8 included), not strings."""
    if value.dtype.kind in "biuf":
        return True
    if value.dtype.isbuiltin == 2:  # ml_dtypes (bf16, f8, i4): convertible to float64
        try:
            np.zeros(1, value.dtype).astype(np.float64)
        except (TypeError, ValueError):
            return False
        return True
    return False


def _chunks(value: np.ndarray) -> list[np.ndarray]:
    flat = value.reshape(-1)
    return [flat[k : k + CHUNK] for k in range(0, flat.size, CHUNK)]


def output_stats(value: np.ndarray) -> Stats | None:
    """The statistics of an output, None when it has none (strings, raw bytes, no elements)."""
    if value.size == 0 or not numeric(value):
        return None
    exact = value.dtype.kind in "biu"
    nan = posinf = neginf = finite = 0
    total = 0.0
    low: float | int | None = None
    high: float | int | None = None
    with np.errstate(all="ignore"):
        for chunk in _chunks(value):
            wide = chunk.astype(np.float64)
            good = np.isfinite(wide)
            nan += int(np.isnan(wide).sum())
            posinf += int(np.isposinf(wide).sum())
            neginf += int(np.isneginf(wide).sum())
            if not good.any():
                continue
            kept = chunk if exact else wide[good]
            lo, hi = (int(kept.min()), int(kept.max())) if exact else (float(kept.min()), float(kept.max()))
            low = lo if low is None else min(low, lo)
            high = hi if high is None else max(high, hi)
            finite += int(good.sum())
            total += float(wide[good].sum())
        if low is None or high is None:
            return Stats(value.size, None, None, None, None, nan, posinf, neginf)
        mean = total / finite
        squares = sum(float(np.square(w[np.isfinite(w)] - mean).sum()) for w in map(_wide, _chunks(value)))
        histogram = _histogram(value, float(low), float(high)) if value.size > HISTOGRAM_ABOVE else ()
    return Stats(value.size, low, high, mean, math.sqrt(squares / finite), nan, posinf, neginf, histogram)


def _wide(chunk: np.ndarray) -> np.ndarray:
    return chunk.astype(np.float64)


def _histogram(value: np.ndarray, low: float, high: float) -> tuple[tuple[float, float, int], ...]:
    """BINS equal bins from the smallest to the largest finite value (one bin when they are equal)."""
    bins = 1 if low == high or not math.isfinite(high - low) else BINS
    edges = np.linspace(low, high, bins + 1) if bins > 1 else np.array([low, high])
    counts = np.zeros(bins, np.int64)
    for chunk in _chunks(value):
        wide = chunk.astype(np.float64)
        counts += np.histogram(wide[np.isfinite(wide)], bins=edges)[0]
    return tuple((float(edges[k]), float(edges[k + 1]), int(counts[k])) for k in range(bins))
