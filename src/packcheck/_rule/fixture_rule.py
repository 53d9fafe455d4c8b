"""The rule of a fixture, as a fixture file records it: its ``rule`` key, the default
rule when it has none, or ``"OLD"`` (``diff``'s OLD answered it).  A run checks the
expected answers of its own rule's fixtures only (:func:`contradiction`).
"""

from __future__ import annotations

from typing import Any

from . import recorded as _recorded
from .declared import Rule, RuleError
from .interpret import interpret
from .jsonio import dumps, show
from .model import MalformedCase
from .rulefile import rule_from_table
from .same import same
from .sources import SourceError

__all__ = ["OLD", "contradiction", "fixture_rule", "others_note", "recorded", "same_rule"]

#: A fixture's ``rule`` when its expected answer is ``diff``'s OLD's, not a rule's.
OLD = "OLD"
_DEFAULT = Rule()


def recorded(rule: Rule | str | None) -> dict[str, Any] | str | None:
    """What a saved fixture records as its ``rule``: as a run record does, :data:`OLD`
    as it is."""
    return rule if isinstance(rule, str) else _recorded.recorded(rule)


def fixture_rule(value: Any, where: str) -> Rule | str:
    """The rule a fixture's ``rule`` value names; :class:`SourceError` if none."""
    if value is None:
        return _DEFAULT
    if value == OLD:
        return OLD
    if not isinstance(value, dict) or "fixtures" in value:
        why = 'expected an object of rule keys (docs/rules.md) or "OLD"'
        raise SourceError(f"{where}: rule: {why}, got {dumps(value)[:80]}")
    try:
        return rule_from_table(value, file=where, prefix="rule.")
    except RuleError as exc:
        raise SourceError(str(exc)) from None


def same_rule(one: Rule | str, other: Rule | str) -> bool:
    """Whether a fixture of ``one`` is a fixture of ``other``: the same keys, the name
    aside (or both :data:`OLD`)."""
    if isinstance(one, str) or isinstance(other, str):
        return one == other
    return _recorded.same_rule(one, other)


def contradiction(rule: Rule | str, case: Any, expected: Any, origin: str) -> str | None:
    """One line naming the fixture (its ``origin``) when its ``expected`` output is not
    its ``rule``'s answer to ``case``; ``None`` when it is, or its rule is :data:`OLD`."""
    if isinstance(rule, str):
        return None
    try:
        answer = interpret(rule, case).result
    except MalformedCase as exc:
        # An input error is any input error: its details are prose.
        if isinstance(expected, dict) and expected.get("error") == "input":
            return None
        why = f"its input is not a case ({exc})"
    else:
        # Equal as JSON values, as `packcheck fixtures` compares: 1e400 is 10**400.
        if same(answer, expected, json=True):
            return None
        why = f"expected {show(expected, 80)} but the rule gives {show(answer, 80)}"
    named = rule.describe() or "the default rule"
    return f"{origin}: contradicts its rule ({named}): {why}"


def others_note(count: int, built_in: int = 0) -> tuple[str, ...]:
    """The notes on the ``count`` fixtures of another rule than the run's, ``built_in``
    of them packcheck's seed cases (of the default rule)."""
    notes = []
    if built_in:
        noun = "fixtures" if built_in != 1 else "fixture"
        notes.append(
            _unchecked(f"packcheck's {built_in:,} built-in {noun}", built_in, "the default")
        )
    others = count - built_in
    if others:
        noun = "fixtures" if others != 1 else "fixture"
        notes.append(_unchecked(f"{others:,} {noun} of another rule", others, "that"))
    return tuple(notes)


def _unchecked(fixtures: str, count: int, rule: str) -> str:
    """What was done with ``count`` ``fixtures`` whose expected answers are ``rule``'s,
    said plainly."""
    if count == 1:
        said = f"expects {rule} rule's answer: its input was run"
    else:
        said = f"expect {rule} rule's answers: their inputs were run"
    return f"{fixtures} {said}, not checked against this rule"
