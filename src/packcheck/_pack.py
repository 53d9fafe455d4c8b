"""``pack``: a case in, the declared output out."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ._engines import Engine, kept_mask
from ._model import Case, SizeError, read_case
from ._order import sorted_utf16

__all__ = ["SIZE_ERROR", "declared_output", "pack"]

#: The declared result of a case with an invalid budget or size.
SIZE_ERROR: dict[str, Any] = {"error": "size"}


def declared_output(case: Case, kept: Sequence[bool], remaining: int) -> dict[str, Any]:
    """Build ``{"kept", "remaining", "missing"}`` from a kept mask.

    ``missing`` keeps every required entry (repeats too) whose ID was not kept, in
    UTF-16 code-unit order.  O(n + r log r).
    """
    kept_ids = [block_id for block_id, keep in zip(case.ids, kept, strict=True) if keep]
    return {
        "kept": kept_ids,
        "remaining": remaining,
        "missing": missing_ids(case.required, kept_ids),
    }


def missing_ids(required: Iterable[str], kept_ids: Iterable[str]) -> list[str]:
    """The required entries not among ``kept_ids``, repeats kept, UTF-16 order."""
    present = set(kept_ids)
    return sorted_utf16(wanted for wanted in required if wanted not in present)


def pack(case: object, *, engine: Engine = "reference") -> dict[str, Any]:
    """The declared output of ``case``: ``{"kept", "remaining", "missing"}``.

    Returns ``{"error": "size"}`` when the budget or any block's size is not a valid
    unit, wherever that block stands.  Raises :class:`packcheck.MalformedCase` when
    ``case`` is not shaped like a case.  ``engine`` picks the algorithm
    (``"reference"`` or ``"numpy"``); it affects speed, never the result.
    The input is not modified.
    """
    read = read_case(case)
    if isinstance(read, SizeError):
        return dict(SIZE_ERROR)
    kept, remaining = kept_mask(read.budget, read.sizes, engine)
    return declared_output(read, kept, remaining)
