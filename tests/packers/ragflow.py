"""RAGFlow's knowledge prompt, ported: retrieved chunks are taken in order until their
running token count passes a 0.97 share of the model's limit (the rest is kept back
for the answer), then the list is cut there.

Source: infiniflow/ragflow, rag/prompts (``kb_prompt``: ``used_token_count`` adds each
chunk's tokens and ``if max_tokens * 0.97 < used_token_count: knowledges =
knowledges[:i]; break``).  It follows a rule of its own (a share of the budget, a stop
at the first misfit), so it is checked against its own one-line regressions with
``diff``: a threshold set by a ratio is where a counterexample's magnitudes must come
back small.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._ported import Message, port

#: The share of the budget the chunks may use.
SHARE = 0.97


@port()
def kb_prompt(
    max_tokens: int,
    chunks: list[Message],
    *,
    over: Callable[[float, int], bool] = lambda share, used: share < used,
) -> tuple[list[Message], int]:
    """The port: units checked, then the chunks cut where the share is passed."""
    used_token_count = 0
    knowledges: list[Message] = chunks
    for i, chunk in enumerate(chunks):
        used_token_count += chunk[1]
        if over(max_tokens * SHARE, used_token_count):
            knowledges = chunks[:i]
            break
    return knowledges, max_tokens - sum(tokens for _, tokens in knowledges)


def kb_prompt_le(case: dict[str, Any]) -> dict[str, Any]:
    """``<=`` for ``<``: chunks that fill the share exactly are cut too."""
    return kb_prompt(case, over=lambda share, used: share <= used)


REGRESSIONS = {"kb_prompt": {"kb_prompt_le": "if max_tokens * 0.97 <= used_token_count (for <)"}}
