"""``packcheck._gate.probes``: the long-list, power-of-two, unit-edge and wide-range probes."""

from __future__ import annotations

import inspect
from collections import Counter
from itertools import pairwise
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from packcheck import pack
from packcheck._engines import levels as scan
from packcheck._engines.rounds import KernelError
from packcheck._engines.sizes import from_ints
from packcheck._gate.edge_probes import _SEARCHES, EDGE_FAMILIES, EDGE_VARIANTS
from packcheck._gate.probes import (
    _SPARSE,
    FAMILIES,
    LADDER,
    Probe,
    long_probes,
    unit_probes,
    wide_probes,
)
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
    long = (p for p in probes if p.length > 100_000 and p.family in FAMILIES)
    past = Counter(p.family for p in long)
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


# --- Edge probes (packcheck._gate.edge_probes): exact equalities at a level scan's edges ----

INT64_MAX = 2**63 - 1


def _edge_probes(seed: int, max_units: int, family: str) -> list[Probe]:
    return [p for p in long_probes(seed, max_units) if p.family == family]


def _sizes_of(case: dict[str, Any]) -> list[int]:
    return [block["size"] for block in case["blocks"]]


def _lefts(budget: int, sizes: list[int]) -> list[int]:
    """What the rule leaves before each block, and after the last."""
    lefts = [budget]
    for size in sizes:
        lefts.append(lefts[-1] - size if size <= lefts[-1] else lefts[-1])
    return lefts


def _level_start(sizes: list[int]) -> int:
    """0, or 4,096 after a first chunk of unit blocks (that fits whole)."""
    return 4096 if sizes[:4096] == [1] * 4096 and len(sizes) > 4096 else 0


def test_every_edge_family_lays_out_each_of_its_variants_once() -> None:
    for family, variants in EDGE_VARIANTS.items():
        probes = _edge_probes(5, WIDE, family)
        assert sorted(p.seed & 0xFF for p in probes) == list(range(variants)), family
        assert len({p.seed for p in probes}) == variants


@pytest.mark.parametrize("max_units", [100, DEFAULT_UNITS, WIDE])
def test_edge_probes_are_valid_int64_units_and_shorter_ones_are_prefixes(max_units: int) -> None:
    for family in EDGE_FAMILIES:
        for probe in _edge_probes(2, max_units, family):
            case = probe.build()
            sizes = _sizes_of(case)
            assert all(type(u) is int for u in [case["budget"], *sizes]), probe
            assert 0 <= case["budget"] <= max_units, probe
            assert all(1 <= s <= min(max_units, INT64_MAX) for s in sizes), probe
            assert len(sizes) <= probe.length
            shorter = probe.shorter(1000).build()
            assert shorter["budget"] == case["budget"]
            assert _sizes_of(shorter) == sizes[:1000], probe


@pytest.mark.parametrize("seed", [0, 1])
def test_level_edges_land_the_remaining_on_tau_its_neighbours_or_a_blocks_own_size(
    seed: int,
) -> None:
    for probe in _edge_probes(seed, WIDE, "level edges")[:12]:
        aim = ("below", "at", "above", "own")[probe.seed & 3]
        case = probe.build()
        sizes = _sizes_of(case)
        start = _level_start(sizes)
        lefts = _lefts(case["budget"], sizes)
        tau = lefts[start] // 16
        # The level: blocks while the remaining before them is >= tau.
        end = next(i for i in range(start, len(sizes)) if lefts[i + 1] < tau)
        level = range(start, end + 1)
        if aim == "own":
            # A small block leaves exactly its own size, no large block kept before it.
            own = [i for i in level if sizes[i] <= tau and lefts[i + 1] == sizes[i] < lefts[i]]
            assert own, probe
            assert all(sizes[i] <= tau for i in range(start, own[0]) if lefts[i + 1] < lefts[i])
        else:
            target = tau + ("below", "at", "above").index(aim) - 1
            assert target in [lefts[i + 1] for i in level], probe
        if aim == "below":
            # It ends the level; the next block is tau or tau + 1 (or fits exactly).
            assert lefts[end + 1] == tau - 1
            assert sizes[end + 1] in (tau, tau + 1, tau - 1), probe
        # A scan in levels takes the chunk as a level: enough blocks that fit.
        assert sum(s <= lefts[start] for s in sizes[start : start + 4096]) > 64


@pytest.mark.parametrize("seed", [0, 1])
def test_all_small_level_edges_end_a_level_at_tau_minus_1_before_a_block_of_tau(
    seed: int,
) -> None:
    probes = _edge_probes(seed, WIDE, "level edges")[12:]
    below = [p for p in probes if (p.seed & 0xFF) - 12 in (0, 1, 4, 5)]
    assert len(below) == 4
    for probe in below:
        case = probe.build()
        sizes = _sizes_of(case)
        start = _level_start(sizes)
        lefts = _lefts(case["budget"], sizes)
        at = start
        for _ in range((probe.seed & 0xFF) // 16 + 1):  # the landing level, at depth 0 or 1
            tau = lefts[at] // 16
            end = next(i for i in range(at, len(sizes)) if lefts[i + 1] < tau)
            at = end + 1
        assert lefts[at] == tau - 1, probe
        assert sizes[at] == tau, probe
        chunk = sizes[start : start + (8192 if start else 4096)]
        assert max(chunk) == tau, probe  # every block of the chunk is small


@pytest.mark.parametrize("seed", [0, 1])
def test_search_edges_put_a_fitting_large_block_on_each_step_edge(seed: int) -> None:
    seconds = []
    for probe in _edge_probes(seed, WIDE, "search edges"):
        width, first, gap = _SEARCHES[probe.seed & 0xFF]
        case = probe.build()
        sizes = _sizes_of(case)
        start = 4096 if width == 8192 else 0
        lefts = _lefts(case["budget"], sizes)
        tau = lefts[start] // 16
        large = [i - start for i in range(start, start + width) if tau < sizes[i] <= lefts[i]]
        assert large[0] == first, probe
        seconds += [b - a - 1 for a, b in pairwise(large)]
        if gap >= 0:
            assert large[1] == first + 1 + gap, probe
        # Within the level: the remaining before each block stays >= tau (the last large
        # block may fit exactly).
        assert min(lefts[start : start + large[-1] + 1]) >= tau
    assert {1023, 1024, 1025, 3071, 3072, 3073, 7167, 7168, 7169} <= set(seconds)


@pytest.mark.parametrize("seed", [0, 1])
def test_sums_past_2_63_probes_pass_2_63_by_the_middle_of_the_chunk(seed: int) -> None:
    for probe in _edge_probes(seed, WIDE, "sums past 2**63"):
        variant = probe.seed & 0xFF
        case = probe.build()
        sizes = _sizes_of(case)
        start = _level_start(sizes)
        chunk = 8192 if start else 4096
        tau = _lefts(case["budget"], sizes)[start] // 16
        small = [s for s in sizes[start : start + chunk] if s <= tau]
        if variant < 6:  # (after it, too-large blocks first)
            assert sum(small) >= 2**63, probe
        if variant % 6 < 4:
            assert 2**63 < tau * chunk <= 2**64, probe
        if variant < 2:
            # No too-large block first: sums reach 2**63 by the chunk's middle.
            assert sum(sizes[start : start + chunk // 2 + 1]) >= 2**63, probe


@pytest.mark.parametrize("seed", [0, 1])
def test_prefix_past_int64_probes_end_the_fitting_prefix_on_an_exact_sum(seed: int) -> None:
    marks = set()
    for probe in _edge_probes(seed, WIDE, "prefix past int64"):
        case = probe.build()
        sizes = _sizes_of(case)
        lead = 4096 if len(sizes) > 8192 and max(sizes[:4096]) <= 2**40 else 0
        lefts = _lefts(case["budget"], sizes)
        remaining = lefts[lead]
        assert remaining > INT64_MAX, probe
        if remaining in (2**63, 2**63 + 1, 2**64, 2**64 + 1):
            marks.add(remaining)
        # The longest fitting prefix: every block before the first skipped one is kept,
        # and what is left after it is below int64.
        skips = (i for i in range(lead, len(sizes)) if lefts[i + 1] == lefts[i])
        first_skip = next(skips, len(sizes))  # or the whole list fits
        assert sum(sizes[lead:first_skip]) + lefts[first_skip] == remaining
        assert lefts[first_skip] <= INT64_MAX
        if len(sizes) < 4096:
            assert len(sizes) & (len(sizes) - 1), probe  # no power of two
    assert marks == {2**63, 2**63 + 1, 2**64, 2**64 + 1}


@pytest.mark.parametrize("seed", [0, 1])
def test_crowded_levels_hold_17_blocks_of_tau_or_pass_2_63_at_the_level_end(seed: int) -> None:
    probes = _edge_probes(seed, WIDE, "crowded levels")
    assert len(probes) == 30
    for probe in probes:
        variant = probe.seed & 0xFF
        case = probe.build()
        budget, sizes = case["budget"], _sizes_of(case)
        lefts = _lefts(budget, sizes)
        tau = budget // 16
        end = next(i for i in range(len(sizes)) if lefts[i + 1] < tau)  # the level's end
        if variant < 15:
            assert tau == variant + 1, probe
            assert 17 * tau <= budget <= 16 * tau + 15, probe
            # The level opens on 17 or more blocks of exactly tau, all kept in it.
            assert sizes[:17] == [tau] * 17, probe
            assert end >= 16, probe
        else:
            assert budget >= INT64_MAX - 15, probe
            # The small sums pass 2**63 within two blocks after the level's end.
            sums = [sum(sizes[: i + 1]) for i in range(end + 3)]
            assert sums[end] < 2**63 <= sums[end + 2], probe


def test_edge_families_that_need_int64_fall_back_to_level_scenes_in_a_narrow_range() -> None:
    for family in ("sums past 2**63", "prefix past int64"):
        for probe in _edge_probes(0, DEFAULT_UNITS, family):
            case = probe.build()
            assert case["budget"] < 2**53
            assert len(case["blocks"]) == probe.length


def _mutated_kernel(old: str, new: str) -> ModuleType:
    """A copy of ``packcheck.scan`` with one line edited (a hand-made kernel mutant)."""
    source = Path(scan.__file__).read_text(encoding="utf-8")
    assert source.count(old) == 1
    module = ModuleType("packcheck._engines._mutated_levels")
    module.__package__ = "packcheck._engines"
    exec(compile(source.replace(old, new), scan.__file__, "exec"), module.__dict__)
    return module


@pytest.mark.parametrize(
    ("family", "old", "new"),
    [
        # A level goes on at a remaining of tau - 1 (NumPy levels, then all-small ones).
        (
            "level edges",
            '(small_sums, budget - tau, "right")',
            '(small_sums, budget - tau + 1, "right")',
        ),
        (
            "level edges",
            '(sums, spent + remaining - tau, "right")',
            '(sums, spent + remaining - tau + 1, "right")',
        ),
        # A small block that leaves exactly its size is taken for a large fit.
        ("level edges", "offset = remaining + 1", "offset = remaining"),
        # A fitting large block on a search step's first position is missed.
        (
            "search edges",
            "start, step = upto, _GROWTH * step",
            "start, step = upto + 1, _GROWTH * step",
        ),
        # Small sums that pass 2**63 mid-chunk are not cut.
        (
            "sums past 2**63",
            "if top * values.shape[0] <= _INT64_MAX:",
            "if top * values.shape[0] <= 2**64:",
        ),
        # A remaining just past int64 reaches the int64 level scan.
        ("prefix past int64", "if remaining > _INT64_MAX:", "if remaining > 2**64:"),
        # (issue 20) A block of exactly tau taken for a large one; one small sum past
        # 2**63 kept after the cut.
        ("crowded levels", "small = sizes - (tau + 1)", "small = sizes - tau"),
        ("crowded levels", "if int(sizes.min()) > tau:", "if int(sizes.min()) >= tau:"),
        (
            "crowded levels",
            "return values[:first] if past[first] else values",
            "return values[: first + 1] if past[first] else values",
        ),
    ],
)
def test_each_edge_family_catches_a_kernel_that_is_off_at_its_edge(
    family: str, old: str, new: str
) -> None:
    mutant = _mutated_kernel(old, new)
    caught = 0
    for probe in _edge_probes(1, WIDE, family):
        case = probe.build()
        budget, sizes = case["budget"], _sizes_of(case)
        expected = pack_sizes(budget, sizes)
        try:
            kept, remaining = mutant.pack_input(budget, from_ints(budget, sizes))
        except (OverflowError, ValueError, IndexError, KernelError):
            caught += 1
            continue
        caught += (kept.tolist(), remaining) != expected
    assert caught, family


@pytest.mark.parametrize("family", EDGE_FAMILIES)
def test_the_kernel_itself_answers_every_edge_probe_exactly(family: str) -> None:
    for probe in _edge_probes(1, WIDE, family):
        case = probe.build()
        budget, sizes = case["budget"], _sizes_of(case)
        kept, remaining = scan.pack_input(budget, from_ints(budget, sizes))
        assert (kept.tolist(), remaining) == pack_sizes(budget, sizes), probe


@pytest.mark.parametrize("seed", [0, 1])
def test_large_only_level_edges_keep_large_blocks_in_a_chunk_with_no_small_one(seed: int) -> None:
    for probe in _edge_probes(seed, WIDE, "level edges")[20:]:
        case = probe.build()
        sizes = _sizes_of(case)
        lefts = _lefts(case["budget"], sizes)
        tau = case["budget"] // 16  # too-large blocks first leave the budget whole
        # The scene: 4,200 blocks before the one that ends the level.
        end = next(i for i in range(len(sizes)) if lefts[i + 1] < tau)
        scene = range(end - 4200, end)
        assert min(sizes[i] for i in scene) > tau, probe
        assert 1 <= sum(lefts[i + 1] < lefts[i] for i in scene) <= 14, probe
        # Near misses: one unit more than is left.
        assert sum(sizes[i] == lefts[i] + 1 for i in scene) > 1000, probe


@pytest.mark.parametrize("max_units", [1, 2, 3, 100, 5000, DEFAULT_UNITS])
def test_sparse_lists_come_only_where_the_range_is_narrower_than_them(max_units: int) -> None:
    sparse = [p for p in long_probes(1, max_units) if p.family == "sparse"]
    assert [p.length for p in sparse] == [n for n in _SPARSE if n > max_units > 1]
    assert len(sparse) == {1: 0, 2: 19, 3: 19, 100: 16, 5000: 9, DEFAULT_UNITS: 0}[max_units]
    for probe in sparse[:3]:
        case = probe.build()
        kept = _kept(case)
        assert kept[-1]
        assert sum(kept) == min(3, max_units - 1)
        assert case["budget"] == max_units - 1
    assert Probe("sparse", 1, 0, 100).build()["blocks"][0]["size"] == 1


def _threshold_one_high(monkeypatch: pytest.MonkeyPatch) -> None:
    """The level kernel with its all-small threshold one unit high (an escaped mutant,
    issue 40): a level of unit blocks runs on to a remaining of 0 and stalls there."""
    source = inspect.getsource(scan._all_small)
    mutated = source.replace("tau = remaining // _K\n", "tau = remaining // _K + 1\n")
    assert mutated != source
    namespace = dict(vars(scan))
    exec(compile(mutated, scan.__file__, "exec"), namespace)
    monkeypatch.setattr(scan, "_all_small", namespace["_all_small"])


@pytest.mark.parametrize("max_units", [2**53 - 1, WIDE, 2**63 - 1])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_drained_list_runs_levels_of_small_blocks_down_past_16(
    seed: int, max_units: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    (probe,) = _edge_probes(seed, max_units, "drained")
    case = probe.build()
    sizes = _sizes_of(case)
    lefts = _lefts(case["budget"], sizes)
    # A first chunk that fits whole, then unit blocks that use up the 16 or more
    # units left, with unit blocks to spare: a level scan keeps them in small levels.
    assert lefts[4096] == case["budget"] - sum(sizes[:4096])
    assert set(sizes[4096:]) == {1}
    assert 16 <= lefts[4096] < len(sizes) - 4096
    assert lefts[-1] == 0
    values = from_ints(case["budget"], sizes)
    assert pack(case, engine="numpy") == pack(case)
    _threshold_one_high(monkeypatch)
    with pytest.raises(KernelError, match="small levels"):
        scan.pack_input(case["budget"], values)
