"""``--explain``: a trace rendered for a person reading a terminal."""

from __future__ import annotations

import json

from ._jsonio import dumps
from ._trace import Trace

__all__ = ["explain"]


def show_id(block_id: str) -> str:
    """An ID as typed: plain when printable, JSON-escaped (quoted) otherwise."""
    # A lone surrogate is not printable (category Cs), so a plain ID always encodes.
    if block_id and block_id.isprintable() and block_id.strip() == block_id:
        return block_id
    return json.dumps(block_id)


def _ids(ids: tuple[str, ...]) -> str:
    return ", ".join(map(show_id, ids)) if ids else "-"


def _units(count: int, noun: str = "unit") -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def explain(trace: Trace, where: str) -> str:
    """A multi-line, human-readable account of ``trace`` for the case at ``where``.

    Shows the steps (index, id, size, remaining before, bucket), the partition, the
    result, and each missing ID with its reason; an evicted ID lists the kept blocks
    ahead of it that used the budget.
    """
    lines = [f"{where}:"]
    if trace.size_error is not None:
        lines.append(f"  result: {dumps(trace.result)}")
        lines.append(f"  no packing: {trace.size_error}")
        return "\n".join(lines)
    rows = [("index", "id", "size", "remaining before", "bucket")]
    rows += [
        (str(s.index), show_id(s.id), str(s.size), str(s.remaining_before), s.bucket)
        for s in trace.steps
    ]
    widths = [max(len(row[col]) for row in rows) for col in range(5)]
    for row in rows:
        cells = [
            cell.rjust(width) if col in (0, 2, 3) else cell.ljust(width)
            for col, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  " + "  ".join(cells).rstrip())
    if not trace.steps:
        lines.append("  (no blocks)")
    part = trace.partition
    lines.append(f"  packed:    {_ids(part.packed)}")
    lines.append(f"  available: {_ids(part.available)}")
    lines.append(f"  dropped:   {_ids(part.dropped)}")
    lines.append(f"  result: {dumps(trace.result)}")
    for block_id, reason in trace.reasons.items():
        lines.append(f"  missing {show_id(block_id)}: {reason}{_because(trace, block_id, reason)}")
    return "\n".join(lines)


def _because(trace: Trace, block_id: str, reason: str) -> str:
    if reason == "not-retrieved":
        return " - no block has this ID"
    if reason == "oversized":
        return " - every block with this ID is larger than the whole budget"
    ahead = trace.evicted_by(block_id)
    victim = next(s for s in trace.steps if s.id == block_id and s.bucket == "available")
    used = sum(s.size for s in ahead)
    names = ", ".join(f"{show_id(s.id)} ({s.size})" for s in ahead)
    return (
        f" - kept ahead of it: {names}; they used {_units(used)}, leaving"
        f" {victim.remaining_before} when {show_id(block_id)} (size {victim.size}) was reached"
    )
