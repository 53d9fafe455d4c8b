"""Which rules of the vocabulary give the packer's answers: every combination of the
keys with choices and the probed numbers, narrowed case after case."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Hashable, Iterator, Sequence
from typing import Any

from .._gate.transitions import case_candidates, shape
from .._rule.declared import CHOICES, DEFAULTS, RULE_KEYS, Rule, RuleError
from .._rule.interpret import interpret_case
from ._asking import readable, rule_says
from ._numbers import Numbers

__all__ = ["SLACK", "Candidates", "pool", "simplicity", "tell_apart"]

#: A rule is dropped once it misses this many more cases than the best one (plus an
#: eighth of the cases asked while none gives every answer).
SLACK = 2
#: Drawn cases beside which :func:`tell_apart` walks the transition points.
_WALKED = 50
#: The keys with choices a candidate ranges over (``refuse_empty`` aside).
_DISCRETE = ("order", "fit", "on_misfit", "pin", "pin_overflow", "dedup", "output", "remaining")


def simplicity(rule: Rule) -> tuple[int, tuple[tuple[int, int], ...]]:
    """How far ``rule`` is from the default, to sort by: the number of keys changed,
    then each changed key's place and its value's place among its choices."""
    places = []
    for place, key in enumerate(RULE_KEYS):
        value = getattr(rule, key)
        if value != DEFAULTS[key]:
            choices = CHOICES.get(key)
            rank = choices.index(value) if choices else math.ceil(value)
            places.append((place, rank))
    return len(places), tuple(places)


def candidates(numbers: Numbers) -> list[Rule]:
    """Every rule the discrete keys and the probed numbers make, simplest first."""
    found = []
    discrete = [CHOICES[key] for key in _DISCRETE]
    refuse_empty = (False, True) if numbers.empty_refused else (False,)
    for values in itertools.product(*discrete):
        keys: dict[str, Any] = dict(zip(_DISCRETE, values, strict=True))
        if numbers.charged and keys["remaining"] == "sizes":
            continue
        for (per_item, separator, reserve), count, floor, empty in itertools.product(
            sorted(numbers.charges, key=repr),
            sorted(numbers.counts),
            sorted(numbers.floors),
            refuse_empty,
        ):
            try:
                rule = Rule(
                    **keys,
                    per_item=per_item,
                    separator=separator,
                    reserve=reserve,
                    max_count=count,
                    refuse_budget_below=floor,
                    refuse_empty=empty,
                )
            except RuleError:  # a fractional charge beside remaining = "charged"
                continue
            found.append(rule)
    return sorted(found, key=simplicity)


class Candidates:
    """The rules still in the running, how many cases each has missed, and the cases
    ``asked``."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.misses = dict.fromkeys(rules, 0)
        self.asked = 0

    def check(self, case: dict[str, Any], answer: Hashable) -> None:
        """Count the rules that do not give ``answer``; drop those past the slack."""
        read = readable(case)
        self.asked += 1
        misses = self.misses
        for rule in misses:
            if rule_says(rule, read) != answer:
                misses[rule] += 1
        least = min(misses.values())
        slack = SLACK + (self.asked // 8 if least else 0)
        self.misses = {rule: n for rule, n in misses.items() if n <= least + slack}

    def fitting(self) -> list[Rule]:
        """The rules that missed no case, simplest first."""
        return sorted((rule for rule, n in self.misses.items() if n == 0), key=simplicity)

    def nearest(self) -> tuple[Rule, int] | None:
        """The rule that missed the fewest cases (ties: the simplest), and its misses."""
        if not self.misses:
            return None
        rule = min(self.misses, key=lambda r: (self.misses[r], simplicity(r)))
        return rule, self.misses[rule]

    def drop(self, rule: Rule) -> None:
        """Take ``rule`` out of the running (it failed a check of its own)."""
        self.misses.pop(rule, None)


def _drawn(rng: random.Random, scale: int) -> dict[str, Any]:
    """A small case: up to 6 blocks, repeating IDs, a budget around their cost."""
    count = rng.randint(0, 6)
    letters = "ABCDEF"[: rng.randint(1, 6)]
    ids = [rng.choice(letters) for _ in range(count)]
    sizes = [rng.randint(1, 9) for _ in range(count)]
    required = [i for i in dict.fromkeys(ids) if rng.random() < 0.4]
    if rng.random() < 0.3:
        required.append("Z")
    budget = rng.randint(0, sum(sizes) + count * scale + scale + 2)
    blocks = [{"id": i, "size": s} for i, s in zip(ids, sizes, strict=True)]
    return {"budget": budget, "blocks": blocks, "required": required}


def pool(seed: int, count: int, numbers: Numbers) -> Iterator[dict[str, Any]]:
    """``count`` small cases drawn from ``seed``, then the probe cases, longest last."""
    rng = random.Random(seed)
    scale = max((math.ceil(sum(c)) for c in numbers.charges), default=0)
    for _ in range(count):
        yield _drawn(rng, scale)
    yield from sorted(numbers.asked, key=lambda case: len(case["blocks"]))


def tell_apart(
    one: Rule, other: Rule, cases: Sequence[dict[str, Any]], seed: int, *, drawn: int = 400
) -> dict[str, Any] | None:
    """A case on which ``one`` and ``other`` answer differently, or ``None``: among
    ``cases``, ``drawn`` small ones from ``seed``, then both rules' transition points."""

    def differ(case: dict[str, Any]) -> bool:
        read = readable(case)
        return rule_says(one, read) != rule_says(other, read)

    rng = random.Random(seed)
    scale = max(math.ceil(r.per_item + r.separator + r.reserve) for r in (one, other))
    tried = [*cases, *(_drawn(rng, scale) for _ in range(drawn))]
    found = next((case for case in tried if differ(case)), None)
    if found is not None:
        return found

    def both(case: dict[str, Any]) -> Hashable:
        read = readable(case)
        return shape(_answer(one, read)), shape(_answer(other, read))

    # Past what 8 blocks cost, and past both rules' refusals.
    largest = max(64 * (scale + 9), *(2 * r.refuse_budget_below + 2 for r in (one, other)))
    calls = 2 * largest.bit_length() + 2
    for case in tried[-drawn:][:_WALKED]:
        beside = case_candidates(both, case, max_units=largest, calls=calls)
        found = next((c for c in beside if differ(c)), None)
        if found is not None:
            return found
    return None


def _answer(rule: Rule, read: Any) -> dict[str, Any]:
    return interpret_case(rule, read, result_only=True).result
