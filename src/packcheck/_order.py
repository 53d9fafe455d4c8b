"""The order of ``missing``: UTF-16 code units, as JavaScript's default ``sort``."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["sorted_utf16", "utf16_key"]


def utf16_key(text: str) -> bytes:
    """Sort key comparing ``text`` by UTF-16 code units.

    Big-endian UTF-16 bytes compare exactly as the code-unit sequence does, so a
    character above U+FFFF (a surrogate pair, 0xD800-0xDBFF first) sorts *before*
    U+E000-U+FFFF, unlike Python's code-point order.  ``surrogatepass`` keeps lone
    surrogates, which are legal IDs.
    """
    return text.encode("utf-16-be", "surrogatepass")


def sorted_utf16(texts: Iterable[str]) -> list[str]:
    """``texts`` in UTF-16 code-unit order; stable, repeats kept.  O(n log n)."""
    return sorted(texts, key=utf16_key)
