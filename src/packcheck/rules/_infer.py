"""``packcheck rule infer``: the rule of the vocabulary a packer follows, found by asking
it; a rule returned as fitting has passed ``verify --rule`` at the same seed."""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import Any

from .._gate import Settings
from .._gate.letters import lettered
from .._gate.shrink import shrink
from .._packers import Packer, adapter
from .._rule.declared import Rule
from .._rule.interpret import interpret
from ..verify import Finding
from ..verify import run as verify_run
from ._asking import Asker, comparable
from ._numbers import probe
from ._search import Candidates, candidates, pool, tell_apart

__all__ = ["Alternative", "Inferred", "infer"]

#: Small cases drawn from the seed, asked before the probe cases.
DRAWN = 300
#: Cases asked to tell the simplest rule left from the others, at most.
_TOLD = 24
#: ``verify --rule`` runs (each of the simplest rule left) before the search gives up.
_CHECKS = 4
#: Rules that agree on every case asked and are told apart from the simplest.
_RIVALS = 12
#: Calls of the packer the shrinker and the renaming of IDs may make.
_SHRINK_TRIES = 2000


@dataclass(frozen=True, slots=True)
class Alternative:
    """Another rule that gave every answer the packer gave: ``equivalent`` (the same
    canonical form), else a ``case`` that tells the two apart, if found."""

    rule: Rule
    equivalent: bool
    case: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Inferred:
    """What :func:`infer` found: the fitting or nearest ``rule``, the cases it ``agreed``
    on, those ``verify --rule`` checked, and where none fits a ``counterexample``."""

    rule: Rule
    fits: bool
    asked: int
    agreed: int
    seed: int
    verified: int = 0
    alternatives: tuple[Alternative, ...] = ()
    counterexample: dict[str, Any] | None = None
    answer: object = None
    expected: object = None
    notes: tuple[str, ...] = ()


def infer(
    packer: Callable[[dict[str, Any]], object] | Packer,
    settings: Settings | None = None,
    *,
    drawn: int = DRAWN,
) -> Inferred:
    """The simplest rule of the vocabulary that ``packer`` follows, checked by ``verify``
    with ``settings`` (whose seed is required)."""
    s = settings or Settings(seed=0)
    seed = s.seed
    if seed is None:
        raise ValueError("seed=None: infer needs a seed")
    ask = Asker(adapter(packer))
    report = s.progress or (lambda phase, done, total: None)
    numbers = probe(ask, s.max_units)
    report("probing", ask.calls, None)
    rules = Candidates(candidates(numbers))
    cases = list(pool(seed, drawn, numbers))
    for done, case in enumerate(cases, 1):
        rules.check(case, ask(case))
        report("searching", done, len(cases))
    notes: list[str] = []
    apart: dict[tuple[Rule, Rule], dict[str, Any] | None] = {}
    failed: list[tuple[Rule, Finding]] = []
    told = 0
    while fitting := rules.fitting():
        best = fitting[0]
        rivals = _rivals(best, fitting[1:])
        if told < _TOLD:
            found = (_apart(apart, best, r, cases, seed) for r in rivals)
            telling = next((c for c in found if c is not None), None)
            if telling is not None:
                told += 1
                cases.append(telling)
                rules.check(telling, ask(telling))
                continue
        if len(failed) == _CHECKS:
            break
        summary = verify_run(ask.packer, replace(s, save_failures=None), rule=best)
        # verify's own note on long lists cut; its note on other rules' fixtures is no news.
        notes += [n for n in summary.notes if n.startswith("long lists") and n not in notes]
        if summary.finding is None:
            note = ask.note()
            same = best.canonical()
            return Inferred(
                best,
                True,
                rules.asked,
                rules.asked,
                seed,
                verified=summary.cases,
                alternatives=(
                    *(Alternative(r, True) for r in fitting[1:] if r.canonical() == same),
                    *(Alternative(r, False, _apart(apart, best, r, cases, seed)) for r in rivals),
                ),
                notes=(*([note] if note else []), *notes),
            )
        assert isinstance(summary.finding, Finding)
        failed.append((best, summary.finding))
        cases.append(summary.finding.case)
        rules.check(summary.finding.case, ask(summary.finding.case))
        if best in rules.fitting():
            rules.drop(best)  # failed verify on what answers alone do not show
    return _nearest(rules, cases, ask, replace(s, seed=seed), notes, failed)


def _rivals(best: Rule, others: list[Rule]) -> list[Rule]:
    """The first of each canonical form among ``others`` but ``best``'s, at most
    :data:`_RIVALS`."""
    seen = {best.canonical()}
    rivals: list[Rule] = []
    for other in others:
        form = other.canonical()
        if form not in seen and len(rivals) < _RIVALS:
            seen.add(form)
            rivals.append(other)
    return rivals


def _apart(
    known: dict[tuple[Rule, Rule], dict[str, Any] | None],
    best: Rule,
    rival: Rule,
    cases: list[dict[str, Any]],
    seed: int,
) -> dict[str, Any] | None:
    """:func:`tell_apart` of the two rules, once for each pair."""
    if (best, rival) not in known:
        known[best, rival] = tell_apart(best, rival, cases, seed)
    return known[best, rival]


def _nearest(
    rules: Candidates,
    cases: list[dict[str, Any]],
    ask: Asker,
    s: Settings,
    notes: list[str],
    failed: list[tuple[Rule, Finding]],
) -> Inferred:
    """No rule fits: the nearest one and a shrunk case on which the packer departs, or
    the first to fail ``verify --rule`` with its finding."""
    nearest = rules.nearest()
    if nearest is None or nearest[1] == 0:
        rule, finding = failed[0]
        said = "; ".join(finding.failures)
        return Inferred(
            rule,
            False,
            rules.asked,
            rules.asked,
            s.seed or 0,
            counterexample=finding.case,
            answer=finding.answer,
            expected=finding.expected,
            notes=(*notes, f"every rule that gave every answer failed verify --rule: {said}"),
        )
    rule, misses = nearest

    def fails(case: dict[str, Any]) -> bool:
        return _departs(ask, rule, case)

    first = next(case for case in cases if fails(case))
    deadline = time.monotonic() + s.shrink_seconds
    small = shrink(first, fails, deadline=deadline, tries=_SHRINK_TRIES)
    small = lettered(small, fails, tries=_SHRINK_TRIES)
    ask(small)
    note = ask.note()
    return Inferred(
        rule,
        False,
        rules.asked,
        rules.asked - misses,
        s.seed or 0,
        counterexample=small,
        answer=ask.said(small),
        expected=interpret(rule, small).result,
        notes=(*([note] if note else []), *notes),
    )


def _departs(ask: Asker, rule: Rule, case: dict[str, Any]) -> bool:
    """Whether the packer's answer to ``case`` is not ``rule``'s."""
    theirs: Hashable = ask(case)
    return theirs != comparable(interpret(rule, case).result)
