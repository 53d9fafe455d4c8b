"""The order of ``missing``: UTF-16 code units, as JavaScript's default ``sort``."""

from __future__ import annotations

from collections.abc import Iterable


def utf16_key(text: str) -> bytes:
    """Sort key comparing ``text`` by UTF-16 code units (big-endian UTF-16 bytes), so a
    character above U+FFFF sorts before U+E000-U+FFFF; lone surrogates are kept."""
    return text.encode("utf-16-be", "surrogatepass")


def sorted_utf16(texts: Iterable[str]) -> list[str]:
    """``texts`` in UTF-16 code-unit order; stable, repeats kept.  O(n log n)."""
    listed = list(texts)
    if "".join(listed).isascii():
        # Below U+0080 code points are code units: the plain sort, without keys.
        return sorted(listed)
    return sorted(listed, key=utf16_key)


def same_utf16(text: str) -> str:
    """``text`` with each surrogate pair joined into its character, as JSON and JavaScript
    see IDs (``"\\ud83d\\ude00"`` is ``"\\U0001f600"``); lone surrogates stay."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")
    return text


def all_same_utf16(texts: list[str]) -> list[str]:
    """``[same_utf16(text) for text in texts]``, one pass in C when no text holds a
    surrogate."""
    if own_utf16("".join(texts)):
        return list(texts)
    return [same_utf16(text) for text in texts]


def own_utf16(text: str) -> bool:
    """Whether ``text`` holds no surrogate: :func:`same_utf16` leaves it as it is."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def missing_ids(required: Iterable[str], kept_ids: Iterable[str]) -> list[str]:
    """The required entries not among ``kept_ids``, repeats kept, UTF-16 order."""
    wanted = list(required)
    # Only the required IDs are hashed into a set; the kept IDs are looked up in it.
    present = set(wanted).intersection(kept_ids)
    return sorted_utf16([w for w in wanted if w not in present] if present else wanted)
