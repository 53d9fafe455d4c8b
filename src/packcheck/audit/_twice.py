"""A record read again for the keys its objects give twice: JSON keeps the last value,
so a key given twice can leave another absent, and only the text can say so."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from decimal import Decimal
from typing import TypeVar

from .._partition.facts import InvariantError
from .._partition.keys import Keyed


def _keyed(pairs: list[tuple[str, object]]) -> Keyed:
    out = Keyed(pairs)
    if len(out) < len(pairs):
        out.twice = tuple(
            key for key, count in Counter(key for key, _ in pairs).items() if count > 1
        )
    return out


_Error = TypeVar("_Error", bound=InvariantError)
_DECODER = json.JSONDecoder(object_pairs_hook=_keyed, parse_float=Decimal)


def read_keyed(text: str, key: str) -> Keyed | None:
    """The object at ``key`` of the record ``text``, with the keys it gives twice; ``None``
    when it gives none twice (or the text cannot be read so: it was read before)."""
    try:
        record = _DECODER.decode(text)
    except (ValueError, ArithmeticError, RecursionError):
        return None
    found = record.get(key) if isinstance(record, dict) else None
    return found if isinstance(found, Keyed) and found.twice else None


def keys_twice(error: _Error, text: str, key: str, check: Callable[[Keyed], object]) -> _Error:
    """``error``, a wrong set of keys in the object at ``key`` of the record ``text``; or,
    where that object gives a key twice, what ``check`` says of it read with the keys
    it gives twice (the same check, in :func:`keys_detail`'s words)."""
    keyed = read_keyed(text, key)
    if keyed is None:
        return error
    try:
        check(keyed)
    except type(error) as again:
        return again
    return error
