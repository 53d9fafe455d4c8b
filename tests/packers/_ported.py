"""The adapter code shared by the ports of real packers (``public``,
``public_regressions``, ``autogen_context``, ``llama_memory``, ``langchain_trim``,
``message_overhead``, ``langchain_token_buffer``, ``lost_middle``, ``ragflow``) and by
the packers of ``faults``.

A block is the library's item (message, document, chunk) and its ``size`` the item's
token count.  A real token counter gives an ``int >= 0``, so checking the case's units is
the caller's job: :func:`port` does it first and answers ``{"error": "size"}`` when it
fails.  The port then runs its library's loop unchanged on the budget and the items, in
the original's kind of number, and :func:`port` answers with what the loop kept.

Each port module has a ``REGRESSIONS`` table: for each entry point, its one-line
regressions (function name -> the line changed), which ``docs/mutation/diff_power.py``
diffs against it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple


class Message(NamedTuple):
    """The library's item: an ID and its token count (the block's size)."""

    id: str
    tokens: Any


Case = dict[str, Any]
Loop = Callable[..., tuple[Sequence[Message], Any]]


def unit(value: object, least: int) -> bool:
    """Whether ``value`` is a whole number of units, at least ``least`` (``True`` is not)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return value.is_integer() and value >= least
    return isinstance(value, int) and value >= least


def messages(case: Case, number: type = int) -> tuple[Any, list[Message]] | None:
    """The budget and the items in the original's kind of number (``int`` for a Python
    original, ``float`` for a JavaScript one's doubles), or ``None`` (a size error)."""
    if not unit(case.get("budget"), 0):
        return None
    if not all(unit(block.get("size"), 1) for block in case["blocks"]):
        return None
    items = [Message(block["id"], number(block["size"])) for block in case["blocks"]]
    return number(case["budget"]), items


def answer(case: Case, kept: Sequence[Message], remaining: Any) -> Case:
    """The declared answer's shape: kept IDs in order, remaining (a whole double as an
    ``int``, as JSON prints it), missing sorted by UTF-16 code units."""
    ids = [message.id for message in kept]
    present = set(ids)
    missing = [want for want in case["required"] if want not in present]
    missing.sort(key=lambda text: text.encode("utf-16-be", "surrogatepass"))
    return {"kept": ids, "remaining": int(remaining), "missing": missing}


def count_tokens(history: Sequence[Message], extra: int = 0) -> int:
    """The tokens of ``history``, each message counted with ``extra`` more (a role
    prefix, a frame): read again in full at every call, as a library's counter does."""
    return sum(message.tokens + extra for message in history)


def port(number: type = int) -> Callable[[Loop], Callable[..., Case]]:
    """A packer of cases from ``loop(budget, items, **options) -> (kept, remaining)``:
    the units checked, the loop run on them in ``number``, its result answered."""

    def packer_of(loop: Loop) -> Callable[..., Case]:
        def packer(case: Case, **options: Any) -> Case:
            read = messages(case, number)
            if read is None:
                return {"error": "size"}
            kept, remaining = loop(*read, **options)
            return answer(case, kept, remaining)

        functools.update_wrapper(packer, loop)
        # Not the loop's signature: bench tells a case packer from a kernel by its own.
        del packer.__wrapped__
        return packer

    return packer_of
