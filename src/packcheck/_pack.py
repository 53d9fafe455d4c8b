"""``pack``: a case in, the declared output out."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain, compress
from typing import Any

import numpy as np

from . import scan
from ._engines import CROSSOVER, ENGINES, Engine, kept_flags
from ._model import Case, SizeError, plain_fields, read_case
from ._order import sorted_utf16
from ._plain import pack_plain

__all__ = [
    "SIZE_ERROR",
    "Read",
    "declared_output",
    "pack",
    "pack_many",
    "pack_reads",
    "read_for_pack",
]

#: A case read for packing: ``(budget, ids, sizes, required)``, or ``None`` for a
#: case whose declared result is ``{"error": "size"}``.
Read = tuple[int, Sequence[str], Sequence[int], Sequence[str]] | None

#: The declared result of a case with an invalid budget or size.
SIZE_ERROR: dict[str, Any] = {"error": "size"}


def declared_output(case: Case, kept: Sequence[bool], remaining: int) -> dict[str, Any]:
    """Build ``{"kept", "remaining", "missing"}`` from a kept mask.

    ``missing`` keeps every required entry (repeats too) whose ID was not kept, in
    UTF-16 code-unit order.  O(n + r log r).
    """
    return _output(case.ids, kept, remaining, case.required)


def _output(
    ids: Sequence[str], kept: Iterable[object], remaining: int, required: Sequence[str]
) -> dict[str, Any]:
    kept_ids = list(compress(ids, kept))
    missing = missing_ids(required, kept_ids) if required else []
    return {"kept": kept_ids, "remaining": remaining, "missing": missing}


def missing_ids(required: Iterable[str], kept_ids: Iterable[str]) -> list[str]:
    """The required entries not among ``kept_ids``, repeats kept, UTF-16 order."""
    wanted = list(required)
    # Only the required IDs are hashed into a set; the kept IDs are looked up in it.
    present = set(wanted).intersection(kept_ids)
    return sorted_utf16([w for w in wanted if w not in present] if present else wanted)


def pack(case: object, *, engine: Engine = "reference") -> dict[str, Any]:
    """The declared output of ``case``: ``{"kept", "remaining", "missing"}``.

    Returns ``{"error": "size"}`` when the budget or any block's size is not a valid
    unit, wherever that block stands.  Raises :class:`packcheck.MalformedCase` when
    ``case`` is not shaped like a case.  ``engine`` picks the algorithm
    (``"reference"`` or ``"numpy"``); it affects speed, never the result.
    The input is not modified.
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    # Most cases: read and packed in one loop (the NumPy kernel only pays from CROSSOVER).
    answer = pack_plain(case, None if engine == "reference" else CROSSOVER)
    if answer is not None:
        return answer
    plain = plain_fields(case)
    if plain is not None:
        # Long plain cases for the kernel: read at C speed, no Case built.
        budget, ids, sizes, required = plain
        kept, remaining = kept_flags(budget, sizes, engine)
        return _output(ids, kept, remaining, required)
    read = read_case(case)
    if isinstance(read, SizeError):
        return dict(SIZE_ERROR)
    flags, left = kept_flags(read.budget, read.sizes, engine)
    return _output(read.ids, flags, left, read.required)


def read_for_pack(case: object) -> Read:
    """``case`` read for :func:`pack_reads`; raises :class:`packcheck.MalformedCase`."""
    plain = plain_fields(case)
    if plain is not None:
        return plain
    read = read_case(case)
    if isinstance(read, SizeError):
        return None
    return read.budget, read.ids, read.sizes, read.required


def pack_many(cases: Iterable[object], *, engine: Engine = "reference") -> list[dict[str, Any]]:
    """:func:`pack` of every case, in order; the same answers, packed together.

    With ``engine="numpy"`` every case is read first, then all are packed in one call
    of :func:`packcheck.scan.pack_batch`.  Raises :class:`packcheck.MalformedCase`
    for the first malformed case, as :func:`pack` would.
    """
    if engine == "reference":
        # One case at a time is all the reference does.
        return [pack(case) for case in cases]
    return pack_reads([read_for_pack(case) for case in cases], engine)


def pack_reads(reads: Sequence[Read], engine: Engine) -> list[dict[str, Any]]:
    """The declared output of each read case, in order (see :func:`pack_many`)."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    valid = [read for read in reads if read is not None]
    batched = _batched(valid) if engine == "numpy" and len(valid) > 1 else None
    outputs: list[dict[str, Any]] = []
    at = 0
    for read in reads:
        if read is None:
            outputs.append(dict(SIZE_ERROR))
            continue
        budget, ids, sizes, required = read
        if batched is None:
            kept, remaining = kept_flags(budget, sizes, engine)
            outputs.append(_output(ids, kept, remaining, required))
        else:
            mask, lefts, offsets = batched
            outputs.append(_output(ids, mask[offsets[at] : offsets[at + 1]], lefts[at], required))
        at += 1
    return outputs


def _batched(reads: Sequence[Read]) -> tuple[bytes, list[int], list[int]] | None:
    """Kept flags (as 0/1 bytes), remainings and offsets of ``reads`` by pack_batch.

    ``None`` when a budget or size does not fit int64: each case is then packed alone,
    where such values are clipped or answered exactly.
    """
    budgets = [read[0] for read in reads if read is not None]
    lengths = [len(read[2]) for read in reads if read is not None]
    offsets: list[int] = np.cumsum([0, *lengths]).tolist()
    try:
        sizes = np.fromiter(
            chain.from_iterable(read[2] for read in reads if read is not None),
            dtype=np.int64,
            count=offsets[-1],
        )
        budget_array = np.array(budgets, dtype=np.int64)
    except OverflowError:
        return None
    kept, remaining = scan.pack_batch(budget_array, sizes, offsets)
    return kept.tobytes(), remaining.tolist(), offsets
