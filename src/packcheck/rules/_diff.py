"""Where two declared rules answer differently: the smallest cases, found with the
gate's walk to transition points and its shrinker ("fails": still answered differently,
the same way)."""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any

from .._gate.probe_random import ProbeRandom
from .._gate.shrink import SHRINK_TRIES, polished, shrink
from .._gate.transitions import case_candidates, shape
from .._rule.declared import Rule
from .._rule.fixture_rule import recorded
from .._rule.interpret import interpret
from .._rule.jsonio import dumps
from .._rule.limits import DEFAULT_BASES, DEFAULT_CASES
from .._rule.model import MalformedCase
from .._stop import check, pending
from ..strategies import MAX_SAFE_UNITS

__all__ = ["DEFAULT_BASES", "DEFAULT_CASES", "Difference", "RuleDiff", "diff"]

#: Differing cases shrunk at most: once this many are found, no more bases are walked.
_FOUND = 16
# Blocks in a drawn base: at most this many, fewer more often.
_MOST_BLOCKS = 6
_IDS = "ABCD"
# An ID no block has, so that `missing` has one to order.
_ABSENT = "Z"

#: ``progress(phase, done, total)``: the phase (``"walking"``, ``"shrinking cases"``), how
#: many of its steps are done, and of how many (``None``: not known).
Progress = Callable[[str, int, "int | None"], None]


@dataclass(frozen=True, slots=True)
class Difference:
    """A case on which the two rules answer differently, and both answers."""

    case: dict[str, Any]
    old: dict[str, Any]
    new: dict[str, Any]
    #: NEW, whose answer a saved fixture expects.
    rule: Rule
    #: Where the case came from, for a run stopped before the report.
    origin: str = "rule diff"

    def fixture(self, number: int = 1, of: int = 1) -> dict[str, Any]:
        """The case as a fixture of NEW, with id ``rule-diff-NN-HASH`` (``NN`` padded)."""
        digest = hashlib.sha256(dumps(self.case).encode()).hexdigest()[:12]
        rule = recorded(self.rule)
        digits = max(2, len(str(of)))
        return {
            "id": f"rule-diff-{number:0{digits}d}-{digest}",
            **({} if rule is None else {"rule": rule}),
            "input": self.case,
            "expected": self.new,
        }


@dataclass(frozen=True, slots=True)
class RuleDiff:
    """What :func:`diff` found: ``equivalent`` canonical forms (no case tried), or the
    distinct ``cases`` the rules answer differently, smallest first."""

    old: Rule
    new: Rule
    seed: int
    equivalent: bool
    cases: tuple[Difference, ...]
    tried: int


def answer(rule: Rule, case: dict[str, Any]) -> dict[str, Any]:
    """``rule``'s declared answer to ``case``."""
    return interpret(rule, case, result_only=True).result


class _Search:
    """One search: both rules, the cases tried (each once) and those that differ."""

    def __init__(self, old: Rule, new: Rule) -> None:
        self.old = old
        self.new = new
        self.tried: dict[str, bool] = {}
        self.found: list[dict[str, Any]] = []

    def differs(self, case: dict[str, Any]) -> bool:
        """Whether the two rules answer ``case`` differently (a malformed one: alike)."""
        key = dumps(case)
        if key not in self.tried:
            check()
            try:
                self.tried[key] = answer(self.old, case) != answer(self.new, case)
            except MalformedCase:
                self.tried[key] = False
        return self.tried[key]

    def difference(self, case: dict[str, Any]) -> Difference:
        return Difference(case, answer(self.old, case), answer(self.new, case), self.new)

    def walk(self, base: dict[str, Any], index: int, max_units: int) -> None:
        """Keep ``base`` and the cases at both rules' transition points along its budget
        and one size, where the rules answer differently."""
        blocks = base["blocks"]
        sizes = (index % len(blocks),) if blocks else ()
        candidates = [base]
        for rule in (self.old, self.new):

            def outcome(case: dict[str, Any], rule: Rule = rule) -> Hashable:
                return shape(answer(rule, case))

            candidates += case_candidates(outcome, base, max_units=max_units, sizes=sizes)
        for case in candidates:
            if dumps(case) not in self.tried and self.differs(case):
                self.found.append(case)

    def kind(self, case: dict[str, Any]) -> Hashable:
        """How the two rules differ on ``case`` (errors, else the fields): a case is shrunk
        within its kind, so a change of two keys shows a case for each."""
        old, new = answer(self.old, case), answer(self.new, case)
        if "error" in old or "error" in new:
            return old.get("error"), new.get("error")
        return tuple(
            field for field in ("kept", "remaining", "missing") if old[field] != new[field]
        )

    def shrunk(self, case: dict[str, Any], deadline: float) -> dict[str, Any]:
        kind = self.kind(case)

        def fails(candidate: dict[str, Any]) -> bool:
            return self.differs(candidate) and self.kind(candidate) == kind

        best = shrink(case, fails, deadline=deadline, tries=SHRINK_TRIES)

        def holds(candidate: dict[str, Any]) -> bool:
            return time.monotonic() < deadline and fails(candidate)

        return polished(best, holds)


def _size(case: dict[str, Any]) -> tuple[int, int, int, str]:
    """The order of "smaller": fewer blocks, then fewer units, fewer required IDs."""
    blocks = case["blocks"]
    units = case["budget"] + sum(block["size"] for block in blocks)
    return len(blocks), units, len(case["required"]), dumps(case)


def _smallest(
    cases: list[dict[str, Any]], kind: Callable[[dict[str, Any]], Hashable], most: int
) -> list[dict[str, Any]]:
    """At most ``most`` of ``cases``, the smallest of each kind first, smallest first."""
    ordered = sorted(cases, key=_size)
    firsts: dict[Hashable, dict[str, Any]] = {}
    for case in ordered:
        firsts.setdefault(kind(case), case)
    chosen = list(firsts.values())[:most]
    chosen += [case for case in ordered if case not in chosen][: most - len(chosen)]
    return sorted(chosen, key=_size)


def _thresholds(rule: Rule) -> set[int]:
    """Budgets where ``rule``'s answer to one or two blocks of 1 unit may change."""
    one = rule.reserve + 1 + rule.per_item
    return {rule.refuse_budget_below, math.ceil(one), math.ceil(one + one + rule.separator)}


def _fixed_bases(old: Rule, new: Rule) -> list[dict[str, Any]]:
    """Two blocks of 1 unit at each rule's thresholds, and a list one block longer than
    each rule's ``max_count``."""
    found = [
        {
            "budget": budget,
            "blocks": [{"id": "A", "size": 1}, {"id": "B", "size": 1}],
            "required": [],
        }
        for budget in sorted(_thresholds(old) | _thresholds(new))
    ]
    for limit in sorted({old.max_count, new.max_count} - {0}):
        blocks = [{"id": _IDS[i % len(_IDS)] + str(i), "size": 1} for i in range(limit + 1)]
        room = max(
            math.ceil(rule.reserve + (limit + 1) * (2 + rule.per_item + rule.separator))
            for rule in (old, new)
        )
        found.append({"budget": room, "blocks": blocks, "required": []})
    return found


def bases(old: Rule, new: Rule, seed: int, count: int) -> Iterator[dict[str, Any]]:
    """The cases walked: the rules' own, then ``count`` small cases drawn from ``seed``."""
    yield from _fixed_bases(old, new)
    for index in range(count):
        yield _drawn(ProbeRandom(f"rule diff:{seed}:{index}"))


def _drawn(rng: ProbeRandom) -> dict[str, Any]:
    """A small case: a few blocks, repeating IDs, sizes up to a drawn scale, a budget up
    to a little past their sum."""
    n = min(rng.below(_MOST_BLOCKS + 1), rng.below(_MOST_BLOCKS + 1))
    scale = rng.choice((3, 10, 100, 2**20))
    pool = rng.sample(_IDS, rng.randint(1, len(_IDS)))
    sizes = [rng.randint(1, scale) for _ in range(n)]
    ids = [rng.choice(pool) for _ in range(n)]
    wanted = [*pool, _ABSENT]
    required = rng.sample(wanted, rng.randint(0, min(3, len(wanted))))
    budget = rng.randint(0, sum(sizes) + scale)
    return {
        "budget": budget,
        "blocks": [{"id": i, "size": s} for i, s in zip(ids, sizes, strict=True)],
        "required": required,
    }


def diff(
    old: Rule,
    new: Rule,
    *,
    seed: int = 0,
    max_examples: int = DEFAULT_BASES,
    max_cases: int = DEFAULT_CASES,
    max_units: int = MAX_SAFE_UNITS,
    shrink_seconds: float = 30.0,
    progress: Progress | None = None,
) -> RuleDiff:
    """The ``max_cases`` smallest cases on which ``old`` and ``new`` answer differently,
    found among ``max_examples`` walked (``shrink_seconds`` to shrink them in all).  A
    signal's :class:`~packcheck._stop.Stopped` carries the last differing case found."""
    if old.canonical() == new.canonical():
        return RuleDiff(old, new, seed, True, (), 0)
    search = _Search(old, new)
    try:
        # Drawn as they are walked: a search told to stop early has drawn no more.
        total = len(_fixed_bases(old, new)) + max_examples
        for index, base in enumerate(bases(old, new, seed, max_examples)):
            if progress is not None:
                progress("walking", index, total)
            search.walk(base, index, max_units)
            if len(search.found) >= _FOUND:
                break
        shrunk: dict[str, dict[str, Any]] = {}
        deadline = time.monotonic() + shrink_seconds
        raw = sorted(search.found, key=_size)[:_FOUND]
        for done, case in enumerate(raw):
            if progress is not None:
                progress("shrinking cases", done, len(raw))
            smallest = search.shrunk(case, deadline)
            shrunk.setdefault(dumps(smallest), smallest)
    except BaseException as exc:
        stop = pending(exc)
        if stop is None:
            raise
        if search.found:
            stop.found = search.difference(search.found[-1])
        raise stop from None
    cases = _smallest(list(shrunk.values()), search.kind, max_cases)
    return RuleDiff(old, new, seed, False, tuple(map(search.difference, cases)), len(search.tried))
