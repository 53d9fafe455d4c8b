"""A rule in full (``packcheck rule show``): every key with its value and what it means."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .._rule.declared import DEFAULTS, Rule, json_value, toml_value

__all__ = ["KeyLine", "RuleShown", "meaning", "show"]

#: What each value of a key with choices means.
CHOICES: dict[str, dict[str, str]] = {
    "order": {
        "given": "the scan meets the blocks that are not pinned in input order",
        "reversed": "the scan meets the blocks that are not pinned last first (newest first)",
        "middle-out": "the scan meets the blocks that are not pinned first, last, second, "
        "second-to-last, ... (the reverse of removing the middle one again and again)",
    },
    "fit": {
        "le": "a block fits when its cost is <= what is left",
        "lt": "a block fits when its cost is < what is left",
    },
    "on_misfit": {
        "skip": "a block that does not fit is skipped, and the scan goes on",
        "stop": "a block that does not fit is skipped, and the scan ends there",
        "overshoot": "a block that does not fit is kept and charged, and the scan ends there",
    },
    "pin": {
        "none": "no block is pinned",
        "first": "the first candidate is always kept, charged before the scan",
        "last": "the last candidate is always kept, charged before the scan",
        "required": "every candidate whose ID is required is always kept, charged before the scan",
    },
    "pin_overflow": {
        "allow": "a pin that does not fit is kept anyway (what is left may go below 0)",
        "refuse": "a pin that does not fit refuses the input",
    },
    "dedup": {
        "none": "blocks that share an ID are all candidates",
        "first": "only the first block of each ID is a candidate",
        "last": "only the last block of each ID is a candidate",
        "kept": "the scan skips, without charge, a block whose ID is already kept",
    },
    "output": {
        "input": "kept lists the kept IDs in input order",
        "scan": "kept lists the pins in input order, then the others in the order kept",
    },
    "remaining": {
        "charged": "remaining is the budget minus the reserve minus every charge",
        "sizes": "remaining is the budget minus the sizes of the kept blocks",
    },
}


def _units(value: Any) -> str:
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator} of a unit"
    return f"{value} unit{'s' if value != 1 else ''}"


#: What each key with a number means: at 0, where it changes nothing, and at ``value``.
_AT_ZERO = {
    "per_item": "each kept block costs its size",
    "separator": "nothing is charged between kept blocks",
    "reserve": "the whole budget is there for the blocks",
    "max_count": "no limit on the number of kept blocks",
    "refuse_budget_below": "no budget is refused",
}
_AT_VALUE: dict[str, Callable[[Any], str]] = {
    "per_item": lambda value: f"each kept block costs its size plus {_units(value)}",
    "separator": lambda value: (
        f"each kept block after the first (pins count) costs {_units(value)} more"
    ),
    "reserve": lambda value: f"{_units(value)} of the budget set aside before any block",
    "max_count": lambda value: (
        f"the scan ends once {value} block{'s are' if value != 1 else ' is'} kept, pins counted"
    ),
    "refuse_budget_below": lambda value: f"a budget below {value} is refused",
}


def meaning(key: str, value: Any) -> str:
    """What ``value`` means for the rule key ``key``, in a sentence without a period."""
    if key in CHOICES:
        return CHOICES[key][value]
    if key in _AT_VALUE:
        return _AT_ZERO[key] if value == 0 else _AT_VALUE[key](value)
    if key == "name":
        return "shown in reports; never changes an answer"
    assert key == "refuse_empty", key
    return "an empty block list is refused" if value else "an empty block list is packed"


@dataclass(frozen=True, slots=True)
class KeyLine:
    """One key of a rule: its value (as TOML), whether it is the default, its meaning."""

    key: str
    value: str
    default: bool
    meaning: str


@dataclass(frozen=True, slots=True)
class RuleShown:
    """A rule in full, with the ``source`` it came from."""

    rule: Rule
    source: str
    keys: tuple[KeyLine, ...]

    def text(self) -> str:
        """The report: the source, a line per key, what the canonical form leaves out."""
        width = max(len(line.key) for line in self.keys)
        value_width = max(len(line.value) for line in self.keys)
        lines = [f"rule from {self.source}"]
        for line in self.keys:
            mark = "  (default)" if line.default else ""
            lines.append(
                f"  {line.key:<{width}}  {line.value:<{value_width}}  {line.meaning}{mark}"
            )
        if self.rule.fixtures:
            count = len(self.rule.fixtures)
            lines.append(f"fixtures: {count} (checked against the rule)")
        unused = self.unused()
        if unused:
            lines.append(
                "the same rule as: "
                + (", ".join(self.rule.canonical().changed()) or "the default rule")
                + f" ({', '.join(unused)} cannot change an answer here)"
            )
        return "\n".join(lines)

    def unused(self) -> list[str]:
        """The keys set away from their default that the canonical form resets."""
        canonical = self.rule.canonical()
        return [
            line.key
            for line in self.keys
            if line.key != "name"
            and not line.default
            and getattr(canonical, line.key) != getattr(self.rule, line.key)
        ]

    def json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "name": self.rule.name,
            "keys": [
                {
                    "key": k.key,
                    "value": json_value(getattr(self.rule, k.key)),
                    "default": k.default,
                    "meaning": k.meaning,
                }
                for k in self.keys
            ],
            "changed": self.rule.changed(),
            "canonical": self.rule.canonical().changed(),
            "unused": self.unused(),
            "fixtures": len(self.rule.fixtures),
        }


def show(rule: Rule, source: str) -> RuleShown:
    """Every key of ``rule`` (``name`` first) with its value and its meaning."""
    return RuleShown(
        rule,
        source,
        tuple(
            KeyLine(key, toml_value(value), value == DEFAULTS[key], meaning(key, value))
            for key, value in rule.keys().items()
        ),
    )
