"""The invariants of a declared rule other than the seed's, whose facts (every skip
forced, ``sum(kept) + remaining == budget``) do not hold under it; a captured partition
is judged by the facts :mod:`packcheck.audit` judges it by."""

from __future__ import annotations

from collections import Counter

from .._partition.facts import InvariantError, check_partition
from .._partition.invariants import answer_fields
from .._rule.declared import Rule
from .._rule.interpret import REFUSED, SIZE_ERROR, interpret
from .._rule.jsonio import show
from .._rule.order import all_same_utf16

__all__ = ["check_rule_output", "negative_allowed"]

_PARTITION = "partition"


def _show(value: object) -> str:
    return show(value, 120)


def negative_allowed(rule: Rule) -> bool:
    """Whether the rule's ``remaining`` may go below 0."""
    return (
        (rule.pin != "none" and rule.pin_overflow == "allow")
        or rule.on_misfit == "overshoot"
        or rule.reserve > 0
    )


def _refusal(rule: Rule) -> str:
    """The refusals the rule declares, in its keys' words."""
    named = [
        f"refuse_budget_below = {rule.refuse_budget_below}" if rule.refuse_budget_below else "",
        "refuse_empty = true" if rule.refuse_empty else "",
        'pin_overflow = "refuse"' if rule.pin_overflow == "refuse" and rule.pin != "none" else "",
    ]
    return ", ".join(word for word in named if word) or "no key that refuses"


def check_rule_output(rule: Rule, case: object, output: object) -> None:
    """Raise :class:`InvariantError` naming the first of ``rule``'s facts ``output``
    breaks, unless it is the rule's answer to ``case``.  O(n + r log r)."""
    expected = interpret(rule, case).result
    # Check the size error, which no rule changes.
    if (expected == SIZE_ERROR) != (output == SIZE_ERROR):
        why = "an invalid unit" if expected == SIZE_ERROR else "every unit is valid"
        raise InvariantError("size error", f"{why}; the rule answers {_show(expected)}")
    # Check the refusal: only where the rule refuses, and always there.
    if expected == REFUSED and output != REFUSED:
        raise InvariantError(
            "refusal", f'the rule refuses this case ({_refusal(rule)}): {{"error":"refused"}}'
        )
    if output == REFUSED and expected != REFUSED:
        raise InvariantError("refusal", f"the rule does not refuse this case ({_refusal(rule)})")
    if expected in (SIZE_ERROR, REFUSED):
        return
    # Check the shape: exactly the three keys, with exact types.
    output, kept, remaining, missing = answer_fields(output)
    # Check remaining >= 0, where the rule never goes below it.
    if remaining < 0 and not negative_allowed(rule):
        raise InvariantError("remaining >= 0", f"remaining is {_show(remaining)}")
    # Check kept: the blocks the rule keeps, in its output order.
    kept, want = all_same_utf16(kept), expected["kept"]
    if kept != want:
        at = next(
            (i for i, pair in enumerate(zip(kept, want, strict=False)) if pair[0] != pair[1]),
            min(len(kept), len(want)),
        )
        raise InvariantError(
            "kept as the rule keeps",
            f"kept[{at}] is {_show(kept[at]) if at < len(kept) else 'absent'}, the rule's "
            f"{_show(want[at]) if at < len(want) else 'absent'} (the rule keeps {_show(want)})",
        )
    # Check remaining: the budget less the reserve and every charge (or the sizes).
    if remaining != expected["remaining"]:
        what = "the sizes kept" if rule.remaining == "sizes" else "the reserve and every charge"
        raise InvariantError(
            "remaining as the rule charges",
            f"the budget less {what} is {_show(expected['remaining'])}, "
            f"but remaining is {_show(remaining)}",
        )
    # Check missing: required minus kept, repeats kept, in UTF-16 code-unit order.
    missing = all_same_utf16(missing)
    if missing != expected["missing"]:
        fact = (
            "missing in UTF-16 order"
            if Counter(missing) == Counter(expected["missing"])
            else "missing == required - kept"
        )
        raise InvariantError(fact, f"got {_show(missing)}, expected {_show(expected['missing'])}")
    # Check a captured partition: the rule's, fact by fact, the first broken named in
    # the rule's terms (as audit names it).
    captured = output.get(_PARTITION)
    if captured is not None:
        check_partition(case, captured, kept=kept, rule=rule)
