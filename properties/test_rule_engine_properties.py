"""Every declared rule on the fast engines: the NumPy and compiled engines, and the
interpreter's answer-only loop, give the interpreter's answers exactly, for random rules
(every key, every value) and random cases, up to the int64 edge and past it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from _scan_check import HAVE_NUMBA, NO_NUMBA
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_rule_interpret_properties import rules

from packcheck import Rule, compiled, pack, scan
from packcheck._engines import rule_batch, rule_scan
from packcheck._engines.rules import pack_rule
from packcheck._rule.answer import kept_blocks
from packcheck._rule.interpret import interpret
from packcheck._rule.model import Case
from packcheck.strategies import cases

INT64_MAX = 2**63 - 1
_ENGINES = [
    "numpy",
    pytest.param("numba", marks=pytest.mark.skipif(not HAVE_NUMBA, reason=NO_NUMBA)),
]
# Cases whose IDs repeat (dedup, pins of required IDs), with units up to past int64.
_CASES = cases(max_blocks=30) | cases(max_blocks=12, max_units=2**70) | cases(max_units=INT64_MAX)


@pytest.fixture(scope="module", params=[1, 0], ids=["rounds-1", "rounds-0"])
def _rounds_cut_short(request: pytest.FixtureRequest) -> Iterator[None]:
    """The NumPy engine's ``dedup = "kept"`` fixed point cut short, so that the exact
    loop finishes it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rule_scan, "ROUNDS", request.param)
        yield


@example(
    Rule(order="reversed", on_misfit="overshoot", separator=2, pin="required", dedup="kept"),
    {"budget": 2**63 - 2, "blocks": [{"id": "A", "size": INT64_MAX}] * 3, "required": ["A"]},
)
@example(
    Rule(fit="lt", reserve=5), {"budget": 3, "blocks": [{"id": "A", "size": 1}], "required": []}
)
# Under dedup = "kept", what is left equal to the smallest size: a block still fits.
@example(
    Rule(dedup="kept"),
    {
        "budget": 5,
        "blocks": [{"id": "A", "size": 3}, {"id": "A", "size": 2}, {"id": "B", "size": 2}],
        "required": [],
    },
)
@example(
    Rule(dedup="kept", on_misfit="stop"),
    {"budget": 2, "blocks": [{"id": "A", "size": 2}, {"id": "B", "size": 3}], "required": []},
)
@given(rules(), _CASES)
def test_the_answer_alone_is_the_interpreters(rule: Rule, case: dict[str, Any]) -> None:
    assert interpret(rule, case, result_only=True).result == interpret(rule, case).result


@pytest.mark.parametrize("engine", _ENGINES)
@example(
    Rule(order="middle-out", on_misfit="overshoot", per_item="1/2", remaining="sizes"),
    {
        "budget": 2**62,
        "blocks": [{"id": "A", "size": INT64_MAX}, {"id": "B", "size": 1}],
        "required": [],
    },
)
@example(
    Rule(dedup="kept", on_misfit="stop", max_count=2),
    {
        "budget": 4,
        "blocks": [{"id": "A", "size": 5}, {"id": "A", "size": 1}, {"id": "A", "size": 1}],
        "required": ["A"],
    },
)
@example(Rule(separator=2), {"budget": 3, "blocks": [{"id": "A", "size": 3}], "required": []})
@given(rules(), _CASES)
def test_every_rule_on_the_engines_is_the_interpreters(
    engine: Any, rule: Rule, case: dict[str, Any]
) -> None:
    assert pack(case, rule=rule, engine=engine) == interpret(rule, case).result


@example(
    Rule(dedup="kept"),
    {
        "budget": 4,
        "blocks": [{"id": "A", "size": 9}] * 2 + [{"id": "B", "size": 4}],
        "required": [],
    },
)
@example(
    Rule(dedup="kept"),
    {"budget": 9, "blocks": [{"id": "A", "size": 1}] * 3, "required": []},
)
@example(
    # A misfits in the first chunk and fits in the second, at a later place than it
    # had in the first: its threshold there must not outlive the first chunk.
    Rule(dedup="kept"),
    {
        "budget": 8,
        "blocks": [{"id": i, "size": s} for i, s in zip("XABCEA", (3, 6, 3, 3, 3, 2), strict=True)],
        "required": [],
    },
)
@given(rules(), _CASES)
def test_dedup_kept_read_two_blocks_at_a_time_is_the_interpreters(
    rule: Rule, case: dict[str, Any]
) -> None:
    # Chunks of 2 to 8 blocks: what is left and the IDs kept are carried across many
    # chunk boundaries, where a block may fit exactly or repeat an ID kept before.
    rule = replace(rule, dedup="kept")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rule_scan, "_CHUNK_MIN", 2)
        patch.setattr(rule_scan, "_CHUNK_MAX", 8)
        assert pack(case, rule=rule, engine="numpy") == interpret(rule, case).result


# The bound on rounds is read by the NumPy engine under dedup = "kept" alone: the
# compiled loop and every other rule never meet it.  A quarter of the profile's
# examples, each such a rule, is as many as a quarter of the rules drawn above.
@pytest.mark.usefixtures("_rounds_cut_short")
@example(
    Rule(dedup="kept", on_misfit="stop", max_count=2),
    {
        "budget": 4,
        "blocks": [{"id": "A", "size": 5}, {"id": "A", "size": 1}, {"id": "A", "size": 1}],
        "required": ["A"],
    },
)
@settings(max_examples=max(25, settings.default.max_examples // 4))
@given(rules().map(lambda rule: Rule(**{**rule.keys(), "dedup": "kept"})), _CASES)
def test_every_rule_keeping_an_id_once_is_the_interpreters_with_its_rounds_cut_short(
    rule: Rule, case: dict[str, Any]
) -> None:
    assert pack(case, rule=rule, engine="numpy") == interpret(rule, case).result


def _long_case(draw: st.DrawFn) -> Case:
    """Thousands of blocks, so that the chunked prefix and the level kernel's NumPy
    rounds run: sizes 1-100 (or a few huge ones), IDs from a small pool."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.sampled_from([5_000, 20_000, 70_000]))
    sizes = rng.integers(1, 101, n)
    if draw(st.booleans()):
        sizes[rng.integers(0, n, 5)] = INT64_MAX
    pool = draw(st.sampled_from([3, 1_000, n]))
    ids = rng.integers(0, pool, n)
    budget = int(int(sizes[sizes < 1000].sum()) * draw(st.sampled_from([0.0, 0.01, 0.5, 1.0])))
    return Case(budget, tuple(ids.tolist()), tuple(sizes.tolist()), tuple(range(0, pool, 7)))


@pytest.mark.parametrize("engine", _ENGINES)
@settings(max_examples=25)
@given(rules(), st.data())
def test_long_scans_on_the_engines_are_the_interpreters(
    engine: Any, rule: Rule, data: st.DataObject
) -> None:
    case = data.draw(st.composite(_long_case)())
    sizes = np.array(case.sizes, dtype=np.int64)
    ids = np.array(case.ids, dtype=np.int64)
    wanted = np.isin(ids, np.array(case.required, dtype=np.int64))
    expected = kept_blocks(rule, case)
    found = pack_rule(rule, case.budget, sizes, ids, wanted, compiled=engine == "numba")
    if expected is None:
        assert found is None
        return
    assert found is not None
    assert found.flags.tolist() == expected.flags
    assert found.remaining == expected.remaining
    assert (found.order is None and expected.order is None) or (
        found.order is not None and found.order.tolist() == expected.order
    )


@pytest.mark.parametrize("engine", _ENGINES)
@pytest.mark.parametrize("short", [0, 1024])
@settings(max_examples=50)
@given(
    rules(),
    st.lists(
        st.tuples(
            st.integers(0, 40),
            st.lists(st.tuples(st.integers(0, 3), st.integers(1, 9)), max_size=12),
        ),
        max_size=6,
    ),
)
def test_pack_batch_under_a_rule_is_the_interpreter_case_by_case(
    engine: Any, short: int, rule: Rule, batch: list[tuple[int, list[tuple[int, int]]]]
) -> None:
    budgets = [budget for budget, _ in batch]
    ids = [block_id for _, blocks in batch for block_id, _ in blocks]
    sizes = [size for _, blocks in batch for _, size in blocks]
    offsets = np.cumsum([0, *(len(blocks) for _, blocks in batch)])
    wanted = [block_id % 2 == 0 for block_id in ids]
    kernel = scan.pack_batch if engine == "numpy" else compiled.pack_batch
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rule_batch, "SHORT", short)
        kept, remaining, refused = kernel(
            budgets, sizes, offsets, rule=rule, ids=ids, wanted=wanted
        )
    for case, (budget, blocks) in enumerate(batch):
        lo, hi = int(offsets[case]), int(offsets[case + 1])
        names = tuple(block_id for block_id, _ in blocks)
        required = tuple(sorted({block_id for block_id in names if block_id % 2 == 0}))
        expected = kept_blocks(
            rule, Case(budget, names, tuple(size for _, size in blocks), required)
        )
        assert bool(refused[case]) == (expected is None)
        if expected is not None:
            assert kept[lo:hi].tolist() == expected.flags
            assert int(remaining[case]) == expected.remaining
