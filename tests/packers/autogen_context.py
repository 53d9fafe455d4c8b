"""AutoGen's token-limited chat context, ported: evict the middle message until the rest
fits, counting the whole history again after every eviction (quadratic, as the original).

Source: microsoft/autogen, python/packages/autogen-core/src/autogen_core/model_context/
_token_limited_chat_completion_context.py (``TokenLimitedChatCompletionContext``: the
constructor refuses a limit ``<= 0``; ``get_messages`` pops ``len(messages) // 2`` while
``count_tokens(messages) > token_limit``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._ported import Message, count_tokens, port


@port()
def pack_validated(
    token_limit: int,
    history: list[Message],
    *,
    over: Callable[[int, int], bool] = lambda count, limit: count > limit,
    middle: Callable[[int], int] = lambda n: n // 2,
    refused: Callable[[int], bool] = lambda limit: limit <= 0,
) -> tuple[list[Message], int]:
    """The port: units checked, then AutoGen's middle eviction."""
    if refused(token_limit):
        raise ValueError("token_limit must be greater than 0.")
    kept = list(history)
    token_count = count_tokens(kept)
    # The model client's count_tokens reads every message again: the loop is quadratic.
    while over(token_count, token_limit) and len(kept) > 0:
        kept.pop(middle(len(kept)))
        token_count = count_tokens(kept)
    return kept, token_limit - token_count


def pack_validated_ge(case: dict[str, Any]) -> dict[str, Any]:
    """``>=`` for ``>``: a history that fills the limit exactly is evicted from."""
    return pack_validated(case, over=lambda count, limit: count >= limit)


def pack_validated_middle_left(case: dict[str, Any]) -> dict[str, Any]:
    """``(n - 1) // 2`` for ``n // 2``: the left middle of an even history is evicted."""
    return pack_validated(case, middle=lambda n: (n - 1) // 2)


def pack_validated_limit_zero(case: dict[str, Any]) -> dict[str, Any]:
    """``< 0`` for ``<= 0``: a limit of 0 is accepted (and empties the context)."""
    return pack_validated(case, refused=lambda limit: limit < 0)


REGRESSIONS = {
    "pack_validated": {
        "pack_validated_ge": "while count >= limit (for >)",
        "pack_validated_middle_left": "pop((n - 1) // 2) (for n // 2)",
        "pack_validated_limit_zero": "refuse limit < 0 (for <= 0)",
    }
}
