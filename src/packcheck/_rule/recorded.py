"""A rule as a run record carries it (``pack --record``'s ``rule`` key), and how
``audit`` reads it back; a record without one belongs to the rule in use.
"""

from __future__ import annotations

from typing import Any

from .declared import DEFAULTS, KEYS, RULE_KEYS, Rule, RuleError, json_value

__all__ = ["RULE_KEY", "read_recorded", "recorded", "refuses", "same_rule", "shown_rule"]

#: The key of a run record that holds the rule it was packed under.
RULE_KEY = "rule"


def recorded(rule: Rule | None) -> dict[str, Any] | None:
    """The name and the keys that differ from the default (a fraction as ``"p/q"``);
    ``None`` (no key) for a default rule."""
    if rule is None or rule.is_default:
        return None
    changed = [key for key in RULE_KEYS if getattr(rule, key) != DEFAULTS[key]]
    out: dict[str, Any] = {"name": rule.name} if rule.name else {}
    return out | {key: json_value(getattr(rule, key)) for key in changed}


def read_recorded(value: object) -> Rule:
    """The rule a record's ``rule`` value names, else :class:`RuleError` naming the key."""
    if not isinstance(value, dict):
        raise RuleError(RULE_KEY, f"expected an object of rule keys, got {value!r}")
    for key in value:
        if key not in KEYS:
            raise RuleError(f"{RULE_KEY}.{key}", "unknown rule key")
    try:
        return Rule(**value)
    except RuleError as exc:
        raise RuleError(f"{RULE_KEY}.{exc.where}", exc.why) from None


def refuses(rule: Rule | None) -> bool:
    """Whether ``rule`` refuses some input: a budget floor, an empty list, or a pin
    that does not fit under ``pin_overflow = "refuse"``."""
    return rule is not None and bool(
        rule.refuse_budget_below
        or rule.refuse_empty
        or (rule.pin != "none" and rule.pin_overflow == "refuse")
    )


def same_rule(one: Rule | None, other: Rule | None) -> bool:
    """Whether two rules (``None``: the default) have the same keys, ``name`` aside."""
    return (one or _DEFAULT).changed() == (other or _DEFAULT).changed()


def shown_rule(rule: Rule | None) -> str:
    """``the rule NAME (key = value, ...)``, or ``packcheck's own rule`` for a default one."""
    described = None if rule is None else rule.describe()
    return "packcheck's own rule" if described is None else f"the rule {described}"


_DEFAULT = Rule()
