"""``--explain``: a trace rendered for a person reading a terminal."""

from __future__ import annotations

from collections.abc import Iterator

from .._partition.trace import Trace
from .._rule.jsonio import dumps, show_text

#: An ID as typed: plain when printable, JSON-escaped (quoted) otherwise.
show_id = show_text


def _ids(ids: tuple[str, ...]) -> str:
    return ", ".join(map(show_id, ids)) if ids else "-"


def _number(value: int) -> str:
    """``value``'s digits at any length (``str()`` refuses past 4,300 digits)."""
    if type(value) is int:
        try:
            return str(value)
        except ValueError:
            pass
    return dumps(value)


def _units(count: int, noun: str = "unit") -> str:
    return f"{_number(count)} {noun}" + ("" if count == 1 else "s")


#: How many of the kept blocks ahead of an evicted ID are named before "N more".
SHOWN_AHEAD = 8


def explain_lines(trace: Trace, where: str) -> Iterator[str]:
    """A human-readable account of ``trace`` for the case at ``where``, line by line
    (a trace of 10**6 steps streams).

    Shows the steps (index, id, size, remaining before, bucket), the partition, the
    result, and each missing ID with its reason; an evicted ID names the kept blocks
    ahead of it that used the budget (the first :data:`SHOWN_AHEAD`, then a count).
    O(n + r) for n steps and r missing IDs.
    """
    yield f"{where}:"
    if trace.size_error is not None:
        yield f"  result: {dumps(trace.result)}"
        yield f"  no packing: {trace.size_error}"
        return
    header = ("index", "id", "size", "remaining before", "bucket")
    rows = [
        (str(s.index), show_id(s.id), _number(s.size), _number(s.remaining_before), s.bucket)
        for s in trace.steps
    ]
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
    for cells in (header, *rows):
        yield _row(cells, widths)
    if not trace.steps:
        yield "  (no blocks)"
    part = trace.partition
    yield f"  packed:    {_ids(part.packed)}"
    yield f"  available: {_ids(part.available)}"
    yield f"  dropped:   {_ids(part.dropped)}"
    yield f"  result: {dumps(trace.result)}"
    evictions = _evictions(trace)
    for block_id, reason in trace.reasons.items():
        because = (
            " - no block has this ID"
            if reason == "not-retrieved"
            else " - every block with this ID is larger than the whole budget"
            if reason == "oversized"
            else evictions[block_id]
        )
        yield f"  missing {show_id(block_id)}: {reason}{because}"


def _row(cells: tuple[str, ...], widths: list[int]) -> str:
    aligned = [
        cell.rjust(width) if col in (0, 2, 3) else cell.ljust(width)
        for col, (cell, width) in enumerate(zip(cells, widths, strict=True))
    ]
    return ("  " + "  ".join(aligned)).rstrip()


def _evictions(trace: Trace) -> dict[str, str]:
    """For each evicted ID: the kept blocks ahead of its first available copy, in one pass."""
    evicted = {block_id for block_id, reason in trace.reasons.items() if reason == "evicted"}
    out: dict[str, str] = {}
    names: list[str] = []
    count = used = 0
    for step in trace.steps:
        if step.bucket == "packed":
            count += 1
            used += step.size
            if len(names) <= SHOWN_AHEAD:
                names.append(f"{show_id(step.id)} ({_number(step.size)})")
        elif step.bucket == "available" and step.id in evicted and step.id not in out:
            shown = names[:SHOWN_AHEAD] if count > SHOWN_AHEAD + 1 else names
            more = f", and {count - len(shown)} more" if count > len(shown) else ""
            out[step.id] = (
                f" - kept ahead of it: {', '.join(shown)}{more}; they used {_number(used)} of"
                f" {_units(used + step.remaining_before)},"
                f" leaving {_number(step.remaining_before)} when {show_id(step.id)}"
                f" (size {_number(step.size)}) was reached"
            )
    return out
