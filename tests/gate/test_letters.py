"""Readable IDs for a shrunk counterexample (packcheck._gate.letters)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from packcheck._gate.letters import letter, lettered


class _Judge:
    """A ``fails`` predicate that records every candidate it was asked about."""

    def __init__(self, fails: Callable[[dict[str, Any]], bool]) -> None:
        self.fails = fails
        self.seen: list[dict[str, Any]] = []

    def __call__(self, case: dict[str, Any]) -> bool:
        self.seen.append(case)
        return self.fails(case)


def _case(ids: list[str], required: list[str] = []) -> dict[str, Any]:  # noqa: B006
    blocks = [{"id": own, "size": i + 1} for i, own in enumerate(ids)]
    return {"budget": 3, "blocks": blocks, "required": required}


def _ids(case: dict[str, Any]) -> list[str]:
    return [b["id"] for b in case["blocks"]]


@pytest.mark.parametrize(
    ("index", "name"),
    [(0, "A"), (1, "B"), (25, "Z"), (26, "AA"), (27, "AB"), (701, "ZZ"), (702, "AAA")],
)
def test_letters_go_on_past_z_as_spreadsheet_columns(index: int, name: str) -> None:
    assert letter(index) == name


def test_every_block_gets_its_own_letter_by_first_appearance() -> None:
    case = _case(["\uff00\ud83d", "a\U0001f600", "\uff00\ud83d"], ["q", "a\U0001f600", "q"])
    case["blocks"][0]["text"] = "kept"
    judge = _Judge(lambda c: True)
    best = lettered(case, judge, tries=12)
    assert best == {
        "budget": 3,
        "blocks": [
            {"id": "A", "size": 1, "text": "kept"},
            {"id": "B", "size": 2},
            {"id": "C", "size": 3},
        ],
        # A required ID names its first block's letter; one that names no block, the next free.
        "required": ["D", "B", "D"],
    }
    assert judge.seen == [best]


def test_ids_stay_equal_only_where_the_failure_needs_it() -> None:
    # The failure needs blocks 0 and 1 to share an ID; blocks 2 and 3 share one by chance.
    case = _case(["x", "x", "y", "y"], ["y"])
    judge = _Judge(lambda c: c["blocks"][0]["id"] == c["blocks"][1]["id"])
    best = lettered(case, judge, tries=12)
    assert _ids(best) == ["A", "A", "B", "C"]
    assert best["required"] == ["B"]
    # All apart (passes), one for one (fails), then each shared ID apart in turn.
    assert [_ids(c) for c in judge.seen] == [
        ["A", "B", "C", "D"],
        ["A", "A", "B", "B"],
        ["A", "B", "C", "C"],
        ["A", "A", "B", "C"],
    ]


def test_ids_whose_text_matters_are_left_as_they_are() -> None:
    case = _case(["\uff00", "B"], ["\U0001f600"])
    judge = _Judge(lambda c: c["required"] == ["\U0001f600"])
    assert lettered(case, judge, tries=12) is case
    assert len(judge.seen) == 1  # no shared ID: renaming one for one is the same try
    case = _case(["\uff00", "\uff00"])
    judge = _Judge(lambda c: c["blocks"][0]["id"] == "\uff00")
    assert lettered(case, judge, tries=12) is case
    assert len(judge.seen) == 2


def test_many_blocks_go_past_z() -> None:
    best = lettered(_case([str(i) for i in range(30)]), lambda c: True, tries=1)
    assert _ids(best)[-5:] == ["Z", "AA", "AB", "AC", "AD"]


def test_readable_ids_and_malformed_cases_cost_no_call() -> None:
    judge = _Judge(lambda c: True)
    readable = _case(["A", "B", "C"], ["B", "D"])
    assert lettered(readable, judge, tries=12) == readable
    for malformed in (
        {"budget": 1, "blocks": None, "required": []},
        {"budget": 1, "blocks": [{"id": 1, "size": 1}], "required": []},
        {"budget": 1, "blocks": ["A"], "required": []},
        {"budget": 1, "blocks": [], "required": "A"},
        {"budget": 1, "blocks": [], "required": [None]},
    ):
        assert lettered(malformed, judge, tries=12) is malformed
    assert judge.seen == []


def test_tries_are_bounded() -> None:
    case = _case(["x", "x", "y", "y", "z", "z"])
    judge = _Judge(lambda c: False)
    assert lettered(case, judge, tries=3) is case
    assert len(judge.seen) == 2  # the one-for-one renaming passes: no group is tried
    judge = _Judge(lambda c: len(set(_ids(c))) < 6)
    best = lettered(case, judge, tries=3)
    assert len(judge.seen) == 3
    assert _ids(best) == ["A", "B", "C", "C", "D", "D"]
