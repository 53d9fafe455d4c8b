"""``pack``: a case in, the declared output out."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import compress
from typing import Any

from ._engines import Engine, kept_mask
from ._model import Case, SizeError, plain_fields, read_case
from ._order import sorted_utf16

__all__ = ["SIZE_ERROR", "declared_output", "pack"]

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
    plain = plain_fields(case)
    if plain is not None:
        # Most cases: read at C speed, no Case built.
        budget, ids, sizes, required = plain
        kept, remaining = kept_mask(budget, sizes, engine)
        return _output(ids, kept, remaining, required)
    read = read_case(case)
    if isinstance(read, SizeError):
        return dict(SIZE_ERROR)
    kept, remaining = kept_mask(read.budget, read.sizes, engine)
    return declared_output(read, kept, remaining)
