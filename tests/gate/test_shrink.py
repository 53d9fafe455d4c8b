"""``packcheck._gate.shrink``: failing probe cases come back shorter first, then simpler."""

from __future__ import annotations

import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from cases import blocks
from packers import broken, wild

from packcheck import pack
from packcheck._gate import shrink as _shrink
from packcheck._gate.probes import LADDER, Probe
from packcheck._gate.shrink import _shorter, _smaller, shrink
from packcheck._rule.model import Case, read_case
from packcheck.verify._causes import departure_index

DEFAULT_UNITS = 2**53 - 1


def _soon() -> float:
    return time.monotonic() + 20


class _Judge:
    """A ``fails`` predicate that records every candidate it was asked about."""

    def __init__(self, fails: Callable[[dict[str, Any]], bool]) -> None:
        self.fails = fails
        self.seen: list[tuple[dict[str, Any], bool]] = []

    def __call__(self, case: dict[str, Any]) -> bool:
        verdict = self.fails(case)
        self.seen.append((case, verdict))
        return verdict


def _departs(packer: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], int | None]:
    """Where ``packer``'s answer departs from the rule's, as ``verify``'s oracle says it."""
    return lambda case: departure_index(case, packer(case))


def _long(case: dict[str, Any]) -> bool:
    return len(case["blocks"]) > 3000


def _repeat_kept(case: dict[str, Any]) -> bool:
    """Two blocks with the same ID are both kept (a failure that needs no length)."""
    out = pack(case)
    return "kept" in out and len(set(out["kept"])) < len(out["kept"])


def test_a_failure_needing_length_takes_the_shortest_ladder_length_that_fails() -> None:
    probe = Probe("mixed", 8192, 5, DEFAULT_UNITS)
    judge = _Judge(_long)
    best = shrink(probe.build(), judge, probe=probe, deadline=_soon())
    # The recipe first, shortest first: every shorter length is tried in order up to
    # 4095, the shortest ladder length past 3000, which is the first case that fails.
    tried = [len(case["blocks"]) for case, _ in judge.seen]
    first = next(i for i, (_, verdict) in enumerate(judge.seen) if verdict)
    assert tried[: first + 1] == [*range(1, 16), *(n for n in LADDER if n <= 4095)]
    assert judge.seen[first][0] == probe.shorter(4095).build()
    # Leading blocks then go by bisection while it still fails: one block past 3000.
    assert len(best["blocks"]) == 3001
    assert _long(best)


def _exact_fits(length: int) -> dict[str, Any]:
    """Every block fits, the last one exactly: the rule has nothing left."""
    sizes = [1 + (7 * i) % 5 for i in range(length)]
    blocks = [{"id": "A", "size": size} for size in sizes]
    return {"budget": sum(sizes), "blocks": blocks, "required": []}


def test_leading_blocks_go_with_the_units_the_rule_keeps_in_them() -> None:
    # Fails past 3,000 blocks when the rule ends on an exact fit: dropping blocks with
    # the budget as it is leaves units over, so only a budget lowered by what the rule
    # kept in the dropped blocks keeps the failure.
    def fails(case: dict[str, Any]) -> bool:
        out = pack(case)
        every = len(out["kept"]) == len(case["blocks"]) > 3000
        return every and out["remaining"] == 0

    case = _exact_fits(4095)
    judge = _Judge(fails)
    best = shrink(case, judge, deadline=_soon())
    assert len(best["blocks"]) == 3001
    assert fails(best)
    # Found by bisection (a try per halving), before any block is simplified.
    first = next(i for i, (c, _) in enumerate(judge.seen) if len(c["blocks"]) == 3001)
    assert first < 20
    shortest = judge.seen[first][0]
    assert shortest["blocks"] == [{**b, "id": str(i)} for i, b in enumerate(case["blocks"])][1094:]
    assert shortest["budget"] == sum(b["size"] for b in shortest["blocks"])


def test_leading_blocks_go_with_the_budget_kept_when_it_must_stay() -> None:
    # A packer that scans from the end sees the same newest blocks under the same budget.
    case = _exact_fits(4095)

    def fails(c: dict[str, Any]) -> bool:
        return len(c["blocks"]) > 3000 and c["budget"] == case["budget"]

    best = shrink(case, fails, deadline=_soon())
    assert len(best["blocks"]) == 3001
    assert best["budget"] == case["budget"]


@pytest.mark.parametrize(
    "odd",
    [
        {"budget": True},
        {"budget": -1},
        {},
        {"size": "4"},
        {"size": 0},
    ],
)
def test_odd_units_keep_the_budget_as_leading_blocks_go(odd: dict[str, Any]) -> None:
    case = _exact_fits(600)
    if "size" in odd:
        case["blocks"][-1] = {"id": "A", **odd}
    else:
        del case["budget"]
        case.update(odd)
    judge = _Judge(lambda c: len(c["blocks"]) > 400)
    best = shrink(case, judge, deadline=_soon())
    assert len(best["blocks"]) == 401
    # The IDs made indexes, then the bisection's first try: half the blocks gone, the
    # budget as it was (or still absent).
    distinct, bisect = judge.seen[0][0], judge.seen[1][0]
    assert bisect["blocks"] == distinct["blocks"][300:]
    assert bisect.get("budget", "absent") == case.get("budget", "absent")


def test_a_long_list_that_stops_shrinking_finishes_well_before_the_deadline() -> None:
    probe = Probe("fits", 4096, 1, DEFAULT_UNITS)
    judge = _Judge(lambda case: len(case["blocks"]) >= 4096)
    started = time.monotonic()
    best = shrink(probe.build(), judge, probe=probe, deadline=started + 20)
    assert len(best["blocks"]) == 4096
    assert time.monotonic() - started < 5
    assert len(judge.seen) < 1000


def test_the_result_always_fails_and_never_holds_an_invalid_unit() -> None:
    probe = Probe("oversized", 1000, 2, DEFAULT_UNITS)
    judge = _Judge(_repeat_kept)
    best = shrink(probe.build(), judge, probe=probe, deadline=_soon())
    assert _repeat_kept(best)
    assert len(judge.seen) > 20
    for candidate, _ in judge.seen:
        assert isinstance(read_case(candidate), Case), candidate


def test_a_failure_needing_no_length_shrinks_to_two_small_blocks() -> None:
    probe = Probe("sawtooth", 1024, 3, DEFAULT_UNITS)
    case = probe.build()
    assert max(b["size"] for b in case["blocks"]) > 2**20
    best = shrink(case, _repeat_kept, probe=probe, deadline=_soon())
    # The shrinker keeps the probe's own IDs (lettering comes after it, in the gate):
    # two blocks of one ID, whatever the probe's stream named it.
    same_id = best["blocks"][0]["id"]
    assert best == {
        "budget": 2,
        "blocks": [{"id": same_id, "size": 1}, {"id": same_id, "size": 1}],
        "required": [],
    }


def test_an_overflow_keeps_its_magnitude() -> None:
    case = {
        "budget": 2**63 + 2,
        "blocks": [
            {"id": "B", "size": 2**62 + 1},
            {"id": "C", "size": 2**62 + 1},
            {"id": "D", "size": 5},
        ],
        "required": ["C", "Z"],
    }
    best = shrink(case, lambda c: c["budget"] >= 2**63, deadline=_soon())
    assert best["budget"] == 2**63  # the smallest budget that still fails
    assert best["blocks"] == []
    assert best["required"] == []


def test_a_passed_deadline_returns_the_input_unchanged() -> None:
    probe = Probe("fits", 1000, 1, DEFAULT_UNITS)
    case = probe.build()
    judge = _Judge(_long)
    assert shrink(case, judge, probe=probe, deadline=time.monotonic() - 1) is case
    assert judge.seen == []


def test_the_deadline_stops_shrinking_with_the_best_case_so_far(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = 0.0
    monkeypatch.setattr(_shrink, "time", SimpleNamespace(monotonic=lambda: now))

    def fails(case: dict[str, Any]) -> bool:
        nonlocal now
        if len(case["blocks"]) <= 300:
            now = 2.0  # the clock passes the deadline after this (successful) try
        return True

    case = Probe("fits", 600, 1, DEFAULT_UNITS).build()
    best = shrink(case, fails, deadline=1.0)
    assert len(best["blocks"]) == 300
    # The same blocks, each ID made its index (a long list's blame by ID is exact).
    assert [b["size"] for b in best["blocks"]] == [b["size"] for b in case["blocks"][300:]]
    assert [b["id"] for b in best["blocks"]] == [str(i) for i in range(300, 600)]
    # The first half went first, with what the rule has left after it as the budget.
    assert best["budget"] == pack({**case, "blocks": case["blocks"][:300]})["remaining"]
    assert best["budget"] < case["budget"]


def test_a_cut_at_the_departure_comes_before_delta_debugging() -> None:
    # The packer stops at the first block that does not fit: its kept list departs at
    # blocks[3], so the first candidate is the list cut just past it.
    case = {"budget": 7, "blocks": blocks(2, 9, 1, 1, 1, ids="ABCDE"), "required": []}

    def wrong(c: dict[str, Any]) -> bool:
        return bool(broken.stop_at_first_misfit(c) != pack(c))

    judge = _Judge(wrong)
    best = shrink(case, judge, deadline=_soon(), departs=_departs(broken.stop_at_first_misfit))
    assert judge.seen[0] == ({**case, "blocks": case["blocks"][:3]}, True)
    assert wrong(best)
    assert [b["size"] for b in best["blocks"]] == [2, 1]


def test_no_cut_when_the_answer_agrees_or_departs_at_the_last_block() -> None:
    case = {"budget": 1, "blocks": [{"id": "A", "size": 1}], "required": []}
    judge = _Judge(lambda c: False)
    shrink(case, judge, deadline=_soon(), departs=_departs(pack))
    assert [len(c["blocks"]) for c, _ in judge.seen][:1] == [0]
    judge = _Judge(lambda c: False)
    shrink(case, judge, deadline=_soon(), departs=_departs(lambda c: {"kept": []}))
    assert [len(c["blocks"]) for c, _ in judge.seen][:1] == [0]


def test_a_wide_probe_has_no_shorter_recipe_and_a_run_probe_shorter_runs() -> None:
    wide = Probe(f"wide:{2**63}", 0, 1, 2**70)
    case = wide.build()
    judge = _Judge(lambda c: False)
    shrink(case, judge, probe=wide, deadline=_soon())
    # No recipe step: the first candidate is delta debugging's first cut.
    assert judge.seen[0][0]["blocks"] == case["blocks"][len(case["blocks"]) // 2 :]
    # A run's shorter recipes are the runs before it: here only the first, 4,096 long.
    run = Probe("run", 4096, 1, DEFAULT_UNITS)
    judge = _Judge(lambda c: len(c["blocks"]) > 5000)
    best = shrink(run.build(), judge, probe=run, deadline=_soon())
    assert judge.seen[0] == (run.shorter(0).build(), False)
    assert 4096 <= len(judge.seen[0][0]["blocks"]) <= 4099
    assert 5000 < len(best["blocks"]) < 12_288


def test_ids_are_never_made_alike() -> None:
    # Two blocks of one ID would hide which block went where; the gate letters IDs
    # A, B, C... after shrinking (tests/gate/test_letters.py).
    case = {
        "budget": 3,
        "blocks": [{"id": "B", "size": 1}, {"id": "C", "size": 1}],
        "required": [],
    }
    judge = _Judge(lambda c: bool(c["blocks"]))
    best = shrink(case, judge, deadline=_soon())
    assert best == {"budget": 0, "blocks": [{"id": "C", "size": 1}], "required": []}
    assert all(b["id"] in ("B", "C") for c, _ in judge.seen for b in c["blocks"])


def test_simpler_contents_drop_extra_keys_and_required_entries() -> None:
    case = {
        "budget": 40,
        "blocks": [
            {"id": "B", "size": 30, "text": "x"},
            {"id": "C", "size": 30, "text": "y"},
        ],
        "required": ["B", "Q", "R"],
    }

    def fails(c: dict[str, Any]) -> bool:
        return len(c["blocks"]) == 2 and len(c["required"]) >= 1

    best = shrink(case, fails, deadline=_soon())
    assert best == {
        "budget": 0,
        "blocks": [{"id": "B", "size": 1}, {"id": "C", "size": 1}],
        "required": ["Q"],
    }


def test_blocks_made_smaller_are_dropped_again() -> None:
    # Newest first, '<' for '<=': the two differ when the newest blocks fill the budget
    # exactly. Here only all four do, so no block can go until the numbers are divided
    # down (budget 1, every size 1), when one block is enough.
    case = {
        "budget": 10,
        "blocks": [{"id": "A", "size": 1}, {"id": "B", "size": 2.0}, *_sized(3, 4)],
        "required": [],
    }

    def fails(c: dict[str, Any]) -> bool:
        return bool(wild.keep_newest_lt(c) != wild.keep_newest(c))

    assert fails(case)
    best = shrink(case, fails, deadline=_soon())
    assert best == {"budget": 1, "blocks": [{"id": "C", "size": 1}], "required": []}


def _sized(*sizes: int) -> list[dict[str, Any]]:
    return [{"id": "C", "size": size} for size in sizes]


def test_invalid_units_are_left_as_they_are() -> None:
    case = {
        "budget": True,
        "blocks": [{"id": "B", "size": "4"}, {"id": "C", "size": 2.5}],
        "required": [],
    }
    judge = _Judge(lambda c: len(c["blocks"]) == 2)
    best = shrink(case, judge, deadline=_soon())
    assert best["budget"] is True
    assert [b["size"] for b in best["blocks"]] == ["4", 2.5]
    assert all(c["budget"] is True for c, _ in judge.seen)


def test_an_empty_case_has_nothing_to_shrink() -> None:
    case: dict[str, Any] = {"budget": 0, "blocks": [], "required": []}
    judge = _Judge(lambda c: True)
    assert shrink(case, judge, deadline=_soon()) is case
    assert judge.seen == []


def test_smaller_units_never_go_below_the_floor() -> None:
    assert _smaller(10) == [0, 1, 5, 9]
    assert _smaller(10, floor=1) == [1, 5, 9]
    assert _smaller(1, floor=1) == []
    assert _smaller(2, floor=1) == [1]
    assert _smaller(0) == []


def test_shorter_recipes_stop_below_the_probe_or_at_the_longest_run() -> None:
    lengths = [p.length for p in _shorter(Probe("run", 61440, 1, DEFAULT_UNITS))]
    assert lengths == [0, 4096, 12288, 28672]
    lengths = [p.length for p in _shorter(Probe("sawtooth", 17, 1, DEFAULT_UNITS))]
    assert lengths == [*range(1, 16), 15, 16]
    assert list(_shorter(Probe("wide:1024", 0, 1, DEFAULT_UNITS))) == []
    # Longer than the ladder (no probe is): every ladder length is shorter.
    lengths = [p.length for p in _shorter(Probe("fits", 200_000, 1, DEFAULT_UNITS))]
    assert lengths == [*range(1, 16), *LADDER]


def test_shrinking_stops_after_its_number_of_tries() -> None:
    calls: list[int] = []

    def fails(case: dict[str, Any]) -> bool:
        calls.append(1)
        return True

    case = {"budget": 9, "blocks": [{"id": "B", "size": 3}] * 6, "required": ["A"]}
    assert shrink(case, fails, deadline=_soon(), tries=0) is case
    shrink(case, fails, deadline=_soon(), tries=5)
    assert len(calls) == 5


def test_a_case_without_a_budget_keeps_it_absent_and_a_gone_block_has_no_options() -> None:
    from packcheck._gate.shrink import _simpler_block, _whole_floats_as_ints

    case = {"blocks": [{"id": "B", "size": 4.0}, {"id": "C"}], "required": []}
    assert _whole_floats_as_ints(case) == {
        "blocks": [{"id": "B", "size": 4}, {"id": "C"}],
        "required": [],
    }
    assert list(_simpler_block(lambda: case, 5)) == []
