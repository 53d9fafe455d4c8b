"""The strategies reach every class of case the gate needs, with real probability.

Each class is counted over a fixed-seed sample; a class reached by luck (once in a
thousand) would fail its threshold here, not silently weaken ``verify``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as use_seed
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from packcheck import Case, SizeError, pack, read_case, sorted_utf16
from packcheck._gate.hypothesis_compat import same_cases_whatever_is_loaded
from packcheck.strategies import (
    MAX_SAFE_UNITS,
    block_ids,
    block_lists,
    budgets,
    cases,
    invalid_units,
    required_lists,
    units,
)

SAMPLE = 400


def _sample(strategy: st.SearchStrategy[Any], n: int = SAMPLE) -> list[Any]:
    drawn: list[Any] = []

    @use_seed(2)
    @settings(
        max_examples=n,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(value: Any) -> None:
        drawn.append(value)

    # As `verify` draws them: from the seed alone, whatever modules are loaded.
    with same_cases_whatever_is_loaded():
        collect()
    return drawn


def plain_scan(case: Case) -> list[tuple[int, int]]:
    """(size, remaining before) for every block, by the rule."""
    left, seen = case.budget, []
    for size in case.sizes:
        seen.append((size, left))
        left -= size if size <= left else 0
    return seen


def _first_invalid_after_exhaustion(case: dict[str, Any]) -> bool:
    """An invalid size stands after a valid prefix that spends the whole budget."""
    read = read_case(case)
    if not isinstance(read, SizeError) or read.where == "budget":
        return False
    index = int(read.where.split("[")[1].split("]")[0])
    prefix = {**case, "blocks": case["blocks"][:index]}
    return index > 0 and isinstance(read_case(prefix), Case) and pack(prefix)["remaining"] == 0


def _invalid_kinds(case: dict[str, Any]) -> set[str]:
    kinds = set()
    for block in case["blocks"]:
        if "size" not in block:
            kinds.add("absent")
            continue
        size = block["size"]
        kinds.add(
            "bool"
            if isinstance(size, bool)
            else "null"
            if size is None
            else "string"
            if isinstance(size, str)
            else "zero"
            if size == 0 and isinstance(size, int)
            else "negative"
            if isinstance(size, int | float) and size < 0
            else "fraction"
            if isinstance(size, float) and not size.is_integer()
            else "integral float"
            if isinstance(size, float)
            else "valid"
            if isinstance(size, int) and size > 0
            else "container"
        )
    return kinds


def _classes(case: dict[str, Any]) -> set[str]:
    found = {f"size {kind}" for kind in _invalid_kinds(case)}
    read = read_case(case)
    sizes_ok = [isinstance(read_case({**case, "blocks": [b]}), Case) for b in case["blocks"]]
    if "budget" in case and not all(sizes_ok):
        found.add("invalid size")
        found |= {"invalid last size"} if not sizes_ok[-1] else set()
    ids = [b["id"] for b in case["blocks"]]
    found |= {
        name
        for name, hit in [
            ("no blocks", not ids),
            ("no required", not case["required"]),
            ("repeated block id", len(set(ids)) < len(ids)),
            ("repeated required id", len(set(case["required"])) < len(case["required"])),
            ("required id no block has", bool(set(case["required"]) - set(ids))),
            ("lone surrogate id", any(0xD800 <= ord(c) <= 0xDFFF for i in ids for c in i)),
            ("1000+ blocks", len(ids) >= 1000),
            ("invalid budget", isinstance(read, SizeError) and read.where == "budget"),
            ("absent budget", "budget" not in case),
            ("invalid size after exhaustion", _first_invalid_after_exhaustion(case)),
        ]
        if hit
    }
    if isinstance(read, Case):
        steps = plain_scan(read)
        result = pack(case)
        units_seen = [read.budget, *read.sizes]
        found |= {
            name
            for name, hit in [
                ("budget 0", read.budget == 0),
                ("exact fit", any(size == left for size, left in steps)),
                ("block larger than budget", any(size > read.budget for size in read.sizes)),
                ("near 2**53", any(abs(u - 2**53) <= 4 for u in units_seen)),
                ("beyond 2**63", any(u > 2**63 for u in units_seen)),
                ("integral float", any(isinstance(b["size"], float) for b in case["blocks"])),
                ("utf16 order differs", result["missing"] != sorted(result["missing"])),
                ("skip then keep", any(s > left for s, left in steps) and bool(result["kept"])),
            ]
            if hit
        }
    return found


@pytest.fixture(scope="module")
def default_counts() -> Counter[str]:
    return Counter(name for case in _sample(cases()) for name in _classes(case))


@pytest.fixture(scope="module")
def wide_counts() -> Counter[str]:
    return Counter(name for case in _sample(cases(max_units=2**70)) for name in _classes(case))


COMMON = [
    "no blocks",
    "no required",
    "repeated block id",
    "repeated required id",
    "required id no block has",
    "lone surrogate id",
    "1000+ blocks",
    "invalid budget",
    "absent budget",
    "invalid size after exhaustion",
    "budget 0",
    "exact fit",
    "block larger than budget",
    "near 2**53",
    "integral float",
    "utf16 order differs",
    "skip then keep",
    "size absent",
    "invalid size",
    "invalid last size",
]


@pytest.mark.parametrize("name", COMMON)
def test_cases_reach_each_class_with_real_probability(
    default_counts: Counter[str], name: str
) -> None:
    assert default_counts[name] >= SAMPLE // 200, (name, default_counts)


def test_default_units_stay_within_the_safe_range(default_counts: Counter[str]) -> None:
    assert default_counts["beyond 2**63"] == 0


@pytest.mark.parametrize("name", ["beyond 2**63", "exact fit", "near 2**53", "size negative"])
def test_wide_cases_go_beyond_int64(wide_counts: Counter[str], name: str) -> None:
    assert wide_counts[name] >= SAMPLE // 200, (name, wide_counts)


def _all_units(case: dict[str, Any]) -> list[Any]:
    return [case.get("budget"), *(b.get("size") for b in case["blocks"])]


def test_all_generated_numbers_lie_within_max_units() -> None:
    for case in _sample(cases(max_units=1000), 200):
        for value in _all_units(case):
            if isinstance(value, int | float) and not isinstance(value, bool):
                assert -1000 <= value <= 1000


@pytest.mark.parametrize("max_units", [1, 2, 15, 16])
def test_a_unit_range_narrower_than_16_draws_cases_within_it(max_units: int) -> None:
    """Sizes drawn near 16 used to ask Hypothesis for an empty range below 16 units."""
    drawn = _sample(cases(max_units=max_units), 100)
    valid = [u for c in drawn for u in _all_units(c) if type(u) is int and u >= 1]
    assert valid
    assert max(valid) <= max_units


def test_cases_without_invalid_units_are_all_valid() -> None:
    assert all(isinstance(read_case(c), Case) for c in _sample(cases(allow_invalid=False), 200))


def test_block_count_bounds_are_respected() -> None:
    for case in _sample(cases(min_blocks=3, max_blocks=5), 100):
        assert 3 <= len(case["blocks"]) <= 5
    for blocks in _sample(block_lists(min_size=20), 50):
        assert len(blocks) >= 20
    assert any(len(b) > 1000 for b in _sample(block_lists(max_size=1100), 300))


def test_units_and_budgets_stay_in_range() -> None:
    for value in _sample(units(min_value=5, max_value=9)):
        assert 5 <= value <= 9
    assert any(isinstance(v, float) for v in _sample(units(max_value=2**60), 200))
    assert all(isinstance(v, int) for v in _sample(units(min_value=2**54, max_value=2**60), 50))
    assert all(read_case({"budget": b, "blocks": [], "required": []}) for b in _sample(budgets()))
    invalid = _sample(budgets(allow_invalid=True), 300)
    assert any(
        isinstance(read_case({"budget": b, "blocks": [], "required": []}), SizeError)
        for b in invalid
    )


def _kind(value: object) -> str:
    return _invalid_kinds({"blocks": [{"size": value}]}).pop()


@pytest.mark.parametrize("min_valid", [0, 1])
def test_invalid_units_reach_every_kind(min_valid: int) -> None:
    # Drawn in lists: Hypothesis never repeats a whole example, so a lone draw of
    # a tiny kind (null, a boolean) could appear only once or twice.
    drawn = _sample(st.lists(invalid_units(min_valid=min_valid), min_size=4, max_size=4), 150)
    kinds = Counter(_kind(value) for values in drawn for value in values)
    expected = {"zero", "negative", "fraction", "bool", "null", "string", "container"}
    if min_valid == 0:
        expected.remove("zero")  # zero is a valid budget
    assert set(kinds) == expected
    assert min(kinds.values()) >= 10, kinds


def test_invalid_units_are_never_valid() -> None:
    for value in _sample(invalid_units(min_valid=1, max_units=50)):
        assert isinstance(
            read_case({"budget": 0, "blocks": [{"id": "A", "size": value}], "required": []}),
            SizeError,
        )
    for value in _sample(invalid_units(min_valid=0), 200):
        assert isinstance(read_case({"budget": value, "blocks": [], "required": []}), SizeError)


@pytest.mark.parametrize("max_units", [2**1024, 10**5000], ids=["2**1024", "10**5000"])
def test_max_units_past_the_largest_double_draws_cases(max_units: int) -> None:
    # st.floats() raised OverflowError for such a bound: `verify --max-units 10**5000`
    # ended in a traceback.
    drawn = _sample(cases(max_units=max_units), 100)
    assert any(isinstance(read_case(case), SizeError) for case in drawn)
    for value in _sample(invalid_units(min_valid=0, max_units=max_units), 100):
        assert isinstance(read_case({"budget": value, "blocks": [], "required": []}), SizeError)


def test_ids_cross_the_utf16_boundary() -> None:
    ids = _sample(block_ids())
    assert sorted_utf16(ids) != sorted(ids)
    assert any(c == "\ud800" for i in ids for c in i)
    assert all(isinstance(r, list) for r in _sample(required_lists(known=["A"]), 50))
    assert any(r for r in _sample(required_lists(), 50))


@pytest.mark.parametrize(
    "build",
    [
        lambda: units(min_value=3, max_value=2),
        lambda: units(min_value=-1),
        lambda: units(max_value=True),
        lambda: units(max_value=2.0),
        lambda: invalid_units(max_units=0),
        lambda: budgets(max_value=-1),
        lambda: block_lists(min_size=5, max_size=4),
        lambda: block_lists(max_units=0),
        lambda: block_lists(max_size=-1),
        lambda: cases(min_blocks=2, max_blocks=1),
        lambda: cases(max_units=0),
        lambda: cases(max_blocks="many"),
    ],
)
def test_impossible_arguments_are_rejected_when_the_strategy_is_built(
    build: Callable[[], object],
) -> None:
    with pytest.raises(InvalidArgument):
        build()


def test_the_default_range_is_the_largest_safe_double_integer() -> None:
    assert MAX_SAFE_UNITS == 2**53 - 1


@settings(max_examples=30, database=None)
@given(block_lists(ids=st.just("q"), max_size=8))
def test_block_lists_take_ids_from_a_strategy_of_the_callers(blocks: list[dict[str, Any]]) -> None:
    # Every ID is the caller's "q", or a near-twin made from it ("Q", "q\u00e9", " q").
    assert all("q" in block["id"].lower() for block in blocks)


@pytest.mark.parametrize("max_units", [2**60 + 1, 2**69 - 6])
def test_invalid_units_take_a_bound_no_double_holds(max_units: int) -> None:
    """A ``max_units`` no double holds exactly (a rule's bound, or ``--max-units``)."""

    @settings(max_examples=100, database=None)
    @given(invalid_units(max_units=max_units))
    def drawn(value: object) -> None:
        assert not (type(value) is int and value < -max_units)

    drawn()
