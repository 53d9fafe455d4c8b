"""Each port of a real packer (tests/packers) answers exactly as the interpreter under
the rule it declares (issue 38's table), and each of its one-line regressions does not.

A port refuses as a Python packer may: by raising ``ValueError``; that is the rule's
``{"error": "refused"}``.  The ports check units themselves, so ``{"error": "size"}``
answers are compared too.  The JavaScript ports (vue3, vivica) count in doubles, as
their originals do: they agree with the rule while units stay within 2**53 - 1 (past
that a double rounds; see ``test_a_javascript_port_rounds_past_2_53``), so they are
drawn there and the Python ports past int64.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, find, given, settings
from packers import (
    autogen_context,
    langchain_token_buffer,
    langchain_trim,
    llama_memory,
    message_overhead,
    public,
)

from packcheck import Rule
from packcheck._rule.interpret import interpret
from packcheck.strategies import MAX_SAFE_UNITS, cases

Packer = Callable[[dict[str, Any]], dict[str, Any]]

#: Each port, the module holding its regressions, and its declared rule.
DECLARED: list[tuple[Packer, Any, Rule, int]] = [
    (
        autogen_context.pack_validated,
        autogen_context,
        Rule(order="middle-out", on_misfit="stop", refuse_budget_below=1),
        2**70,
    ),
    (
        llama_memory.get,
        llama_memory,
        Rule(order="reversed", on_misfit="stop", refuse_budget_below=1),
        2**70,
    ),
    (
        langchain_trim.trim_last,
        langchain_trim,
        Rule(order="reversed", on_misfit="stop", per_item=3),
        2**70,
    ),
    (
        langchain_token_buffer.prune,
        langchain_token_buffer,
        Rule(order="reversed", on_misfit="stop", per_item=2),
        2**70,
    ),
    (
        message_overhead.pack,
        message_overhead,
        Rule(order="reversed", on_misfit="stop", per_item=7),
        2**70,
    ),
    (public.envyay_build_context, None, Rule(on_misfit="stop", max_count=3), 2**70),
    (
        public.vue3_chartgpt_limit_message_tokens,
        None,
        Rule(order="reversed", on_misfit="stop"),
        MAX_SAFE_UNITS,
    ),
    (
        public.vivica_trim_history,
        None,
        Rule(order="reversed", on_misfit="stop", pin="last"),
        MAX_SAFE_UNITS,
    ),
    (public.urc_sro_context_allocator, None, Rule(), 2**70),
]
# Short lists: three of the ports count the whole history again after each drop.
_SETTINGS = settings(
    max_examples=300, database=None, deadline=None, suppress_health_check=list(HealthCheck)
)


def answer(packer: Packer, case: dict[str, Any]) -> dict[str, Any]:
    """The packer's answer on its own copy of the case; a ``ValueError`` is a refusal."""
    try:
        return packer(copy.deepcopy(case))
    except ValueError:
        return {"error": "refused"}


def agrees(packer: Packer, rule: Rule, case: dict[str, Any]) -> bool:
    got, want = answer(packer, case), interpret(rule, case).result
    return got == want and type(got.get("remaining", 0)) is type(want.get("remaining", 0))


@pytest.mark.parametrize(
    ("packer", "rule", "max_units"),
    [(packer, rule, units) for packer, _, rule, units in DECLARED],
    ids=[packer.__name__ for packer, *_ in DECLARED],
)
def test_each_port_answers_as_its_declared_rule(packer: Packer, rule: Rule, max_units: int) -> None:
    @_SETTINGS
    @given(cases(max_blocks=24, max_units=max_units))
    def check(case: dict[str, Any]) -> None:
        assert answer(packer, case) == interpret(rule, case).result
        assert agrees(packer, rule, case)

    check()


REGRESSED = [
    (getattr(module, name), rule)
    for _, module, rule, _ in DECLARED
    if module is not None
    for regressions in module.REGRESSIONS.values()
    for name in regressions
]


@pytest.mark.parametrize(
    ("regression", "rule"), REGRESSED, ids=[packer.__name__ for packer, _ in REGRESSED]
)
def test_each_one_line_regression_departs_from_the_declared_rule(
    regression: Packer, rule: Rule
) -> None:
    def departs(case: dict[str, Any]) -> bool:
        try:
            return not agrees(regression, rule, case)
        except IndexError:  # prune_ge pops from an empty history at a limit of 0
            return True

    witness = find(
        cases(max_blocks=8, max_units=64, allow_invalid=False),
        departs,
        settings=settings(max_examples=2000, database=None, phases=["generate"]),
    )
    assert len(witness["blocks"]) <= 8


def test_a_javascript_port_rounds_past_2_53() -> None:
    case = {"budget": 2**62 - 2, "blocks": [{"id": "A", "size": 2**62 - 1}], "required": []}
    rule = Rule(order="reversed", on_misfit="stop", pin="last")
    assert interpret(rule, case).result == {"kept": ["A"], "remaining": -1, "missing": []}
    assert public.vivica_trim_history(case) == {"kept": ["A"], "remaining": 0, "missing": []}
