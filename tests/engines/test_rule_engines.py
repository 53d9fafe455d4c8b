"""Declared rules on the engines (_engines/rules.py, rule_scan.py, rule_batch.py): the
lowering's edges, each against the interpreter, and the compiled loop as plain Python.

Random rules and cases are in properties/test_rule_engine_properties.py; these pin the
paths a short random case rarely takes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _scan_check import HAVE_NUMBA, NO_NUMBA

from packcheck import Rule, compiled, pack, scan
from packcheck._engines import choice, rule_batch, rule_scan, rules
from packcheck._engines import compiled as _compiled
from packcheck._engines import pack as _pack
from packcheck._engines.rules import pack_rule
from packcheck._rule.answer import kept_blocks
from packcheck._rule.interpret import interpret
from packcheck._rule.model import Case

INT64_MAX = 2**63 - 1
ENGINES = [
    "numpy",
    pytest.param("numba", marks=pytest.mark.skipif(not HAVE_NUMBA, reason=NO_NUMBA)),
]


def _blocks(*sizes: int, ids: str = "") -> list[dict[str, Any]]:
    return [{"id": ids[i] if ids else f"b{i}", "size": size} for i, size in enumerate(sizes)]


@pytest.fixture(autouse=True)
def _kernels_at_every_length(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(choice, "CROSSOVER", 0)


CASES = [
    # A separator with no pin: the first kept block pays none (budget raised by one).
    (Rule(separator=2), {"budget": 3, "blocks": _blocks(3, 1), "required": []}),
    (Rule(separator=2, fit="lt"), {"budget": 3, "blocks": _blocks(3, 2), "required": []}),
    # Nothing kept: remaining is the budget less the reserve, no separator.
    (Rule(separator=5, reserve=1), {"budget": 3, "blocks": _blocks(9), "required": []}),
    # Reserve above the budget: what is left is below 0; an overshoot still keeps one.
    (
        Rule(reserve=9, on_misfit="overshoot"),
        {"budget": 3, "blocks": _blocks(1, 1), "required": []},
    ),
    (Rule(reserve=9, on_misfit="stop"), {"budget": 3, "blocks": _blocks(1, 1), "required": []}),
    # Pins: refused when they do not fit, kept anyway under allow.
    (
        Rule(pin="first", pin_overflow="refuse"),
        {"budget": 3, "blocks": _blocks(4, 1), "required": []},
    ),
    # A pin's size and its per-item charge are both charged before the scan.
    (Rule(pin="first", per_item=1), {"budget": 4, "blocks": _blocks(1, 2), "required": []}),
    # ... and a pin that fits exactly is kept, with nothing left.
    (
        Rule(pin="first", pin_overflow="refuse"),
        {"budget": 4, "blocks": _blocks(4, 1), "required": []},
    ),
    (
        Rule(pin="last", fit="lt", pin_overflow="refuse"),
        {"budget": 3, "blocks": _blocks(1, 3), "required": []},
    ),
    (Rule(pin="last"), {"budget": 3, "blocks": _blocks(1, 9), "required": []}),
    (
        Rule(pin="first", output="scan", order="reversed"),
        {"budget": 9, "blocks": _blocks(1, 2, 3), "required": []},
    ),
    # Pins of required IDs, with each dedup.
    (
        Rule(pin="required", dedup="kept", order="middle-out"),
        {"budget": 9, "blocks": _blocks(1, 2, 3, 1, 1, ids="ABACB"), "required": ["A"]},
    ),
    # ... a pinned ID's other blocks take no place in middle-out's order: Z is met
    # before Y here, and would not be if the last block (A again) were met.
    (
        Rule(pin="required", dedup="kept", order="middle-out"),
        {"budget": 4, "blocks": _blocks(1, 1, 2, 2, 1, ids="AXYZA"), "required": ["A"]},
    ),
    (
        Rule(pin="required"),
        {"budget": 9, "blocks": _blocks(1, 1, 1, 1, ids="ABAC"), "required": ["A"]},
    ),
    (
        Rule(pin="required", dedup="last"),
        {"budget": 9, "blocks": _blocks(1, 2, 3, 1, ids="ABAB"), "required": ["A", "Z"]},
    ),
    (
        Rule(pin="required", dedup="first", output="scan"),
        {"budget": 9, "blocks": _blocks(1, 2, 3, 1, ids="ABAB"), "required": ["B"]},
    ),
    (
        Rule(pin="last", dedup="first"),
        {"budget": 9, "blocks": _blocks(1, 2, 3, 1, ids="ABAB"), "required": []},
    ),
    (
        Rule(pin="first", dedup="last"),
        {"budget": 9, "blocks": _blocks(1, 2, 3, 1, ids="ABAB"), "required": []},
    ),
    # max_count: the scan cut at its count, pins counted.
    (
        Rule(max_count=2, on_misfit="overshoot"),
        {"budget": 2, "blocks": _blocks(1, 5, 1), "required": []},
    ),
    (Rule(max_count=1, pin="first"), {"budget": 9, "blocks": _blocks(1, 1), "required": []}),
    (
        Rule(max_count=2, remaining="sizes", per_item=1),
        {"budget": 9, "blocks": _blocks(1, 1, 1), "required": []},
    ),
    # A pin's ID is kept before the scan: its other blocks are duplicates.
    (
        Rule(pin="first", dedup="kept"),
        {"budget": 9, "blocks": _blocks(1, 1, 1, ids="AAB"), "required": []},
    ),
    # The scan meets one block, a duplicate of the pin: it is skipped even so.
    (
        Rule(pin="first", dedup="kept"),
        {"budget": 9, "blocks": _blocks(1, 1, ids="AA"), "required": []},
    ),
    # ... yet under pin = "first" it takes its place in middle-out's order: Y is met
    # before Z here, and would not be if the last block (A again) were not met.
    (
        Rule(pin="first", dedup="kept", order="middle-out", on_misfit="stop"),
        {"budget": 3, "blocks": _blocks(1, 1, 1, 1, 1, ids="AXYZA"), "required": []},
    ),
    # A duplicate skipped between blocks that pay a charge each.
    (
        Rule(dedup="kept", per_item=1),
        {"budget": 6, "blocks": _blocks(1, 1, 1, 1, ids="ABAC"), "required": []},
    ),
    # ... and an overshoot after one, which pays its size and its charge.
    (
        Rule(dedup="kept", on_misfit="overshoot", per_item=1),
        {"budget": 4, "blocks": _blocks(1, 1, 1, 5, ids="ABAC"), "required": []},
    ),
    # Duplicates under stop and overshoot: never a misfit, never the end.
    (
        Rule(dedup="kept", on_misfit="stop"),
        {"budget": 3, "blocks": _blocks(2, 2, 1, 5, 1, ids="AABCD"), "required": []},
    ),
    (
        Rule(dedup="kept", on_misfit="overshoot", output="scan", order="reversed"),
        {"budget": 3, "blocks": _blocks(2, 9, 1, 5, ids="AABA"), "required": []},
    ),
    (
        Rule(dedup="kept", on_misfit="overshoot"),
        {"budget": 3, "blocks": _blocks(1, 1, 9, ids="AAB"), "required": []},
    ),
    # A prefix longer than the first chunk (4,096 blocks) that fits whole.
    (Rule(on_misfit="stop"), {"budget": 5_000, "blocks": _blocks(*[1] * 10_000), "required": []}),
    # ... and one that ends in the second chunk, past its first 4,096 blocks.
    (Rule(on_misfit="stop"), {"budget": 9_000, "blocks": _blocks(*[1] * 10_000), "required": []}),
    # Fractions, scaled by their common denominator.
    (
        Rule(per_item="1/2", separator="2/3", remaining="sizes"),
        {"budget": 5, "blocks": _blocks(1, 1, 1, 1), "required": []},
    ),
    (
        Rule(reserve="1/3", fit="lt", remaining="sizes"),
        {"budget": 2, "blocks": _blocks(1, 1, 1), "required": []},
    ),
    # A size far above what is left, scaled by 3: clipped before it is scaled.
    (
        Rule(per_item="1/3", remaining="sizes", on_misfit="stop"),
        {"budget": 2**60, "blocks": _blocks(2**62, 1), "required": []},
    ),
    # Past what the kernels hold: the interpreter, exactly. What is left at 2**62 is
    # past it: two sizes of 2**62 would sum to 2**63 in the prefix's int64 sums.
    (
        Rule(on_misfit="stop"),
        {"budget": 2**62, "blocks": _blocks(2**62, 2**62), "required": []},
    ),
    (
        Rule(per_item="1/3", remaining="sizes"),
        {"budget": INT64_MAX, "blocks": _blocks(INT64_MAX, 1), "required": []},
    ),
    (Rule(per_item=1), {"budget": 5, "blocks": _blocks(2**64, 1), "required": []}),
    # What is left fits (2 * q, q = 2**61 - 1) but q + step does not: a block clipped to
    # 3 units would cost 3 * q + step = 2**63 in int64.
    (
        Rule(per_item=f"{2**61 + 3}/{2**61 - 1}", remaining="sizes"),
        {"budget": 2, "blocks": _blocks(2**62, 1), "required": []},
    ),
    (
        Rule(on_misfit="overshoot", remaining="sizes"),
        {"budget": 2, "blocks": _blocks(1, INT64_MAX, INT64_MAX), "required": []},
    ),
    # An overshoot met from the back by middle-out: its own size is charged.
    (
        Rule(order="middle-out", on_misfit="overshoot"),
        {"budget": 3, "blocks": _blocks(1, 2, 9, 5), "required": []},
    ),
    (
        Rule(order="middle-out", on_misfit="overshoot", remaining="sizes"),
        {"budget": 3, "blocks": _blocks(1, 2, 9, 5), "required": []},
    ),
    (
        Rule(order="middle-out", on_misfit="overshoot"),
        {"budget": 2, "blocks": _blocks(1, 2, 9, 1), "required": []},
    ),
    (
        Rule(order="middle-out", on_misfit="overshoot"),
        {"budget": 3, "blocks": _blocks(1, 1, 9, 1), "required": []},
    ),
    (
        Rule(order="middle-out", on_misfit="overshoot"),
        {"budget": 5, "blocks": _blocks(1, 1, 1, 9, 1, 1), "required": []},
    ),
    # dedup = "kept" under skip: A's first block misfits after B, its second fits (the
    # first guess is not the fixed point).
    (Rule(dedup="kept"), {"budget": 7, "blocks": _blocks(3, 5, 4, ids="BAA"), "required": []}),
    # ... C's second block, eligible in round 2, leaves no room for A's first, and A's
    # second fits in round 3: the fixed point needs every kept block at its ID's
    # threshold, not only as many kept blocks as thresholds.
    (
        Rule(dedup="kept"),
        {"budget": 10, "blocks": _blocks(6, 5, 2, 3, 1, ids="BCCAA"), "required": []},
    ),
    # ... a block that fits exactly what is left.
    (Rule(dedup="kept"), {"budget": 1, "blocks": _blocks(1), "required": []}),
    # Refusals, and a case with an invalid unit.
    (Rule(refuse_budget_below=5), {"budget": 4, "blocks": _blocks(1), "required": []}),
    (Rule(refuse_empty=True), {"budget": 4, "blocks": [], "required": []}),
    (Rule(per_item=1), {"budget": 4, "blocks": _blocks(0), "required": []}),
    (Rule(per_item=1), {"budget": 4, "blocks": [], "required": ["A"]}),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("rule", "case"), CASES)
def test_each_edge_of_the_lowering_is_the_interpreters(engine: str, rule: Rule, case: Any) -> None:
    assert pack(case, rule=rule, engine=engine) == interpret(rule, case).result  # type: ignore[arg-type]


@pytest.mark.parametrize(("rule", "case"), CASES)
def test_the_answer_alone_is_the_interpreters_at_each_edge(rule: Rule, case: Any) -> None:
    assert interpret(rule, case, result_only=True).result == interpret(rule, case).result


def test_a_rule_below_the_crossover_is_packed_by_the_interpreter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(choice, "CROSSOVER", 10)
    monkeypatch.setattr(_pack, "pack_rule", None)  # never reached
    case = {"budget": 3, "blocks": _blocks(2, 1), "required": ["b1"]}
    assert pack(case, rule=Rule(per_item=1), engine="numpy") == {
        "kept": ["b0"],
        "remaining": 0,
        "missing": ["b1"],
    }


@pytest.mark.parametrize("rounds", [0, 1, 8])
def test_the_fixed_point_of_dedup_kept_needs_a_second_round_and_may_hand_over(
    monkeypatch: pytest.MonkeyPatch, rounds: int
) -> None:
    # A's first block misfits, so its second is eligible, and C's finds nothing left:
    # the first guess (every ID at its first block that could fit) is not kept whole.
    monkeypatch.setattr(rule_scan, "ROUNDS", rounds)
    case = Case(4, ("A", "B", "A", "C"), (5, 3, 1, 1), ())
    rule = Rule(dedup="kept")
    found = pack_rule(rule, 4, np.array(case.sizes), np.array([0, 1, 0, 2]))
    expected = kept_blocks(rule, case)
    assert found is not None
    assert expected is not None
    assert found.flags.tolist() == expected.flags == [False, True, True, False]
    assert found.remaining == expected.remaining == 0


@pytest.mark.parametrize(
    ("misfit", "rounds", "budget", "sizes", "ids", "expected"),
    [
        # Round 1 keeps every ID at its first block: the fixed point, though A has a
        # block after its threshold (under skip chunk by chunk, under stop at once).
        ("skip", 1, 4, [1, 1, 1], [0, 1, 0], [True, True, False]),
        ("stop", 1, 4, [1, 1, 1], [0, 1, 0], [True, True, False]),
        # The case above: round 1 keeps B and A's second block, not C; round 2 meets
        # the kept blocks (at their IDs' thresholds) and C again, and keeps the same.
        ("skip", 2, 4, [5, 3, 1, 1], [0, 1, 0, 2], [False, True, True, False]),
    ],
)
def test_the_fixed_point_of_dedup_kept_settles_without_the_exact_loop(
    monkeypatch: pytest.MonkeyPatch,
    misfit: Any,
    rounds: int,
    budget: int,
    sizes: list[int],
    ids: list[int],
    expected: list[bool],
) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError("the fixed point handed over to the exact loop")

    monkeypatch.setattr(rule_scan, "ROUNDS", rounds)
    monkeypatch.setattr(rule_scan.answer, "walk_distinct", refuse)
    found = pack_rule(Rule(dedup="kept", on_misfit=misfit), budget, np.array(sizes), np.array(ids))
    assert found is not None
    assert found.flags.tolist() == expected
    assert found.remaining == budget - sum(np.array(sizes)[expected].tolist())


@pytest.mark.parametrize("misfit", ["stop", "overshoot"])
def test_a_prefix_past_six_growing_chunks_is_the_interpreters(misfit: Any) -> None:
    # Chunks of 4,096 blocks, then twice as many each time up to 65,536: the prefix
    # ends in the sixth chunk, past 126,976 blocks.
    n, budget = 130_000, 129_000
    sizes = np.ones(n, dtype=np.int64)
    rule = Rule(on_misfit=misfit)
    expected = kept_blocks(rule, Case(budget, tuple(range(n)), tuple(sizes.tolist()), ()))
    found = pack_rule(rule, budget, sizes)
    assert found is not None
    assert expected is not None
    assert found.flags.tolist() == expected.flags
    assert found.remaining == expected.remaining


def test_dedup_kept_under_skip_reads_a_long_scan_in_growing_chunks() -> None:
    # What is left and the IDs kept carry on from chunk to chunk (4,096 blocks, then
    # twice as many each time up to 65,536): the next 904 blocks repeat the first
    # chunk's IDs, which it kept but every 7th (too large there), so those alone are kept
    # of them; the rest are new IDs, read in six chunks in all.
    first, n, budget = rule_scan._CHUNK_MIN, 130_000, 10**6
    ids = np.arange(n)
    ids[first : first + 904] = np.arange(904)
    sizes = np.ones(n, dtype=np.int64)
    sizes[:first:7] = budget + 1
    rule = Rule(dedup="kept")
    expected = kept_blocks(rule, Case(budget, tuple(ids.tolist()), tuple(sizes.tolist()), ()))
    found = pack_rule(rule, budget, sizes, ids)
    assert found is not None
    assert expected is not None
    assert found.flags.tolist() == expected.flags
    assert found.flags[first : first + 904].tolist() == (np.arange(904) % 7 == 0).tolist()
    assert found.flags[first + 904 :].all()
    assert found.remaining == expected.remaining


@pytest.mark.parametrize("misfit", ["stop", "overshoot"])
def test_dedup_kept_handed_to_the_exact_loop_charges_each_kept_block_its_cost(
    monkeypatch: pytest.MonkeyPatch, misfit: Any
) -> None:
    # No round: the exact loop scans the costs, each already holding its charges.
    monkeypatch.setattr(rule_scan, "ROUNDS", 0)
    rule, sizes = Rule(dedup="kept", on_misfit=misfit, per_item=1), (1, 1, 1, 1)
    expected = kept_blocks(rule, Case(4, ("A", "B", "C", "D"), sizes, ()))
    found = pack_rule(rule, 4, np.array(sizes), np.array([0, 1, 2, 3]))
    assert found is not None
    assert expected is not None
    assert found.flags.tolist() == expected.flags
    assert found.remaining == expected.remaining


@pytest.mark.parametrize(
    "rule",
    [
        Rule(dedup="first", on_misfit="stop"),
        Rule(dedup="kept", order="middle-out"),
        Rule(pin="required", order="reversed", on_misfit="overshoot"),
    ],
)
def test_the_compiled_scan_as_plain_python_is_the_interpreters(
    monkeypatch: pytest.MonkeyPatch, rule: Rule
) -> None:
    # The compiled engine's scan with its loop as Python (no compilation): IDs are
    # handed to the loop under dedup = "kept" alone.
    monkeypatch.setattr(_compiled, "_rule_compiled", _compiled.rule_loop)
    sizes, ids = np.array([2, 1, 3, 1, 2]), np.array([0, 1, 0, 2, 1])
    case = Case(5, ("A", "B", "A", "C", "B"), tuple(sizes.tolist()), ("B",))
    expected = kept_blocks(rule, case)
    found = pack_rule(rule, 5, sizes, ids, ids == 1, compiled=True)
    assert found is not None
    assert expected is not None
    assert found.flags.tolist() == expected.flags
    assert found.remaining == expected.remaining


@pytest.mark.parametrize(
    ("order", "misfit", "names", "expected", "result"),
    [
        (0, 0, [], [True, True, False, False], (3, -1)),
        (1, 1, [], [False, False, False, False], (0, -1)),
        (2, 2, [], [True, False, False, True], (1, 3)),
        (0, 0, [0, 0, 1, 1], [True, False, True, False], (3, -1)),
        # A duplicate that fits is skipped; one that misfits does not end the scan.
        (0, 1, [0, 0, 1, 1], [True, False, True, False], (3, -1)),
        (2, 1, [0, 1, 1, 0], [True, True, False, False], (3, -1)),
        (2, 1, [0, 1, 0, 1], [True, False, False, False], (1, -1)),
    ],
)
def test_the_compiled_rule_loop_as_plain_python(
    order: int, misfit: int, names: list[int], expected: list[bool], result: tuple[int, int]
) -> None:
    base = np.array([1, 2, 2, 5], dtype=np.int64)
    met = np.zeros(4, dtype=np.bool_)
    seen = np.zeros(4, dtype=np.bool_)
    got = _compiled.rule_loop(
        base, np.array(names, dtype=np.int64), seen, order, 4, 1, 0, 3, misfit, met
    )
    assert got == result
    assert met.tolist() == expected


@pytest.mark.parametrize(
    "batch",
    [
        scan.pack_batch,
        pytest.param(
            compiled.pack_batch, marks=pytest.mark.skipif(not HAVE_NUMBA, reason=NO_NUMBA)
        ),
    ],
)
def test_pack_batch_under_a_rule_checks_its_input(batch: Any) -> None:
    rule = Rule(per_item=1)
    with pytest.raises(ValueError, match="budget -1 is below 0"):
        batch([-1], [1], [0, 1], rule=rule)
    with pytest.raises(ValueError, match=r"sizes >= 1 \(units\)"):
        batch([3], np.array([0, 1]), [0, 2], rule=rule)
    with pytest.raises(ValueError, match="one-dimensional"):
        batch([3], np.array(1), [0, 1], rule=rule)
    with pytest.raises(ValueError, match="one-dimensional"):
        batch([3], np.array([[1, 2]]), [0, 2], rule=rule)
    # IDs and required flags are needed where the rule reads them, in a short case too.
    with pytest.raises(ValueError, match='dedup = "first" needs ids'):
        batch([3], [1], [0, 1], rule=Rule(dedup="first"))
    with pytest.raises(ValueError, match='pin = "required" needs ids'):
        batch([3], [1], [0, 1], rule=Rule(pin="required"), wanted=[True])
    with pytest.raises(ValueError, match='pin = "required" needs wanted'):
        batch([3], [1], [0, 1], rule=Rule(pin="required"), ids=[0])
    with pytest.raises(ValueError, match="units"):
        batch([3], [2**64, -1], [0, 2], rule=rule)
    # A size past int64 is refused, never clipped to the budget: an overshoot or a pin
    # keeps its block whatever the size, and charges the whole size.
    with pytest.raises(ValueError, match="units"):
        batch([0], [2**64], [0, 1], rule=Rule(on_misfit="overshoot"))
    with pytest.raises(ValueError, match="units"):
        batch([5], np.array([2**63 + 5, 1], dtype=np.uint64), [0, 2], rule=Rule(pin="first"))
    # A remaining is checked against int64's edges exactly: -2**63 fits, one less does not.
    with pytest.raises(ValueError, match="case 0's remaining -9223372036854775809 does not"):
        batch([0], [INT64_MAX], [0, 1], rule=Rule(on_misfit="overshoot", per_item=2))
    _, low, _ = batch([0], [INT64_MAX], [0, 1], rule=Rule(on_misfit="overshoot", per_item=1))
    assert low.tolist() == [-(2**63)]
    _, high, _ = batch([INT64_MAX], [INT64_MAX - 1], [0, 1], rule=Rule(per_item=2))
    assert high.tolist() == [INT64_MAX]
    kept, remaining, refused = batch([3, 5], [1.0, 2.0, 6.0], [0, 2, 3], rule=rule)
    assert kept.tolist() == [True, False, False]
    assert remaining.tolist() == [1, 5]
    assert refused.tolist() == [False, False]


def test_pack_batch_under_a_rule_takes_the_kernel_for_long_cases(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(rule_batch, "SHORT", 2)
    rule = Rule(pin="required", refuse_budget_below=2)
    kept, remaining, refused = scan.pack_batch(
        [9, 1, 4],
        [3, 1, 4, 1, 5, 9],
        [0, 3, 4, 6],
        rule=rule,
        ids=[7, 8, 7, 1, 2, 3],
        wanted=[1, 0, 1, 0, 0, 1],
    )
    assert kept.tolist() == [True, True, True, False, False, True]
    assert remaining.tolist() == [1, 0, -5]
    assert refused.tolist() == [False, True, False]


def test_an_exact_sum_past_int64_is_summed_in_python() -> None:
    sizes = np.array([INT64_MAX, INT64_MAX], dtype=np.int64)
    assert rules._exact_sum(sizes, np.array([True, True])) == 2 * INT64_MAX
    assert rules._exact_sum(sizes, np.array([False, False])) == 0
    # Two sizes of 2**62 sum to 2**63: one past int64.
    halves = np.array([2**62, 2**62], dtype=np.int64)
    assert rules._exact_sum(halves, np.array([True, True])) == 2**63


def test_numbers_below_the_lowering_limit_are_lowered_not_interpreted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError("a case within the limit was handed to the interpreter")

    # What is left, scaled by 3, is just below 2**62: still the kernels'.
    rule, sizes = Rule(per_item="1/3", remaining="sizes"), np.array([2**62, 1, 2])
    expected = kept_blocks(rule, Case(2**62 // 3, ("a", "b", "c"), tuple(sizes.tolist()), ()))
    monkeypatch.setattr(rules, "_interpreted", refuse)
    found = pack_rule(rule, 2**62 // 3, sizes)
    assert found is not None
    assert expected is not None
    assert found.flags.tolist() == expected.flags == [False, True, True]
    assert found.remaining == expected.remaining


def test_the_numpy_engine_never_calls_the_compiled_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError("the compiled loop ran for the NumPy engine")

    monkeypatch.setattr(_compiled, "rule_scan", refuse)
    found = pack_rule(Rule(on_misfit="stop"), 3, np.array([1, 5, 1]))
    assert found is not None
    assert found.flags.tolist() == [True, False, False]
