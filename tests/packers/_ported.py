"""The adapter code shared by the ports of real chat-history trimmers (the modules
``autogen_context``, ``llama_memory``, ``langchain_trim``, ``message_overhead``,
``langchain_token_buffer`` and ``ragflow``).

A block is the library's message and its ``size`` the message's token count.  A real
token counter gives an ``int >= 0``, so checking the case's units is the caller's job:
:func:`messages` does it first and a port answers ``{"error": "size"}`` when it fails.
Each port then runs its library's loop unchanged and answers with :func:`answer`.

Each port module has a ``REGRESSIONS`` table: for each entry point, its one-line
regressions (function name -> the line changed), which ``docs/mutation/diff_power.py``
diffs against it.
"""

from __future__ import annotations

from typing import Any

Message = tuple[str, int]


def unit(value: object, least: int) -> bool:
    """Whether ``value`` is a whole number of units, at least ``least`` (``True`` is not)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return value.is_integer() and value >= least
    return isinstance(value, int) and value >= least


def messages(case: dict[str, Any]) -> tuple[int, list[Message]] | None:
    """The budget and the ``(id, tokens)`` messages as ints, or ``None`` (a size error)."""
    if not unit(case.get("budget"), 0):
        return None
    if not all(unit(block.get("size"), 1) for block in case["blocks"]):
        return None
    return int(case["budget"]), [(block["id"], int(block["size"])) for block in case["blocks"]]


def answer(case: dict[str, Any], kept: list[Message], remaining: int) -> dict[str, Any]:
    """The declared answer's shape: kept IDs in order, remaining, missing sorted by UTF-16."""
    ids = [block_id for block_id, _ in kept]
    present = set(ids)
    missing = [want for want in case["required"] if want not in present]
    missing.sort(key=lambda text: text.encode("utf-16-be", "surrogatepass"))
    return {"kept": ids, "remaining": remaining, "missing": missing}
