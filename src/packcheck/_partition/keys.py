"""A JSON object's keys as read: which it gave twice, and the one line a wrong set of
keys gets, for an answer and a partition alike."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["Keyed", "keys_detail"]


class Keyed(dict[str, object]):
    """A JSON object as read with the keys it gave more than once (``twice``): a
    reader that keeps the last value loses them, and a key given twice can leave
    another absent."""

    twice: tuple[str, ...] = ()


def keys_detail(keys: Mapping[str, object], extra: Sequence[str], absent: Sequence[str]) -> str:
    """Why ``keys``, an object whose keys are ``extra`` and ``absent`` away from those
    expected, is wrong: a key given twice is named as such."""
    if isinstance(keys, Keyed) and keys.twice:
        plural = "s" if len(keys.twice) > 1 else ""
        twice = f"key{plural} {', '.join(map(repr, keys.twice))} given twice"
        return f"{twice}{f', extra keys {extra}' if extra else ''}, absent keys {absent}"
    return f"extra keys {extra}, absent keys {absent}"
