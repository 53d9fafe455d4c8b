"""Reading a case: shape first (malformed), then units (``{"error": "size"}``)."""

from __future__ import annotations

from collections import OrderedDict, UserDict
from decimal import Decimal
from typing import Any

import pytest

from packcheck import Case, MalformedCase, SizeError, read_case
from packcheck._rule.model import json_type, valid_case
from packcheck._rule.units import MAX_DIGITS


def case(budget: Any = 7, sizes: tuple[Any, ...] = (4, 3, 2), **extra: Any) -> dict[str, Any]:
    blocks = [{"id": chr(ord("A") + i), "size": s} for i, s in enumerate(sizes)]
    return {"budget": budget, "blocks": blocks, "required": ["B", "C"], **extra}


def test_a_well_formed_case_is_read_exactly() -> None:
    read = read_case(case(budget=Decimal("7.0"), sizes=(4.0, Decimal("3"), 2), note="x"))
    assert read == Case(budget=7, ids=("A", "B", "C"), sizes=(4, 3, 2), required=("B", "C"))
    assert all(type(n) is int for n in (read.budget, *read.sizes))


def test_any_mapping_is_a_case_and_a_block() -> None:
    read = read_case(OrderedDict(budget=1, blocks=[OrderedDict(id="A", size=1)], required=[]))
    assert read == Case(1, ("A",), (1,), ())


def test_no_blocks_and_a_zero_budget_are_fine() -> None:
    assert read_case({"budget": 0, "blocks": [], "required": ["X"]}) == Case(0, (), (), ("X",))


@pytest.mark.parametrize(
    ("value", "where", "why"),
    [
        ([], "case", "expected an object, got array"),
        ("case", "case", "expected an object, got string"),
        ({"budget": 1, "required": []}, "blocks", "expected an array of blocks, got absent"),
        ({"blocks": {}, "required": []}, "blocks", "expected an array of blocks, got object"),
        ({"blocks": [1], "required": []}, "blocks[0]", "expected an object, got number"),
        (
            {"blocks": [{"size": 1}], "required": []},
            "blocks[0].id",
            "expected a string, got absent",
        ),
        ({"blocks": [{"id": 1}], "required": []}, "blocks[0].id", "expected a string, got number"),
        ({"blocks": []}, "required", "expected an array of strings, got absent"),
        ({"blocks": [], "required": "A"}, "required", "expected an array of strings, got string"),
        ({"blocks": [], "required": ["A", None]}, "required[1]", "expected a string, got null"),
    ],
)
def test_a_case_of_the_wrong_shape_is_malformed(value: object, where: str, why: str) -> None:
    with pytest.raises(MalformedCase) as info:
        read_case(value)
    assert (info.value.where, info.value.why) == (where, why)
    assert str(info.value) == f"{where}: {why}"


def test_shape_is_checked_for_every_block_before_any_unit() -> None:
    value = {"budget": 1, "blocks": [{"id": "A", "size": -1}, {"id": 2}], "required": []}
    with pytest.raises(MalformedCase, match=r"blocks\[1\]\.id"):
        read_case(value)


@pytest.mark.parametrize(
    ("budget", "reason"),
    [
        (-1, "budget: -1 (number) is not an integer >= 0"),
        (2.5, "budget: 2.5 (number) is not an integer >= 0"),
        (Decimal("4.0000000000000000001"), "budget: 4.0000000000000000001 (number) is not"),
        (True, "budget: true (boolean) is not an integer >= 0"),
        (None, "budget: null is not an integer >= 0"),
        ("4", 'budget: "4" (string) is not an integer >= 0'),
        ([], "budget: [] (array) is not an integer >= 0"),
        ({}, "budget: {} (object) is not an integer >= 0"),
    ],
)
def test_an_invalid_budget_is_a_size_error(budget: object, reason: str) -> None:
    read = read_case(case(budget=budget))
    assert isinstance(read, SizeError)
    assert read.where == "budget"
    assert read.reason.startswith(reason)


def test_an_absent_budget_is_a_size_error() -> None:
    value = case()
    del value["budget"]
    read = read_case(value)
    assert read == SizeError("budget", None, absent=True)
    assert read.reason == "budget: absent is not an integer >= 0"


@pytest.mark.parametrize(
    "size", [0, -1, 2.5, Decimal("4.0000000000000000001"), True, False, None, "4", [], {}]
)
def test_an_invalid_size_anywhere_is_a_size_error(size: object) -> None:
    read = read_case(case(sizes=(4, 3, 2, size)))
    assert isinstance(read, SizeError)
    assert read.where == "blocks[3].size"
    assert read.reason.endswith("is not an integer >= 1")


def test_an_absent_size_is_a_size_error() -> None:
    value = case()
    del value["blocks"][1]["size"]
    read = read_case(value)
    assert read == SizeError("blocks[1].size", None, absent=True)
    assert read.reason == "blocks[1].size: absent is not an integer >= 1"


def test_the_first_invalid_field_in_reading_order_is_named() -> None:
    read = read_case(case(budget=-1, sizes=(0, -1)))
    assert isinstance(read, SizeError)
    assert read.where == "budget"
    read = read_case(case(sizes=(1, 0, -1)))
    assert isinstance(read, SizeError)
    assert read.where == "blocks[1].size"


def test_a_long_value_is_shortened_in_the_reason() -> None:
    read = read_case(case(sizes=("x" * 100,)))
    assert isinstance(read, SizeError)
    assert '"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (string)' in read.reason


def test_a_unit_past_the_digit_limit_is_malformed_not_a_size_error() -> None:
    with pytest.raises(MalformedCase, match=r"^blocks\[0\]\.size: number has 100001 digits"):
        read_case(case(sizes=(Decimal(f"1E+{MAX_DIGITS}"),)))


def test_huge_integers_are_read_exactly() -> None:
    big = 10**5000 + 1
    read = read_case(case(budget=big, sizes=(2**70,)))
    assert isinstance(read, Case)
    assert (read.budget, read.sizes) == (big, (2**70,))


def test_json_type_names_json_types() -> None:
    names = [json_type(v) for v in (None, True, 1, 1.5, Decimal(1), "", {}, [], (), b"")]
    assert names == [
        "null",
        "boolean",
        "number",
        "number",
        "number",
        "string",
        "object",
        "array",
        "array",
        "bytes",
    ]


def test_a_size_that_is_not_json_at_all_is_shown_as_python_shows_it() -> None:
    read = read_case({"budget": 1, "blocks": [{"id": "A", "size": {1, 2}}], "required": []})
    assert isinstance(read, SizeError)
    assert read.reason == "blocks[0].size: {1, 2} (set) is not an integer >= 1"


def _plain(**changes: object) -> dict[str, object]:
    case: dict[str, object] = {
        "budget": 7,
        "blocks": [{"id": "A", "size": 4}, {"id": "B", "size": 3}],
        "required": ["B", "C"],
    }
    case.update(changes)
    return case


def _walked(case: object) -> object:
    """``case`` with every mapping a ``UserDict``: read by the general reader's walk."""
    if not isinstance(case, dict):
        return case
    blocks = case.get("blocks")
    if isinstance(blocks, list):
        blocks = [UserDict(b) if isinstance(b, dict) else b for b in blocks]
    return UserDict({**case, "blocks": blocks})


def _read(case: object) -> object:
    try:
        return read_case(case)
    except MalformedCase as exc:
        return str(exc)


def test_a_plain_case_is_read_at_c_speed_to_the_same_case() -> None:
    assert read_case(_plain()) == Case(7, ("A", "B"), (4, 3), ("B", "C"))
    assert read_case(_walked(_plain())) == read_case(_plain())
    # Beyond ASCII, an ID without a surrogate is its own UTF-16 identity: still plain.
    wide = _plain(blocks=[{"id": "é", "size": 4}], required=["\U0001f600"])
    assert read_case(wide) == Case(7, ("é",), (4,), ("\U0001f600",))


@pytest.mark.parametrize(
    "case",
    [
        [],
        _plain(blocks=()),
        _plain(required=("B",)),
        _plain(budget=7.0),
        _plain(budget=True),
        _plain(budget=-1),
        _plain(blocks=[{"id": "A", "size": 4}, ["B", 3]]),
        _plain(blocks=[{"id": "A", "size": 4}, {"size": 3}]),
        _plain(blocks=[{"id": "A", "size": 4}, {"id": "B"}]),
        _plain(blocks=[{"id": "A", "size": True}]),
        _plain(blocks=[{"id": "A", "size": 0}]),
        _plain(blocks=[{"id": 1, "size": 4}]),
        _plain(required=["B", 2]),
        _plain(blocks=[{"id": "\ud83d\ude00", "size": 4}]),
        _plain(required=["\ud800"]),
    ],
)
def test_anything_but_a_plain_case_is_read_as_the_general_reader_reads_it(case: object) -> None:
    assert _read(case) == _read(_walked(case))


@pytest.mark.parametrize(
    "sizes",
    [[0], [4, 0, 3], [4, 1, -3, 0], [1] * 300 + [0], [2, -(10**30)], [3, 1, 2, 0, 0]],
)
@pytest.mark.parametrize("ids", ["AB", "\U0001f600\ud83d"])
def test_a_plain_case_with_a_size_below_one_names_the_first_as_the_walk_does(
    sizes: list[int], ids: str
) -> None:
    blocks = [{"id": ids[i % 2], "size": size} for i, size in enumerate(sizes)]
    plain = _plain(blocks=blocks, required=[ids[0]])
    # A mapping that is no dict takes the general reader's walk.
    walked = read_case({**plain, "blocks": [UserDict(b) for b in blocks]})
    read = read_case(plain)
    assert isinstance(read, SizeError)
    assert read == walked
    assert type(read.value) is int
    # A malformed block after it is still malformed.
    with pytest.raises(MalformedCase, match=r"blocks\[\d+\]\.id"):
        read_case({**plain, "blocks": [*blocks, {"id": 1, "size": 1}]})


def test_a_valid_case_is_read_and_any_other_is_none() -> None:
    assert valid_case(case()) == read_case(case())
    assert valid_case(case(sizes=(4, 0))) is None  # a size error
    assert valid_case(case(budget=Decimal(f"1E+{MAX_DIGITS}"))) is None  # too many digits
    assert valid_case([]) is None  # malformed
