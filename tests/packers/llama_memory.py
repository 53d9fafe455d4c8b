"""LlamaIndex's chat memory buffer, ported: the longest suffix of the history that fits,
found by shortening the suffix one message at a time and counting it again each time
(quadratic, as the original).

Source: run-llama/llama_index, llama-index-core/llama_index/core/memory/
chat_memory_buffer.py (``ChatMemoryBuffer``: a limit ``< 1`` is refused; ``get``
shortens ``chat_history[-message_count:]`` while ``token_count > token_limit and
message_count > 1``, then answers ``[]`` when one message alone is over the limit).
The roles (a tool or assistant message is dropped with its neighbour) are left out:
blocks have none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._ported import Message, count_tokens, port


@port()
def get(
    token_limit: int,
    chat_history: list[Message],
    *,
    over: Callable[[int, int], bool] = lambda count, limit: count > limit,
    last_check: bool = True,
    too_long: Callable[[int, int], bool] = lambda count, limit: count > limit,
) -> tuple[list[Message], int]:
    """The port: units checked, then the buffer's suffix search."""
    if token_limit < 1:
        raise ValueError("Token limit must be set and greater than 0.")
    message_count = len(chat_history)
    token_count = count_tokens(chat_history[-message_count:])
    while over(token_count, token_limit) and message_count > 1:
        message_count -= 1
        token_count = count_tokens(chat_history[-message_count:])
    if last_check and (too_long(token_count, token_limit) or message_count <= 0):
        return [], token_limit
    kept = chat_history[-message_count:] if message_count else []
    return kept, token_limit - count_tokens(kept)


def get_ge(case: dict[str, Any]) -> dict[str, Any]:
    """``>=`` for ``>``: a suffix that fills the limit exactly is shortened again."""
    return get(case, over=lambda count, limit: count >= limit)


def get_no_last_check(case: dict[str, Any]) -> dict[str, Any]:
    """The final "one message longer than the limit" check dropped: it is kept, over."""
    return get(case, last_check=False)


def get_last_check_ge(case: dict[str, Any]) -> dict[str, Any]:
    """``>=`` for ``>`` in the final check: a suffix that fills the limit exactly is lost."""
    return get(case, too_long=lambda count, limit: count >= limit)


REGRESSIONS = {
    "get": {
        "get_ge": "while count >= limit (for >)",
        "get_no_last_check": "the final over-the-limit check dropped",
        "get_last_check_ge": "final check token_count >= limit (for >)",
    }
}
