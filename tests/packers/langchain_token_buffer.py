"""LangChain's token-buffer memory, ported: drop the oldest message while the history is
over the limit, counting the whole history again after every drop (quadratic, as the
original), each message counted with its role prefix.

Source: langchain-ai/langchain, libs/langchain/langchain/memory/token_buffer.py
(``ConversationTokenBufferMemory.save_context``: ``if curr_buffer_length >
self.max_token_limit``, then ``while curr_buffer_length > self.max_token_limit:
pruned_memory.append(buffer.pop(0))`` and ``curr_buffer_length =
self.llm.get_num_tokens_from_messages(buffer)``; the base model's count is that of
``get_buffer_string([m])`` for each message, ``"Human: "`` before its content).  A
message's tokens are its size, its prefix 2 more.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._ported import Message, count_tokens, port

#: The tokens of a message's role prefix (``Human: ``).
PREFIX_TOKENS = 2


@port()
def prune(
    max_token_limit: int,
    buffer: list[Message],
    *,
    over: Callable[[int, int], bool] = lambda length, limit: length > limit,
    oldest: bool = True,
    prefix: int = PREFIX_TOKENS,
) -> tuple[list[Message], int]:
    """The port: the oldest messages dropped until the history fits."""
    curr_buffer_length = count_tokens(buffer, prefix)
    if curr_buffer_length > max_token_limit:
        # get_num_tokens_from_messages reads every message again: the loop is quadratic.
        while over(curr_buffer_length, max_token_limit):
            buffer.pop(0 if oldest else -1)
            curr_buffer_length = count_tokens(buffer, prefix)
    return buffer, max_token_limit - curr_buffer_length


def prune_ge(case: dict[str, Any]) -> dict[str, Any]:
    """``>=`` for ``>`` in the loop: a history that fills the limit exactly loses a message."""
    return prune(case, over=lambda length, limit: length >= limit)


def prune_newest(case: dict[str, Any]) -> dict[str, Any]:
    """``buffer.pop()`` for ``buffer.pop(0)``: the newest message is dropped first."""
    return prune(case, oldest=False)


def prune_no_prefix(case: dict[str, Any]) -> dict[str, Any]:
    """Each message counted without its role prefix (its content's tokens alone)."""
    return prune(case, prefix=0)


REGRESSIONS = {
    "prune": {
        "prune_ge": "while curr_buffer_length >= limit (for >)",
        "prune_newest": "buffer.pop() (for pop(0))",
        "prune_no_prefix": "the content's tokens alone (the role prefix not counted)",
    }
}
