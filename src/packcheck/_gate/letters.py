"""Readable IDs for a shrunk counterexample: ``A``, ``B``, ``C``... by first appearance
(docs/gate.md, "Reading a counterexample")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["letter", "lettered"]

Case = dict[str, Any]


def letter(index: int) -> str:
    """The ``index``-th letter name, from 0: ``A`` ... ``Z``, ``AA``, ``AB`` ..."""
    name = ""
    index += 1
    while index:
        index, digit = divmod(index - 1, 26)
        name = chr(ord("A") + digit) + name
    return name


def _block_ids(case: Case) -> list[str] | None:
    """The blocks' IDs, or ``None`` unless all IDs are strings in lists."""
    blocks, required = case.get("blocks"), case.get("required")
    if not isinstance(blocks, list) or not isinstance(required, list):
        return None
    if not all(isinstance(b, dict) and type(b.get("id")) is str for b in blocks):
        return None
    if not all(type(want) is str for want in required):
        return None
    return [b["id"] for b in blocks]


def _renamed(case: Case, split: Callable[[str], bool]) -> Case:
    """``case`` lettered; each block of an ID ``split`` holds gets its own letter."""
    names: dict[Hashable, str] = {}

    def name(key: Hashable) -> str:
        return names.setdefault(key, letter(len(names)))

    blocks = []
    first: dict[str, str] = {}
    for index, block in enumerate(case["blocks"]):
        own = block["id"]
        new = name((own, index) if split(own) else (own,))
        first.setdefault(own, new)
        blocks.append({**block, "id": new})
    required = [first.get(want) or name((want,)) for want in case["required"]]
    return {**case, "blocks": blocks, "required": required}


def lettered(case: Case, fails: Callable[[Case], bool], *, tries: int) -> Case:
    """``case`` (which fails) with readable IDs: every block its own letter, else equal
    IDs kept equal, else ``case``; a renaming is kept only if it still fails, at most
    ``tries`` calls of ``fails``."""
    ids = _block_ids(case)
    if ids is None:
        return case
    shared = [own for own, count in Counter(ids).items() if count > 1]
    left = tries

    def attempt(candidate: Case) -> bool:
        nonlocal left
        if candidate == case:
            return True
        if left <= 0:
            return False
        left -= 1
        return fails(candidate)

    distinct = _renamed(case, lambda own: True)
    if attempt(distinct):
        return distinct
    if not shared:  # renamed one for one, the IDs are ``distinct``'s: it passed
        return case
    split: set[str] = set()
    best = _renamed(case, lambda own: False)
    if not attempt(best):
        return case
    for own in shared:
        candidate = _renamed(case, (split | {own}).__contains__)
        if attempt(candidate):
            split.add(own)
            best = candidate
    return best
