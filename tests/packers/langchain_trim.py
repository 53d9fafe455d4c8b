"""LangChain's ``trim_messages(strategy="last")`` with its approximate token counter,
ported: the longest suffix whose count fits, found by bisection over prefix lengths of
the reversed history; each message costs its tokens plus 3 (a per-item cost).

Source: langchain-ai/langchain, libs/core/langchain_core/messages/utils.py
(``_last_max_tokens`` reverses the messages and calls ``_first_max_tokens``, which
returns everything when ``token_counter(messages) <= max_tokens`` and otherwise
bisects with ``mid = (left + right + 1) // 2`` for at most ``len(messages).bit_length()``
rounds; ``count_tokens_approximately`` adds ``extra_tokens_per_message=3``).  No
partial messages, no ``start_on``/``end_on``, no system message.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from ._ported import Message, count_tokens, port


def _first_max_tokens(
    history: list[Message],
    max_tokens: int,
    count: Callable[[list[Message]], int],
    *,
    fits: Callable[[int, int], bool],
    upper: int,
) -> list[Message]:
    if not history or count(history) <= max_tokens:
        return history
    left, right = 0, len(history)
    for _ in range(len(history).bit_length()):
        if left >= right:
            break
        mid = (left + right + upper) // 2
        if fits(count(history[:mid]), max_tokens):
            left = mid
        else:
            right = mid - 1
    return history[:left]


@port()
def trim_last(
    max_tokens: int,
    history: list[Message],
    *,
    extra: int = 3,
    fits: Callable[[int, int], bool] = lambda count, limit: count <= limit,
    upper: int = 1,
) -> tuple[list[Message], int]:
    """The port: units checked, then ``trim_messages(strategy="last")``."""
    count = partial(count_tokens, extra=extra)
    newest_first = _first_max_tokens(history[::-1], max_tokens, count, fits=fits, upper=upper)
    kept = newest_first[::-1]
    return kept, max_tokens - count(kept)


def trim_last_lt(case: dict[str, Any]) -> dict[str, Any]:
    """``<`` for ``<=`` in the bisection: a suffix that fills the budget exactly is cut."""
    return trim_last(case, fits=lambda count, limit: count < limit)


def trim_last_extra_4(case: dict[str, Any]) -> dict[str, Any]:
    """``extra_tokens_per_message=4`` for 3."""
    return trim_last(case, extra=4)


def trim_last_mid_floor(case: dict[str, Any]) -> dict[str, Any]:
    """``(left + right) // 2`` for ``(left + right + 1) // 2``: a round can stall."""
    return trim_last(case, upper=0)


REGRESSIONS = {
    "trim_last": {
        "trim_last_lt": "fits when count < max_tokens (for <=)",
        "trim_last_extra_4": "extra_tokens_per_message=4 (for 3)",
        "trim_last_mid_floor": "mid = (left + right) // 2 (for + 1)",
    }
}
