"""``packcheck._probes``: the long-list, power-of-two, unit-edge and wide-range probes."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from packcheck import pack
from packcheck._probes import FAMILIES, LADDER, Probe, long_probes, unit_probes, wide_probes
from packcheck.reference import pack_sizes

DEFAULT_UNITS = 2**53 - 1
WIDE = 2**70
# Building every probe takes seconds; these checks build the lists up to this length
# (every family, spoiled ones and the first two runs), and one list past 100,000.
BUILT = 10_001


def _units(case: dict[str, Any]) -> list[Any]:
    return [case["budget"], *(block["size"] for block in case["blocks"])]


def _kept(case: dict[str, Any]) -> list[bool]:
    return pack_sizes(case["budget"], [block["size"] for block in case["blocks"]])[0]


def _decides_to_end(kept: list[bool]) -> bool:
    """The last quarter of the list has both a kept and a skipped block."""
    tail = kept[len(kept) * 3 // 4 :]
    return any(tail) and not all(tail)


def _kept_sum(case: dict[str, Any]) -> int:
    return sum(b["size"] for b, keep in zip(case["blocks"], _kept(case), strict=True) if keep)


def _short(seed: int, max_units: int) -> list[Probe]:
    return [p for p in long_probes(seed, max_units) if p.length <= BUILT]


def test_the_ladder_brackets_every_power_of_two_from_16_to_2_17() -> None:
    for k in range(4, 18):
        assert {2**k - 1, 2**k, 2**k + 1} <= set(LADDER), k
    assert {999, 1000, 1001, 4999, 5000, 5001, 9999, 10000, 10001} <= set(LADDER)
    assert max(LADDER) >= 2**17
    assert list(LADDER) == sorted(set(LADDER))


@pytest.mark.parametrize("seed", range(8))
def test_every_family_gets_exactly_one_list_past_100_000_blocks(seed: int) -> None:
    probes = list(long_probes(seed, DEFAULT_UNITS))
    past = Counter(p.family for p in probes if p.length > 100_000 and p.family != "run")
    assert past == dict.fromkeys(FAMILIES, 1)
    # Shortest first within the ladder, then the longest lists.
    # The ladder's lists come first (then runs and extra shapes).
    lists = [p.length for p in probes if p.family in FAMILIES][: len(LADDER)]
    assert lists == sorted(lists)
    assert set(lists) == set(LADDER)


def test_the_same_seed_builds_the_same_cases_and_another_seed_others() -> None:
    first = [p.build() for p in _short(3, DEFAULT_UNITS) if p.length < 600]
    again = [p.build() for p in _short(3, DEFAULT_UNITS) if p.length < 600]
    other = [p.build() for p in _short(4, DEFAULT_UNITS) if p.length < 600]
    assert first == again
    assert first != other
    assert [p.build() for p in wide_probes(3, WIDE)] == [p.build() for p in wide_probes(3, WIDE)]
    assert [p.build() for p in unit_probes(3)] == [p.build() for p in unit_probes(3)]


@pytest.mark.parametrize("max_units", [1000, DEFAULT_UNITS, WIDE])
def test_every_unit_of_every_probe_is_valid_and_within_max_units(max_units: int) -> None:
    probes = [*_short(0, max_units), *wide_probes(0, max_units)]
    assert any(p.spoil for p in probes)
    assert any(p.family == "run" for p in probes)
    for probe in probes:
        units = _units(probe.build())
        budget, sizes = units[0], units[1:]
        if probe.spoil:
            # Deliberately spoiled: the last size is 0, every other unit is valid.
            assert sizes[-1] == 0, probe
            sizes = sizes[:-1]
        assert all(type(u) is int for u in units), probe
        assert 0 <= budget <= max_units, probe
        assert all(1 <= s <= max_units for s in sizes), probe


def test_a_spoiled_list_is_a_size_error_only_at_its_last_block() -> None:
    spoiled = next(p for p in long_probes(0, DEFAULT_UNITS) if p.spoil)
    case = spoiled.build()
    assert pack(case) == {"error": "size"}
    assert case["blocks"][-1]["size"] == 0
    assert "error" not in pack(Probe(**{**_fields(spoiled), "spoil": False}).build())


def _fields(probe: Probe) -> dict[str, Any]:
    return {
        "family": probe.family,
        "length": probe.length,
        "seed": probe.seed,
        "max_units": probe.max_units,
        "spoil": probe.spoil,
    }


def test_the_decision_check_rejects_lists_that_stop_deciding() -> None:
    assert _decides_to_end([True, False, True, True, False, True, True, False])
    assert not _decides_to_end([True] * 6 + [False] * 2)
    assert not _decides_to_end([False] * 6 + [True] * 2)


@pytest.mark.parametrize("seed", [0, 1])
def test_long_lists_keep_keeping_and_skipping_to_their_last_quarter(seed: int) -> None:
    probes = [p for p in _short(seed, DEFAULT_UNITS) if p.family in FAMILIES and p.length >= 31]
    assert {p.family for p in probes} == set(FAMILIES)
    for probe in probes:
        case = probe.build()
        if probe.spoil:
            case["blocks"].pop()
        kept = _kept(case)
        if probe.family == "fits":
            assert all(kept[:-1]), probe
            assert not _decides_to_end(kept[:-1]), probe
        else:
            assert _decides_to_end(kept), probe
        if len(kept) >= 1024:
            assert _kept_sum(case) > 2**32, probe


def test_a_list_past_100_000_blocks_decides_to_the_end() -> None:
    # One of the four (each takes a second to build): seed 0 gives 100,001 mixed blocks.
    probe = next(p for p in long_probes(0, DEFAULT_UNITS) if p.length > 100_000)
    case = probe.build()
    kept = _kept(case)
    assert len(kept) > 100_000
    assert _decides_to_end(kept)
    assert _kept_sum(case) > 2**32


@pytest.mark.parametrize("seed", range(4))
def test_run_probes_hold_equal_sizes_summing_to_exactly_2_63(seed: int) -> None:
    runs = [p for p in long_probes(seed, DEFAULT_UNITS) if p.family == "run"]
    assert [p.length for p in runs] == [4096 * (2**j - 1) for j in range(5)]
    for probe in runs[:2]:
        sizes = [b["size"] for b in probe.build()["blocks"]]
        prefix, count = probe.length, probe.length + 4096
        assert sizes[:prefix] == [1] * prefix
        run = sizes[prefix : prefix + count]
        assert count & (count - 1) == 0
        assert len(set(run)) == 1
        assert sum(run) == 2**63
        assert set(sizes[prefix + count :]) <= {1}
        assert len(sizes) - prefix - count <= 3


def test_a_narrow_unit_range_runs_to_2_20_instead() -> None:
    probe = next(p for p in long_probes(0, 1000) if p.family == "run")
    sizes = [b["size"] for b in probe.build()["blocks"]]
    assert probe.length == 0
    assert sum(sizes[:4096]) == 2**20
    assert len(set(sizes[:4096])) == 1


@pytest.mark.parametrize("seed", range(8))
def test_wide_probes_keep_two_sizes_whose_sum_passes_2_63_and_2_64(seed: int) -> None:
    probes = list(wide_probes(seed, WIDE))
    marks = Counter(int(p.family[5:]) for p in probes)
    assert marks == {2**31: 8, 2**32: 8, 2**53: 8, 2**63: 8, 2**64: 8, WIDE: 8}
    for mark in (2**63, 2**64):
        passing = []
        for probe in probes:
            if probe.family != f"wide:{mark}":
                continue
            case = probe.build()
            sizes = [b["size"] for b, keep in zip(case["blocks"], _kept(case), strict=True) if keep]
            if len(sizes) >= 2 and sum(sizes) > mark:
                passing.append(case)
        assert passing, mark


def test_wide_probes_stay_within_the_unit_range() -> None:
    assert list(wide_probes(0, 1000)) == []
    assert list(wide_probes(0, 2**20)) == []
    assert {p.family for p in wide_probes(0, DEFAULT_UNITS, count=1)} == {
        "wide:2147483648",
        "wide:4294967296",
        f"wide:{DEFAULT_UNITS}",
    }


def _edge_cases() -> list[tuple[str, Any, bool]]:
    """(where, value or "absent", valid) for every unit probe."""
    out = []
    for probe in unit_probes(0):
        case = probe.build()
        third = case["blocks"][2]
        if case.get("budget") != 5:
            out.append(("budget", case.get("budget", "absent"), "error" not in pack(case)))
        else:
            # The budget (5) is spent by the first two blocks (2 + 3) before the third.
            assert [b.get("size") for b in case["blocks"][:2]] == [2, 3]
            out.append(("size", third.get("size", "absent"), "error" not in pack(case)))
    return out


def test_unit_probes_try_each_edge_as_the_budget_and_after_the_budget_is_spent() -> None:
    edges = _edge_cases()
    assert len(edges) == len(list(unit_probes(0))) == 26
    for where in ("budget", "size"):
        values = [value for at, value, _ in edges if at == where]
        for value in (True, "4", 2.5, 0, None, "absent", 4.0):
            assert any(type(v) is type(value) and v == value for v in values), (where, value)
    valid = {(at, repr(value)) for at, value, ok in edges if ok}
    # Valid units at the edge: 4.0 and 1.0 anywhere, 0 as the budget only.
    assert valid == {
        ("budget", "4.0"),
        ("budget", "1.0"),
        ("budget", "0"),
        ("size", "4.0"),
        ("size", "1.0"),
    }


def test_a_probe_describes_itself_in_a_few_words() -> None:
    assert Probe("fits", 4095, 1, DEFAULT_UNITS).describe() == "fits list of 4095 blocks"
    assert (
        Probe("sawtooth", 33, 1, DEFAULT_UNITS, spoil=True).describe()
        == "sawtooth list of 33 blocks, last size invalid"
    )
    assert (
        Probe("run", 4096, 1, DEFAULT_UNITS).describe() == "4096 unit blocks, then 8192 equal sizes"
    )
    assert Probe(f"wide:{2**63}", 0, 1, WIDE).describe() == "short case at 2**63"
    assert (
        Probe(f"wide:{DEFAULT_UNITS}", 0, 1, DEFAULT_UNITS).describe()
        == "short case at 9,007,199,254,740,991"
    )
    assert Probe("units", 3, 1, 1).describe() == "unit edge case"


def test_a_shorter_probe_is_the_same_recipe_at_another_length() -> None:
    probe = Probe("oversized", 4097, 9, DEFAULT_UNITS, spoil=True)
    shorter = probe.shorter(15)
    assert _fields(shorter) == {**_fields(probe), "length": 15}
    assert len(shorter.build()["blocks"]) == 15


def test_required_ids_include_absent_ones_on_both_sides_of_the_utf16_order() -> None:
    case = Probe("mixed", 64, 2, DEFAULT_UNITS).build()
    ids = {b["id"] for b in case["blocks"]}
    absent = [w for w in case["required"] if w not in ids]
    assert Counter(absent) == {"\U0001f601": 1, "\uff01": 1, "Z": 2}
    missing = pack(case)["missing"]
    assert missing.count("Z") == 2
    # UTF-16 order: the character above U+FFFF sorts before U+FF01.
    assert missing.index("\U0001f601") < missing.index("\uff01")
