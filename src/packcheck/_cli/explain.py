"""``--explain``: a trace rendered for a person reading a terminal."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from .._partition.trace import Trace
from .._rule.jsonio import dumps, show_text

#: An ID as typed: plain when printable, JSON-escaped (quoted) otherwise.
show_id = show_text


def _ids(ids: tuple[str, ...]) -> str:
    return ", ".join(map(show_id, ids)) if ids else "-"


def _number(value: int | Fraction) -> str:
    """``value``'s digits at any length (``str()`` refuses past 4,300 digits); a
    fraction (a rule's fractional charges) as ``p/q``."""
    if isinstance(value, Fraction):
        return f"{_number(value.numerator)}/{_number(value.denominator)}"
    if type(value) is int:
        try:
            return str(value)
        except ValueError:
            pass
    return dumps(value)


#: How many of the kept blocks ahead of an evicted ID are named before "N more".
SHOWN_AHEAD = 8


def explain_lines(trace: Trace, where: str) -> Iterator[str]:
    """A human-readable account of ``trace`` for the case at ``where``, line by line:
    the steps, the partition, the result, and why each missing ID is missing (an
    evicted one names the kept blocks ahead of it).  O(n + r) for n steps and r
    missing IDs."""
    yield f"{where}:"
    if trace.size_error is not None:
        yield f"  result: {dumps(trace.result)}"
        yield f"  no packing: {trace.size_error}"
        return
    # Under a declared rule other than the default each step says what happened to it.
    ruled = any(s.event is not None for s in trace.steps)
    header = ("index", "id", "size", "remaining before", "bucket", *(("event",) if ruled else ()))
    rows = [
        (
            str(s.index),
            show_id(s.id),
            _number(s.size),
            _number(s.remaining_before),
            s.bucket,
            *((str(s.event),) if ruled else ()),
        )
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
    because = _RULED_BECAUSE if ruled else {**_RULED_BECAUSE, **_BECAUSE}
    evictions = {} if ruled else _evictions(trace)
    stop = next((s for s in trace.steps if s.event in {"stop", "overshoot"}), None)
    for block_id, reason in trace.reasons.items():
        why = evictions.get(block_id) or because[reason]
        if reason == "stopped" and stop is not None and stop.id == block_id:
            why = f" - it did not fit what was left, and the scan ended there (index {stop.index})"
        elif reason == "stopped" and stop is not None:
            why += f" at {show_id(stop.id)} (index {stop.index}, {stop.event})"
        yield f"  missing {show_id(block_id)}: {reason}{why}"


#: Why a missing ID is missing, after its reason code (an evicted ID of the seed's rule
#: names the blocks ahead of it instead).
_BECAUSE = {
    "not-retrieved": " - no block has this ID",
    "oversized": " - every block with this ID is larger than the whole budget",
}
#: The same under a declared rule other than the default (docs/rules.md).
_RULED_BECAUSE = {
    **_BECAUSE,
    "oversized": " - every block with this ID costs more than the whole budget allows",
    "evicted": " - it did not fit what was left when the scan met it",
    "stopped": " - the scan ended before it",
    "pin-overflow": " - it would fit alone, but not beside the pins",
    "count": " - max_count blocks were kept before the scan met it",
    "duplicate": " - dedup kept another block with this ID, which was not kept",
    "refused": " - the rule refused the input",
}


def _row(cells: tuple[str, ...], widths: list[int]) -> str:
    aligned = [
        cell.rjust(width) if col in (0, 2, 3) else cell.ljust(width)
        for col, (cell, width) in enumerate(zip(cells, widths, strict=True))
    ]
    return ("  " + "  ".join(aligned)).rstrip()


def _evictions(trace: Trace) -> dict[str, str]:
    """For each evicted ID: the kept blocks ahead of its first available copy."""
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
            budget = used + step.remaining_before
            out[step.id] = (
                f" - kept ahead of it: {', '.join(shown)}{more}; they used {_number(used)} of"
                f" {_number(budget)} unit{'' if budget == 1 else 's'},"
                f" leaving {_number(step.remaining_before)} when {show_id(step.id)}"
                f" (size {_number(step.size)}) was reached"
            )
    return out
