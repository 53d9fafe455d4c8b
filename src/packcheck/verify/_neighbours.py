"""Causes in the rule's own words: the declared rule with one or two keys changed (a
*neighbour*), numeric keys taking the values a :class:`Probe` of the packer finds
(docs/rules.md, "Causes in the rule's words")."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterator
from dataclasses import replace
from fractions import Fraction
from functools import partial
from typing import Any, TypeGuard

from .._gate.magnitudes import unit
from .._gate.transitions import candidates, shape, transitions
from .._packers import PackerFault
from .._rule.declared import CHOICES, Rule, RuleError, toml_value
from .._rule.interpret import interpret, interpret_case
from .._rule.model import Case, read_case
from .._rule.outcomes import KEPT_EVENTS
from ._causes import agrees
from ._variants import Output, Variant

__all__ = ["FAULT", "Probe", "neighbours", "on_top", "rule_answer"]

_CATEGORICAL = ("order", "fit", "on_misfit", "pin", "pin_overflow", "dedup", "output", "remaining")
_CHARGES = ("per_item", "separator", "reserve")
#: The probe cases' block size, where allowed: a share of the budget is found to 1%.
_SIZE = 10_000
#: Blocks of the probe case that finds ``max_count``.
_COUNTED = 8
#: A counterexample longer than this is not walked along its budget.
_WALKED = 64
#: What :meth:`Probe.ask` gives for a case the packer gave no answer to.
FAULT = ("fault",)


def _answer(rule: Rule, case: Case) -> dict[str, Any]:
    return interpret_case(rule, case).result


def rule_answer(rule: Rule) -> Output:
    """The declared answer of ``rule`` for a readable case."""
    return partial(_answer, rule)


def _said(rule: Rule, key: str, value: object) -> str:
    return f"{key} = {toml_value(value)} (declared {toml_value(getattr(rule, key))})"


def _changes(rule: Rule, numbers: dict[str, list[int]]) -> list[tuple[str, object]]:
    """Every one-key change of ``rule``: other choices, and probed numbers."""
    found: list[tuple[str, object]] = []
    for key in _CATEGORICAL:
        found += [(key, value) for value in CHOICES[key] if value != getattr(rule, key)]
    found.append(("refuse_empty", not rule.refuse_empty))
    for key, values in numbers.items():
        found += [(key, value) for value in values if value != getattr(rule, key)]
    return found


def _changed(rule: Rule, change: tuple[tuple[str, object], ...]) -> Rule | None:
    try:
        return Rule(**{**rule.keys(), **dict(change)})
    except RuleError:  # fractional charges beside remaining = "charged"
        return None


def neighbours(rule: Rule, numbers: dict[str, list[int]], *, most: int = 2) -> list[Variant]:
    """The rules up to ``most`` keys from ``rule``, named by their changed keys."""
    single = _changes(rule, numbers)
    found = []
    for count in range(1, most + 1):
        for change in itertools.combinations(single, count):
            if len({key for key, _ in change}) < count:
                continue
            neighbour = _changed(rule, change)
            if neighbour is not None:
                name = " and ".join(_said(rule, key, value) for key, value in change)
                found.append(Variant(name, rule_answer(neighbour), count))
    return found


def _kept_sizes(case: Case, events: tuple[str, ...]) -> int:
    return sum(size for size, event in zip(case.sizes, events, strict=True) if event in KEPT_EVENTS)


def _shared(rule: Rule, share: Fraction, sizes: bool, case: Case) -> dict[str, Any]:
    outcome = interpret_case(rule, replace(case, budget=int(case.budget * share)))
    if not sizes or "error" in outcome.result:
        return outcome.result
    return {**outcome.result, "remaining": case.budget - _kept_sizes(case, outcome.events)}


def _by_size(rule: Rule, largest: bool, scan_order: bool, case: Case) -> dict[str, Any]:
    # Stable either way: reverse=True keeps equal sizes in input order, as -size would.
    order = sorted(range(len(case.sizes)), key=case.sizes.__getitem__, reverse=largest)
    ids, sizes = (tuple(case.ids[i] for i in order), tuple(case.sizes[i] for i in order))
    outcome = interpret_case(rule, replace(case, ids=ids, sizes=sizes))
    if not scan_order or "error" in outcome.result:
        return outcome.result
    kept = sorted(i for i, event in zip(order, outcome.events, strict=True) if event in KEPT_EVENTS)
    return {**outcome.result, "kept": [case.ids[i] for i in kept]}


def _without_last(rule: Rule, case: Case) -> dict[str, Any]:
    return interpret_case(rule, replace(case, ids=case.ids[:-1], sizes=case.sizes[:-1])).result


def _missing_in(rule: Rule, order: Callable[[list[str]], list[str]], case: Case) -> dict[str, Any]:
    result = interpret_case(rule, case).result
    if "error" in result:
        return result
    present = set(result["kept"])
    return {**result, "missing": order([w for w in case.required if w not in present])}


def _causes(rule: Rule, shares: list[Fraction]) -> Iterator[tuple[str, Output]]:
    """The named causes the vocabulary cannot state, applied on top of ``rule``."""
    for largest, scan_order in itertools.product((True, False), (False, True)):
        which = "largest" if largest else "smallest"
        yield (
            f"takes the blocks {which} first (reordered by size)",
            partial(_by_size, rule, largest, scan_order),
        )
    yield "ignores the last block", partial(_without_last, rule)
    yield (
        "missing sorted by code points (Python's sorted), not UTF-16",
        partial(_missing_in, rule, sorted),
    )
    yield "missing not sorted (required order)", partial(_missing_in, rule, list)
    for share, sizes in itertools.product(shares, (False, True)):
        name = f"uses only a share of the budget ({float(share):.0%})"
        yield name, partial(_shared, rule, share, sizes)


def on_top(rule: Rule, numbers: dict[str, list[int]], shares: list[Fraction]) -> list[Variant]:
    """The named causes on top of ``rule`` and of each one-key neighbour (two faults)."""
    found = [Variant(name, output) for name, output in _causes(rule, shares)]
    for key, value in _changes(rule, numbers):
        neighbour = _changed(rule, ((key, value),))
        if neighbour is not None:
            said = _said(rule, key, value)
            found += [
                Variant(f"{said} and {name}", output, 2)
                for name, output in _causes(neighbour, shares)
            ]
    return found


def _probe_case(budget: int, sizes: list[int]) -> dict[str, Any]:
    blocks = [{"id": chr(ord("A") + i), "size": size} for i, size in enumerate(sizes)]
    return {"budget": budget, "blocks": blocks, "required": []}


class Probe:
    """What the packer's answers on small probe cases say about its numbers.

    One and two blocks walked along the budget, eight unit blocks under a large budget,
    and ``refused``.  ``numbers``: per numeric key, the values under which the rule
    answers as the packer; ``shares``: the budget shares that do.  After a fault the
    packer is asked nothing more.  O(log of the size) calls per walk.
    """

    def __init__(
        self,
        rule: Rule,
        answer_of: Callable[[dict[str, Any]], object],
        max_units: int,
        *,
        refused: object = None,
    ) -> None:
        self.rule = rule
        self.answer_of = answer_of
        self.max_units = max_units
        self.asked: dict[str, object] = {}
        self.faulted = False
        size = max(1, min(_SIZE, max_units // 4))
        self.cases = [_probe_case(size, [size]), _probe_case(2 * size, [size, size])]
        # A refusal's edge may lie where no probe case reaches: walked too.
        walks = [*self.cases, *([refused] if self.walkable(refused) else [])]
        found: dict[str, set[int]] = {"refuse_budget_below": {0}}
        shares: set[Fraction] = set()
        seen: list[dict[str, Any]] = []
        for case in walks:
            theirs = self.points(self.ask, case)
            ours = self.points(partial(declared, rule), case)
            seen += self.beside(theirs, case)
            # A charge moves a point by itself times the blocks charged before it.
            steps = range(1, max(2, len(case["blocks"])) + 1)
            for t, o in itertools.product(theirs, ours):
                for key, step in itertools.product(_CHARGES, steps):
                    if (t - o) % step == 0 and getattr(rule, key) + (t - o) // step >= 0:
                        found.setdefault(key, set()).add(int(getattr(rule, key) + (t - o) // step))
                if 0 < o < t and case in self.cases:
                    shares.add(Fraction(o, t).limit_denominator(100))
            found["refuse_budget_below"].update(theirs)
        counted = _probe_case(max(_COUNTED, min(self.max_units, 1000)), [1] * _COUNTED)
        kept = self.ask(counted)
        if isinstance(kept, dict) and isinstance(kept.get("kept"), list):
            found["max_count"] = {len(kept["kept"])} - {0, _COUNTED}
        seen.append(counted)
        self.numbers = {
            key: sorted(v for v in values if self._holds(_changed(rule, ((key, v),)), seen))
            for key, values in found.items()
        }
        self.shares = sorted(
            share
            for share in shares
            if any(
                all(
                    agrees(self.ask(c), _read(partial(_shared, rule, share, sizes), c))
                    for c in seen
                )
                for sizes in (False, True)
            )
        )

    def ask(self, case: dict[str, Any]) -> object:
        """The packer's answer, remembered (a fault is :data:`FAULT`)."""
        key = repr(case)
        if key not in self.asked:
            if self.faulted:
                return FAULT
            try:
                self.asked[key] = self.answer_of(case)
            except PackerFault:
                self.faulted = True
                self.asked[key] = FAULT
        return self.asked[key]

    def points(
        self, outcome: Callable[[dict[str, Any]], object], case: dict[str, Any]
    ) -> list[int]:
        """Where the shape of ``outcome`` along the budget of ``case`` changes."""

        def at(budget: int) -> Hashable:
            return shape(outcome({**case, "budget": budget}))

        return transitions(at, case["budget"], 0, self.max_units)

    def walkable(self, case: object) -> TypeGuard[dict[str, Any]]:
        """Whether ``case`` is walked along its budget: short, its budget in range."""
        return (
            isinstance(case, dict)
            and isinstance(case.get("blocks"), list)
            and len(case["blocks"]) <= _WALKED
            and unit(case.get("budget"))
            and 0 <= case["budget"] <= self.max_units
        )

    def beside(self, points: list[int], case: dict[str, Any]) -> list[dict[str, Any]]:
        """``case`` at each point and one unit either side."""
        return [{**case, "budget": v} for v in candidates(points, 0, self.max_units)]

    def _holds(self, rule: Rule | None, cases: list[dict[str, Any]]) -> bool:
        return rule is not None and all(agrees(self.ask(c), declared(rule, c)) for c in cases)


def declared(rule: Rule, case: dict[str, Any]) -> dict[str, Any]:
    """The answer of ``rule`` to a probe case."""
    return interpret(rule, case).result


def _read(output: Callable[[Case], dict[str, Any]], case: dict[str, Any]) -> dict[str, Any]:
    read = read_case(case)
    assert isinstance(read, Case), read  # Invariant: a probe case's units are valid.
    return output(read)
