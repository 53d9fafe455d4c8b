"""A chat-history trimmer with a per-message overhead: from the newest message back, each
costs its tokens plus 7, and the scan stops at the first that does not fit (``>``).

Sources: the per-message overhead of openai/openai-cookbook, examples/
How_to_count_tokens_with_tiktoken.ipynb (``num_tokens_from_messages``: a fixed number of
tokens for every message's frame, with the role and name); the loop of
wangling0126/vue3-chartGPT, src/utils/maxTokenLimit.ts (newest first, ``break`` at the
first misfit, chronological order restored).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._ported import Message, port

#: The frame of one message (role, name, separators), in tokens.
TOKENS_PER_MESSAGE = 7


@port()
def pack(
    limit: int,
    history: list[Message],
    *,
    per_message: int = TOKENS_PER_MESSAGE,
    over: Callable[[int, int], bool] = lambda total, limit: total > limit,
    stop: bool = True,
) -> tuple[list[Message], int]:
    """The packer: newest first, tokens + 7 a message, stop at the first misfit."""
    kept: list[Message] = []
    used = 0
    for message in reversed(history):
        cost = message[1] + per_message
        if over(used + cost, limit):
            if stop:
                break
            continue
        kept.append(message)
        used += cost
    return kept[::-1], limit - used


def pack_ge(case: dict[str, Any]) -> dict[str, Any]:
    """``>=`` for ``>``: a message that fills the budget exactly is no longer kept."""
    return pack(case, over=lambda total, limit: total >= limit)


def pack_overhead_6(case: dict[str, Any]) -> dict[str, Any]:
    """``TOKENS_PER_MESSAGE = 6`` for 7."""
    return pack(case, per_message=6)


def pack_skip(case: dict[str, Any]) -> dict[str, Any]:
    """``continue`` for ``break``: an older message that fits is taken past a misfit."""
    return pack(case, stop=False)


REGRESSIONS = {
    "pack": {
        "pack_ge": "if used + cost >= limit (for >)",
        "pack_overhead_6": "TOKENS_PER_MESSAGE = 6 (for 7)",
        "pack_skip": "continue (for break) at a misfit",
    }
}
