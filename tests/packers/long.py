"""Packers whose bugs only long lists reach, and correct packers that read in chunks.

Each buggy packer is correct up to some length (a threshold for a faster path, a chunk
boundary) and wrong beyond it, the way optimised packers break.  Written from docs/rule.md
without packcheck's code.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import broken


def _valid(case: dict[str, Any]) -> bool:
    units = [case.get("budget"), *(b.get("size") for b in case["blocks"])]
    floors = [0] + [1] * (len(units) - 1)
    return all(
        type(u) in (int, float) and float(u).is_integer() and u >= floor
        for u, floor in zip(units, floors, strict=True)
    )


def _output(case: dict[str, Any], kept_ids: list[str], left: int) -> dict[str, Any]:
    have = set(kept_ids)
    missing = sorted(
        (w for w in case["required"] if w not in have),
        key=lambda s: s.encode("utf-16-be", "surrogatepass"),
    )
    return {"kept": kept_ids, "remaining": int(left), "missing": missing}


def chunked(chunk: int, *, skip_boundary: bool = False, forget_carry: bool = False) -> Any:
    """Scan in chunks of ``chunk`` blocks; with ``skip_boundary`` the first block of
    every chunk after the first is skipped (an off-by-one at the chunk boundary); with
    ``forget_carry`` every chunk starts again from the whole budget."""

    def packer(case: dict[str, Any]) -> dict[str, Any]:
        if not _valid(case):
            return {"error": "size"}
        left = int(case["budget"])
        kept: list[str] = []
        blocks = case["blocks"]
        for start in range(0, len(blocks), chunk):
            if forget_carry:
                left = int(case["budget"])
            for offset, block in enumerate(blocks[start : start + chunk]):
                if skip_boundary and start and offset == 0:
                    continue
                size = int(block["size"])
                if size <= left:
                    kept.append(block["id"])
                    left -= size
        return _output(case, kept, left)

    return packer


def fast_path(threshold: int, slow: Any) -> Any:
    """Correct up to ``threshold`` blocks; ``slow`` (a wrong variant) beyond it."""

    def packer(case: dict[str, Any]) -> dict[str, Any]:
        if len(case["blocks"]) > threshold:
            result: dict[str, Any] = slow(case)
            return result
        return broken.correct(case)

    return packer


def _numpy_scan(dtype: Any, *, strict: bool = False) -> Any:
    """A phase scan on ``dtype`` prefix sums, without any overflow or precision guard."""

    def packer(case: dict[str, Any]) -> dict[str, Any]:
        if not _valid(case):
            return {"error": "size"}
        sizes = np.array([b["size"] for b in case["blocks"]]).astype(dtype)
        left = dtype(case["budget"])
        keep = np.zeros(len(sizes), dtype=bool)
        start = 0
        while start < len(sizes):
            sums = np.cumsum(sizes[start:], dtype=dtype)
            fits = sums < left if strict else sums <= left
            count = int(np.argmin(fits)) if not fits.all() else len(fits)
            keep[start : start + count] = True
            if count:
                left = dtype(left - sums[count - 1])
            start += count + 1
            while start < len(sizes) and sizes[start] > left:
                start += 1
        kept = [b["id"] for b, k in zip(case["blocks"], keep, strict=True) if k]
        return _output(case, kept, int(left))

    return packer


float32_sums = _numpy_scan(np.float32)
int32_sums = _numpy_scan(np.int32)
int64_sums = _numpy_scan(np.int64)
float64_sums = _numpy_scan(np.float64)

correct_chunked_4096 = chunked(4096)
correct_chunked_1000 = chunked(1000)
skips_chunk_boundary_4096 = chunked(4096, skip_boundary=True)
skips_chunk_boundary_65536 = chunked(65536, skip_boundary=True)
forgets_carry_3000 = chunked(3000, forget_carry=True)
less_than_past_1500 = fast_path(1500, broken.less_than)
less_than_past_50000 = fast_path(50_000, broken.less_than)
stops_early_past_99999 = fast_path(99_999, broken.stop_at_first_misfit)
float32_past_5000 = fast_path(5000, float32_sums)
int32_past_20000 = fast_path(20_000, int32_sums)
sorted_missing_past_10000 = fast_path(10_000, broken.python_sorted_missing)
skip_repeated_past_2048 = fast_path(2048, broken.skip_repeated_ids)
