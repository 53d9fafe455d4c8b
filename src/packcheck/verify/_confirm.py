"""Confirmed causes: a wrong variant is named only if it gives the packer's answer on
the shrunk case, on the case as first found, and on at least :data:`AGREEMENT` of a
sample where it differs from the rule (docs/gate.md)."""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed

from .._gate.hypothesis_compat import private_hypothesis_storage, same_cases_whatever_is_loaded
from .._packers import PackerFault, PackerRefusal
from .._rule.declared import Rule
from .._rule.interpret import REFUSED, interpret_case
from .._rule.jsonio import show_int
from .._rule.model import Case, SizeError, read_case, valid_case
from ..strategies import cases
from ._causes import LENIENT, STRICT, agrees, plain_scan, variant_of
from ._neighbours import FAULT, Probe, neighbours, on_top, rule_answer
from ._variants import ALL, Variant, rule_output

__all__ = [
    "AGREEMENT",
    "LEAST",
    "SAMPLE",
    "Confirmed",
    "confirm",
    "int64_wrapped",
    "variants",
]

#: At most this many sampled cases per variant, each one where it differs from the rule.
SAMPLE = 40
#: A variant is named only if it gives the packer's answer on this share of them ...
AGREEMENT = 0.9
#: ... and the sample holds at least this many cases where it differs from the rule;
LEAST = 5
#: ... and it gives the packer's answer on this share of every sampled case where either
#: departs from the rule (control cases included).
OVERALL = 0.8
_DRAWN, _SMALL, _NEIGHBOURS = 60, 400, 200
_CALLS = 440
WRAP = "int64 wrap-around (sums past 2**63)"
_scan_rule = variant_of(plain_scan)
_SEED = Rule()

Answer = Callable[[dict[str, Any]], object]


@dataclass(frozen=True, slots=True)
class Confirmed:
    """The causes named, and what supports them."""

    causes: tuple[str, ...]
    support: str | None


def refusals_answered(answer_of: Answer) -> Answer:
    """``answer_of`` with a refusal answered ``{"error":"refused"}``, as a command
    packer answers it."""

    def answer(case: dict[str, Any]) -> object:
        try:
            return answer_of(case)
        except PackerRefusal:
            return dict(REFUSED)

    return answer


def _kept_sum(case: Case, kept: object) -> int | None:
    """The sum of the sizes of the blocks ``kept`` names, matched in scan order."""
    if not isinstance(kept, list):
        return None
    total, start = 0, 0
    for block_id in kept:
        try:
            index = case.ids.index(block_id, start)
        except ValueError:
            return None
        total += case.sizes[index]
        start = index + 1
    return total


def _output(rule: Rule, read: Case) -> dict[str, Any]:
    """The rule's answer to a readable case, with its partition."""
    if rule.is_default:
        return rule_output(read)
    outcome = interpret_case(rule, read)
    if "error" in outcome.result:
        return dict(outcome.result)
    lists: dict[str, list[str]] = {"packed": [], "available": [], "dropped": []}
    for block_id, bucket in zip(read.ids, outcome.buckets, strict=True):
        lists[bucket].append(block_id)
    return {**outcome.result, "partition": lists}


def _plain(rule: Rule) -> Callable[[Case], dict[str, Any]]:
    """The rule's answer to a readable case, without a partition."""
    return _scan_rule if rule.is_default else rule_answer(rule)


def int64_wrapped(case: object, answer: object, rule: Rule = _SEED) -> str | None:
    """Why ``answer``'s remaining is an int64 wrap, if it is: equal modulo 2**64, but
    not exactly, to its own kept blocks' remaining or the rule's."""
    read = valid_case(case)
    if read is None or not isinstance(answer, dict):
        return None
    got = answer.get("remaining")
    if type(got) is not int:
        return None
    exact = [
        read.budget - total for total in [_kept_sum(read, answer.get("kept"))] if total is not None
    ]
    declared = _output(rule, read).get("remaining")
    exact += [declared] if type(declared) is int else []
    for value in exact:
        if got != value and (got - value) % 2**64 == 0:
            shown = show_int(got, grouped=True), show_int(value, grouped=True)
            return f"its remaining {shown[0]} equals the exact {shown[1]} modulo 2**64"
    return None


@functools.lru_cache(maxsize=4)
def _drawn(seed: int, max_units: int, count: int, invalid: bool) -> tuple[dict[str, Any], ...]:
    """``count`` cases of :func:`packcheck.strategies.cases` from ``seed`` (cached:
    drawing is the slow part of a sample)."""
    found: list[dict[str, Any]] = []

    @hypothesis_seed(seed)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=(Phase.generate,),
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
    )
    @given(cases(max_units=max_units, max_blocks=12, allow_invalid=invalid))
    def collect(case: dict[str, Any]) -> None:
        found.append(case)

    with private_hypothesis_storage(), same_cases_whatever_is_loaded():
        collect()
    return tuple(found)


def _small(rng: random.Random, count: int) -> Iterator[dict[str, Any]]:
    """Small valid cases whose budgets are often spent exactly, part-way."""
    for _ in range(count):
        n = rng.randint(1, 8)
        ids = (
            rng.sample("ABCDEFGH", n)
            if rng.random() < 0.6
            else [rng.choice("ABC") for _ in range(n)]
        )
        top = rng.choice((3, 6, 12, 40))
        sizes = [rng.randint(1, top) for _ in range(n)]
        mode = rng.randint(0, 3)
        if mode == 0:
            budget = rng.randint(0, sum(sizes) + 2)
        elif mode == 1:
            budget = sum(sizes[: rng.randint(0, n)]) + rng.choice((0, 0, 1))
        else:
            budget = sum(s for s in sizes if rng.random() < 0.6) + rng.choice((0, 0, -1, 1))
        required = rng.sample([*ids, "Z", "Y"], rng.randint(0, min(4, n + 2)))
        yield _case(max(0, budget), ids, sizes, required)


def _case(budget: int, ids: list[str], sizes: list[int], required: list[str]) -> dict[str, Any]:
    blocks = [{"id": i, "size": s} for i, s in zip(ids, sizes, strict=True)]
    return {"budget": budget, "blocks": blocks, "required": list(required)}


def _neighbours(read: Case, rng: random.Random, count: int) -> Iterator[dict[str, Any]]:
    """Cases one or two changes away from ``read``."""
    for _ in range(count):
        budget, ids, sizes = read.budget, list(read.ids), list(read.sizes)
        required = list(read.required)
        for _ in range(rng.randint(1, 2)):
            change = rng.randint(0, 6)
            if change == 0:
                budget = max(0, budget + rng.choice((-2, -1, 1, 2)))
            elif change == 1 and sizes:
                at = rng.randrange(len(sizes))
                sizes[at] = max(1, sizes[at] + rng.choice((-2, -1, 1, 2)))
            elif change == 2 and len(sizes) > 1:
                a, b = rng.sample(range(len(sizes)), 2)
                sizes[a], sizes[b], ids[a], ids[b] = sizes[b], sizes[a], ids[b], ids[a]
            elif change == 3 and sizes:
                at = rng.randrange(len(sizes) + 1)
                ids.insert(at, rng.choice([*ids, "N"]))
                sizes.insert(at, max(1, rng.choice(sizes) + rng.choice((-1, 0, 1))))
            elif change == 4 and sizes:
                at = rng.randrange(len(sizes))
                del ids[at], sizes[at]
            elif change == 5 and sizes:
                budget = sum(s for s in sizes if rng.random() < 0.5)
            else:
                required = rng.sample([*ids, "Z"], min(len(ids) + 1, rng.randint(0, 3)))
        yield _case(budget, ids, sizes, required)


def _pool(read: Case, seed: int, max_units: int) -> list[tuple[dict[str, Any], Case]]:
    """The readable cases a sample is chosen from."""
    rng = random.Random(f"confirm:{seed}")
    near = list(_neighbours(read, rng, _NEIGHBOURS)) if len(read.sizes) <= 64 else []
    pool = [*near, *_small(rng, _SMALL), *_drawn(seed, max_units, _DRAWN, False)]
    rng.shuffle(pool)
    readable = [(case, valid_case(case)) for case in pool]
    return [(case, read) for case, read in readable if read is not None]


_ABSENT = object()
_BAD = (0, True, False, "4", "1", None, 2.5, -1, _ABSENT)


def _spoiled(case: dict[str, Any], rng: random.Random, count: int) -> Iterator[dict[str, Any]]:
    """``case`` with its budget or one size made a bad unit (or left out)."""
    for _ in range(count):
        spoiled = {**case, "blocks": [dict(b) for b in case["blocks"]]}
        blocks = spoiled["blocks"]
        holder, key = (
            (rng.choice(blocks), "size") if blocks and rng.random() < 0.75 else (spoiled, "budget")
        )
        value = rng.choice(_BAD)
        if value is _ABSENT:
            holder.pop(key, None)
        else:
            holder[key] = value
        yield spoiled


def _lenient(
    case: dict[str, Any], answer: object, answer_of: Answer, seed: int, max_units: int, rule: Rule
) -> Confirmed:
    """Causes for an answer to a case the rule answers ``{"error":"size"}``."""
    rng = random.Random(f"confirm:{seed}")
    plain = _plain(rule)
    readings = [
        (Variant(name, plain), reading)
        for name, reading in LENIENT
        if (lenient := reading(case)) is not None and agrees(answer, plain(lenient))
    ]
    if not readings:
        return Confirmed((), None)
    bases = [case, *_small(rng, 100), *_drawn(seed, max_units, _DRAWN, True)]
    pool = [spoiled for base in bases for spoiled in _spoiled(base, rng, 4)]
    rng.shuffle(pool)
    rules = [_declared(rule, c) for c in pool]
    outs = []
    for variant, reading in readings:
        read = [reading(c) for c in pool]
        outs.append(
            (variant, [d if r is None else plain(r) for r, d in zip(read, rules, strict=True)])
        )
    return _sampled(outs, pool, rules, answer_of)


_SIZE_ERROR = {"error": "size"}


def _floated(case: dict[str, Any], rng: random.Random, count: int) -> Iterator[dict[str, Any]]:
    """``case`` with its budget or one size (or all) written as a float."""
    for _ in range(count):
        floated = {**case, "blocks": [dict(b) for b in case["blocks"]]}
        holders = [floated, *floated["blocks"]]
        keys = ["budget", *("size" for _ in floated["blocks"])]
        picked = range(len(holders)) if rng.random() < 0.25 else [rng.randrange(len(holders))]
        for at in picked:
            value = holders[at].get(keys[at])
            if type(value) is int and abs(value) <= 2**53:
                holders[at][keys[at]] = float(value)
        yield floated


def _strict(
    case: dict[str, Any],
    answer: object,
    answer_of: Answer,
    first: tuple[object, object] | None,
    seed: int,
    max_units: int,
    rule: Rule,
) -> Confirmed:
    """Causes for ``{"error":"size"}`` answered to a valid case."""
    found = [(case, answer), *([] if first is None else [first])]
    readings = [
        (Variant(name, _plain(rule)), refuses)
        for name, refuses in STRICT
        if all(isinstance(c, dict) and refuses(c) and agrees(a, _SIZE_ERROR) for c, a in found)
    ]
    if not readings:
        return Confirmed((), None)
    rng = random.Random(f"confirm:{seed}")
    bases = [case, *_small(rng, 100), *_drawn(seed, max_units, _DRAWN, False)]
    pool = [c for base in bases for c in (base, *_floated(base, rng, 2))]
    pool = [c for c in pool if valid_case(c) is not None]
    rng.shuffle(pool)
    rules = [_declared(rule, c) for c in pool]
    # Without the partition, as a scan variant's: a packer that captures none agrees.
    scans = [{k: v for k, v in out.items() if k != "partition"} for out in rules]
    outs = [
        (variant, [_SIZE_ERROR if refuses(c) else out for c, out in zip(pool, scans, strict=True)])
        for variant, refuses in readings
    ]
    return _sampled(outs, pool, rules, answer_of)


def _declared(rule: Rule, case: dict[str, Any]) -> dict[str, Any]:
    try:
        read = read_case(case)
    except ValueError:
        return {"error": "input"}
    return {"error": "size"} if isinstance(read, SizeError) else _output(rule, read)


def variants(rule: Rule, probe: Probe | None = None) -> list[Variant]:
    """Every wrong variant under ``rule``, one fault before two; numeric keys take the
    values ``probe`` found."""
    numbers = {} if probe is None else probe.numbers
    near = neighbours(rule, numbers)
    added = on_top(rule, numbers, [] if probe is None else probe.shares)
    seed = list(ALL) if rule.is_default else []
    return [
        *(v for v in near if v.faults == 1),
        *(v for v in added if v.faults == 1),
        *seed,
        *(v for v in near if v.faults > 1),
        *(v for v in added if v.faults > 1),
    ]


def confirm(
    case: object,
    answer: object,
    answer_of: Answer,
    *,
    first: tuple[object, object] | None = None,
    seed: int,
    max_units: int,
    rule: Rule = _SEED,
) -> Confirmed:
    """The causes ``answer`` (the packer's, on ``case``) is confirmed to have under
    ``rule``; ``first``: the case as first found and its answer."""
    if not rule.is_default:
        answer_of = refusals_answered(answer_of)
    read = valid_case(case)
    if read is None:
        if isinstance(case, dict) and _declared(rule, case) == {"error": "size"}:
            return _lenient(case, answer, answer_of, seed, max_units, rule)
        return Confirmed((), None)
    if isinstance(case, dict) and agrees(answer, _SIZE_ERROR):
        return _strict(case, answer, answer_of, first, seed, max_units, rule)
    wrap = int64_wrapped(case, answer, rule) or (first and int64_wrapped(*first, rule))
    if wrap:
        return Confirmed((WRAP,), wrap)
    first_read = valid_case(first[0]) if first is not None else None
    declared = _output(rule, read)
    refusal = any(agrees(out, REFUSED) for out in (answer, declared))
    probe = Probe(rule, answer_of, max_units, refused=case if refusal else None)
    candidates, unlike_first = [], []
    for variant in variants(rule, probe):
        out = variant.output(read)
        if agrees(declared, out) or not agrees(answer, out):
            continue
        if first and first_read and not agrees(first[1], variant.output(first_read)):
            unlike_first.append(variant.name)
            continue
        if _at_edges(variant, probe, case):
            candidates.append(variant)
    if not candidates:
        return Confirmed((), _unlike_first(unlike_first))
    pool = _pool(read, seed, max_units)
    rules = [_output(rule, r) for _, r in pool]
    outs = [(v, [v.output(r) for _, r in pool]) for v in candidates]
    return _sampled(outs, [c for c, _ in pool], rules, answer_of, turns=True)


def _at_edges(variant: Variant, probe: Probe, case: object) -> bool:
    """Whether the packer answers as ``variant`` at and beside the variant's own
    transition points along the budget of the probe cases and the counterexample."""
    walked = [*probe.cases, *([case] if probe.walkable(case) else [])]

    def output(at: dict[str, Any]) -> object:
        read = valid_case(at)
        return variant.output(read) if read is not None else _SIZE_ERROR

    for walk in walked:
        for edge in probe.beside(probe.points(output, walk), walk):
            got = probe.ask(edge)
            # A fault (a raise, a timeout, no answer after one) says nothing of a cause.
            if got is not FAULT and not agrees(got, output(edge)):  # type: ignore[arg-type]
                return False
    return True


def _closest(near: list[tuple[float, int, Variant, int, int]]) -> str | None:
    """The variant nearest to being named (like the packer on half the cases where it
    differs from the rule, or more), and by how much it fell short."""
    near = [entry for entry in near if 2 * entry[3] >= entry[4]]
    if not near:
        return None
    overall, _, variant, agree, differ = max(near, key=lambda e: (e[3] / e[4], e[0], e[1]))
    return (
        f"closest: {variant.name}, like it on {agree} of {differ} sampled cases where it "
        f"differs from the rule and on {overall:.0%} of those where either departs "
        f"({AGREEMENT:.0%} and {OVERALL:.0%} needed)"
    )


def _unlike_first(names: list[str]) -> str | None:
    """Why variants this case alone supports are not named."""
    if not names:
        return None
    names = [*dict.fromkeys(names)]
    which = (
        f"{names[0]} gives" if len(names) == 1 else f"{len(names)} variants ({names[0]}...) give"
    )
    return f"not named: {which} this answer, not the packer's to the case as first found"


def _sampled(
    outs: list[tuple[Variant, list[dict[str, Any]]]],
    pool: list[dict[str, Any]],
    rules: list[dict[str, Any]],
    answer_of: Answer,
    *,
    turns: bool = False,
) -> Confirmed:
    """Ask the packer about up to :data:`SAMPLE` cases per variant where it differs
    from the rule, and controls; the variants that hold, the best first."""
    chosen: dict[int, None] = {}
    differs = [
        [i for i, out in enumerate(outputs) if not agrees(rules[i], out)][:SAMPLE]
        for _, outputs in outs
    ]
    # With ``turns``, a case of each variant in turn: a fault leaves each its share.
    for taken in itertools.zip_longest(*differs) if turns else differs:
        chosen.update(dict.fromkeys(i for i in taken if i is not None))
    controls = [i for i in range(len(pool)) if i not in chosen][:SAMPLE]
    chosen.update(dict.fromkeys(controls))
    answers: dict[int, object] = {}
    for index in list(chosen)[:_CALLS]:
        try:
            answers[index] = answer_of(pool[index])
        except PackerFault:  # a fault ends the sample; what it has stands
            break
    best: list[tuple[float, int, Variant, int, int]] = []
    near: list[tuple[float, int, Variant, int, int]] = []
    for variant, outputs in outs:
        agree = differ = hits = informative = 0
        for index, got in answers.items():
            out, rule = outputs[index], rules[index]
            varies = not agrees(rule, out)
            matches = agrees(got, out)
            differ += varies
            agree += varies and matches
            if varies or not agrees(got, rule):
                informative += 1
                hits += matches
        held = agree >= AGREEMENT * differ and hits >= OVERALL * informative
        if differ >= LEAST:
            (best if held else near).append(
                (hits / informative, -variant.faults, variant, agree, differ)
            )
    if not best:
        return Confirmed((), _closest(near))
    top = max(score[:2] for score in best)
    named = [entry for entry in best if entry[:2] == top]
    names = tuple(dict.fromkeys(entry[2].name for entry in named))
    _, _, _, agree, differ = named[0]
    return Confirmed(
        names,
        f"behaves like it on {agree} of {differ} sampled cases where it differs from the rule",
    )
