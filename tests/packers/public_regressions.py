"""One-line regressions of the ports in ``public.py`` that declare a rule: two each.

Each function is its port with the one line that ``REGRESSIONS`` names changed, as a
teammate's edit would change it; ``verify --rule`` with the port's rule must catch
every one (tests/verify/test_verify_rule.py).
"""

from __future__ import annotations

from typing import Any

from ._ported import Message, port

REGRESSIONS = {
    "envyay_build_context": {
        "envyay_ge": "if total + d.tokens >= max_chars (for >)",
        "envyay_max_docs_4": "max_docs = 4 (for 3)",
    },
    "vue3_chartgpt_limit_message_tokens": {
        "vue3_continue": "continue (for break) at a misfit",
        "vue3_oldest_first": "for i in range(len(messages)) (from the newest)",
    },
    "vivica_trim_history": {
        "vivica_no_guard": "if total + length > max_chars (the `and out` guard dropped)",
        "vivica_ge": "if total + length >= max_chars and out (for >)",
    },
    "urc_sro_context_allocator": {
        "urc_sro_lt": "if cost < budget (for <=)",
        "urc_sro_break": "break (for continue) at a misfit",
    },
}


@port(int)
def _envyay(
    max_chars: int, docs: list[Message], *, ge: bool = False, max_docs: int = 3
) -> tuple[list[Message], int]:
    used_docs: list[Message] = []
    total = 0
    for d in docs:
        over = total + d.tokens >= max_chars if ge else total + d.tokens > max_chars
        if over:
            break
        used_docs.append(d)
        total += d.tokens
        if len(used_docs) >= max_docs:
            break
    return used_docs, max_chars - total


def envyay_ge(case: dict[str, Any]) -> dict[str, Any]:
    return _envyay(case, ge=True)


def envyay_max_docs_4(case: dict[str, Any]) -> dict[str, Any]:
    return _envyay(case, max_docs=4)


@port(float)
def _vue3(
    limit: float, messages: list[Message], *, skip: bool = False, oldest: bool = False
) -> tuple[list[Message], float]:
    kept: list[int] = []
    token_count = 0.0
    order = range(len(messages)) if oldest else range(len(messages) - 1, -1, -1)
    for i in order:
        count = messages[i].tokens
        if count + token_count > limit:
            if skip:
                continue
            break
        token_count += count
        kept.append(i)
    return [messages[i] for i in sorted(kept)], limit - token_count


def vue3_continue(case: dict[str, Any]) -> dict[str, Any]:
    return _vue3(case, skip=True)


def vue3_oldest_first(case: dict[str, Any]) -> dict[str, Any]:
    return _vue3(case, oldest=True)


@port(float)
def _vivica(
    max_chars: float, messages: list[Message], *, guard: bool = True, ge: bool = False
) -> tuple[list[Message], float]:
    total = 0.0
    out: list[Message] = []
    for i in range(len(messages) - 1, -1, -1):
        length = messages[i].tokens
        over = total + length >= max_chars if ge else total + length > max_chars
        if over and (out or not guard):
            break
        out.insert(0, messages[i])
        total += length
    return out, max_chars - total


def vivica_no_guard(case: dict[str, Any]) -> dict[str, Any]:
    return _vivica(case, guard=False)


def vivica_ge(case: dict[str, Any]) -> dict[str, Any]:
    return _vivica(case, ge=True)


@port(int)
def _urc_sro(
    budget: int, docs: list[Message], *, lt: bool = False, stop: bool = False
) -> tuple[list[Message], int]:
    out: list[Message] = []
    for d in docs:
        if (d.tokens < budget) if lt else (d.tokens <= budget):
            out.append(d)
            budget -= d.tokens
        elif stop:
            break
    return out, budget


def urc_sro_lt(case: dict[str, Any]) -> dict[str, Any]:
    return _urc_sro(case, lt=True)


def urc_sro_break(case: dict[str, Any]) -> dict[str, Any]:
    return _urc_sro(case, stop=True)
