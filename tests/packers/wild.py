"""Packers in the style of real ones that do NOT follow the declared rule, and one-line
changes of them: what ``packcheck diff`` is for.

Like most packers in the wild, they read the case as they find it (no check of the
units: an odd size raises whatever Python raises on it) and answer in their own way:

* :func:`keep_newest`: a chat-history trimmer: walks from the newest block back,
  keeps blocks while they fit, stops at the first that does not, returns them oldest
  first;
* :func:`strict_budget`: the same trimmer, raising ``ValueError`` on a budget of 0
  (as several real trimmers do);
* :func:`dedup_by_id`: a prompt builder that drops a block whose ID it has already
  packed, then packs greedily in order.

Each ``*_lt``, ``*_order`` or ``*_past_3000`` packer is its base with one line changed.
"""

from __future__ import annotations

from typing import Any


def _answer(case: dict[str, Any], kept: list[str], remaining: Any) -> dict[str, Any]:
    have = set(kept)
    return {
        "kept": kept,
        "remaining": remaining,
        "missing": [r for r in case["required"] if r not in have],
    }


def _newest(case: dict[str, Any], *, exact_fit: bool = True, limit: int = 0) -> dict[str, Any]:
    # ``exact_fit=False`` reads ``<`` for ``<=`` on lists longer than ``limit`` blocks.
    budget = case["budget"]
    kept: list[str] = []
    total = 0
    for block in reversed(case["blocks"]):
        size = block["size"]
        fits = (
            total + size <= budget
            if exact_fit or len(case["blocks"]) <= limit
            else total + size < budget
        )
        if not fits:
            break
        kept.append(block["id"])
        total += size
    return _answer(case, kept[::-1], budget - total)


def keep_newest(case: dict[str, Any]) -> dict[str, Any]:
    """Keep the newest blocks that fit, oldest first; stop at the first misfit."""
    return _newest(case)


def keep_newest_lt(case: dict[str, Any]) -> dict[str, Any]:
    """One line changed: ``<`` for ``<=`` (an exact fit is no longer kept)."""
    return _newest(case, exact_fit=False)


def keep_newest_past_3000(case: dict[str, Any]) -> dict[str, Any]:
    """One line changed, seen only past 3,000 blocks: ``<`` for ``<=`` there."""
    return _newest(case, exact_fit=False, limit=3000)


def strict_budget(case: dict[str, Any]) -> dict[str, Any]:
    """:func:`keep_newest`, raising ``ValueError`` on a budget of 0."""
    if case["budget"] == 0:
        raise ValueError("budget must be positive")
    return _newest(case)


def strict_budget_as_type_error(case: dict[str, Any]) -> dict[str, Any]:
    """:func:`strict_budget` raising another type of exception."""
    if case["budget"] == 0:
        raise TypeError("budget must be positive")
    return _newest(case)


def _dedup(case: dict[str, Any], *, first: bool = True) -> dict[str, Any]:
    seen: dict[str, dict[str, Any]] = {}
    for block in case["blocks"] if first else reversed(case["blocks"]):
        seen.setdefault(block["id"], block)
    unique = list(seen.values()) if first else list(reversed(seen.values()))
    left = case["budget"]
    kept = []
    for block in unique:
        if block["size"] <= left:
            kept.append(block["id"])
            left -= block["size"]
    return _answer(case, kept, left)


def dedup_by_id(case: dict[str, Any]) -> dict[str, Any]:
    """Drop repeated IDs (the first block of an ID stays), then pack greedily."""
    return _dedup(case)


def dedup_by_id_order(case: dict[str, Any]) -> dict[str, Any]:
    """One change of order: the last block of an ID stays."""
    return _dedup(case, first=False)


def _unit(value: object, least: int) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return value.is_integer() and value >= least
    return isinstance(value, int) and value >= least


def keep_newest_checked(case: dict[str, Any]) -> dict[str, Any]:
    """The Python port of ``node wild.js keep_newest``: :func:`keep_newest` on checked
    units, whole numbers as ints (as JSON prints a whole double)."""
    blocks = case["blocks"]
    if not _unit(case.get("budget"), 0) or not all(_unit(b.get("size"), 1) for b in blocks):
        return {"error": "size"}
    whole = {**case, "budget": int(case["budget"])}
    whole["blocks"] = [{**b, "size": int(b["size"])} for b in blocks]
    return _newest(whole)


def missing_from_a_set(case: dict[str, Any]) -> dict[str, Any]:
    """:func:`keep_newest_checked` whose ``missing`` comes from a set of strings: its
    order is the process's hash order."""
    answer = keep_newest_checked(case)
    if "kept" in answer:
        answer["missing"] = list(set(case["required"]) - set(answer["kept"]))
    return answer
