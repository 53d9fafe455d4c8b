"""``pack``: the declared output, exactly, from either engine."""

from __future__ import annotations

import copy
import json
import random
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from _scan_check import PACK_ENGINES

from packcheck import SIZE_ERROR, Engine, MalformedCase, pack, pack_many
from packcheck._engines.pack import missing_ids, numpy_packer, pack_plain

SEED = json.loads((Path(__file__).parents[1] / "fixtures" / "seed.json").read_text())


def blocks(*sizes: Any, ids: str = "ABCDEFGHIJ") -> list[dict[str, Any]]:
    return [{"id": block_id, "size": size} for block_id, size in zip(ids, sizes, strict=False)]


def packed(engine: Engine, budget: Any, sizes: list[Any], required: list[str]) -> dict[str, Any]:
    return pack({"budget": budget, "blocks": blocks(*sizes), "required": required}, engine=engine)


@pytest.fixture(params=PACK_ENGINES)
def engine(request: pytest.FixtureRequest) -> Engine:
    name: Engine = request.param
    return name


@pytest.mark.parametrize("fixture", SEED, ids=[f["id"] for f in SEED])
def test_the_seed_fixtures(fixture: dict[str, Any], engine: Engine) -> None:
    assert pack(fixture["input"], engine=engine) == fixture["expected"]


def test_the_input_is_not_modified(engine: Engine) -> None:
    case = SEED[0]["input"]
    before = copy.deepcopy(case)
    pack(case, engine=engine)
    assert case == before


def test_the_size_error_is_a_fresh_dict(engine: Engine) -> None:
    result = packed(engine, 3, [-1], ["C"])
    assert result == {"error": "size"}
    result["poisoned"] = True
    assert SIZE_ERROR == {"error": "size"}


@pytest.mark.parametrize(("budget", "sizes"), [(4, [4]), (4.0, [4.0]), (Decimal("4.0"), [4])])
def test_4_and_4_point_0_are_the_same_unit(engine: Engine, budget: Any, sizes: list[Any]) -> None:
    result = packed(engine, budget, sizes, [])
    assert result == {"kept": ["A"], "remaining": 0, "missing": []}
    assert type(result["remaining"]) is int


def test_remaining_is_a_plain_int(engine: Engine) -> None:
    result = packed(engine, Decimal("9.0"), [Decimal("2.0")], [])
    assert result["remaining"] == 7
    assert type(result["remaining"]) is int


def test_4_point_0000000000000000001_is_not_a_unit(engine: Engine) -> None:
    assert packed(engine, Decimal("4.0000000000000000001"), [1], []) == {"error": "size"}
    assert packed(engine, 9, [Decimal("4.0000000000000000001")], []) == {"error": "size"}


@pytest.mark.parametrize("bad", [True, False, None, "4", [], {}, 0, -1, 2.5])
def test_an_invalid_size_after_the_budget_is_exhausted_still_errors(
    engine: Engine, bad: Any
) -> None:
    # The scan would have skipped it; validation comes first.
    assert packed(engine, 7, [4, 3, 2, bad], ["C"]) == {"error": "size"}


@pytest.mark.parametrize("budget", [-1, True, None, "7", [], {}, 2.5])
def test_an_invalid_budget_errors(engine: Engine, budget: Any) -> None:
    assert packed(engine, budget, [1], []) == {"error": "size"}


def test_an_absent_size_or_budget_errors(engine: Engine) -> None:
    assert pack({"blocks": blocks(1), "required": []}, engine=engine) == {"error": "size"}
    no_size: dict[str, Any] = {"budget": 1, "blocks": [{"id": "A"}], "required": []}
    assert pack(no_size, engine=engine) == {"error": "size"}


def test_a_zero_budget_keeps_nothing(engine: Engine) -> None:
    assert packed(engine, 0, [1, 2], ["A"]) == {"kept": [], "remaining": 0, "missing": ["A"]}


def test_the_scan_never_stops_early(engine: Engine) -> None:
    result = packed(engine, 5, [6, 3, 9, 3, 2, 1], [])
    assert result == {"kept": ["B", "E"], "remaining": 0, "missing": []}


def test_repeated_ids_are_kept_as_often_as_kept(engine: Engine) -> None:
    case = {"budget": 5, "blocks": blocks(2, 2, 2, ids="AAA"), "required": ["A"]}
    assert pack(case, engine=engine) == {"kept": ["A", "A"], "remaining": 1, "missing": []}


def test_repeated_required_ids_stay_repeated_in_missing(engine: Engine) -> None:
    result = packed(engine, 1, [2, 1], ["A", "Z", "A", "B", "Z"])
    assert result == {"kept": ["B"], "remaining": 0, "missing": ["A", "A", "Z", "Z"]}


def test_a_required_id_no_block_has_is_missing(engine: Engine) -> None:
    assert packed(engine, 9, [1], ["nowhere"])["missing"] == ["nowhere"]


def test_missing_is_in_utf16_order(engine: Engine) -> None:
    required = ["\uff00", "\U0001f600", "b", "a"]
    assert packed(engine, 0, [], required)["missing"] == ["a", "b", "\U0001f600", "\uff00"]
    assert missing_ids(["\uff00", "\U0001f600", "k"], ["k"]) == ["\U0001f600", "\uff00"]


@pytest.mark.parametrize(
    ("budget", "kept"),
    [(4, ["B", "C", "D", "E"]), (5, ["A"])],
)
def test_pinned_more_budget_is_not_a_superset(engine: Engine, budget: int, kept: list[str]) -> None:
    # A known property of the rule, not a bug: budget 5 keeps only the 5.
    assert packed(engine, budget, [5, 1, 1, 1, 1, 1], [])["kept"] == kept


@pytest.mark.parametrize(
    ("budget", "result"),
    [
        (6, {"kept": ["A", "C"], "remaining": 0, "missing": []}),
        (7, {"kept": ["A", "B"], "remaining": 0, "missing": ["C"]}),
    ],
)
def test_pinned_more_budget_can_evict_a_required_block(
    engine: Engine, budget: int, result: dict[str, Any]
) -> None:
    assert packed(engine, budget, [4, 3, 2], ["C"]) == result


def test_huge_integers_are_exact(engine: Engine) -> None:
    big = 10**5000 + 7
    result = packed(engine, big, [2**70, big, 3], ["B"])
    assert result == {"kept": ["A", "C"], "remaining": big - 2**70 - 3, "missing": ["B"]}
    assert packed(engine, 2**70, [2**69, 2**69 + 1, 2**69], [])["kept"] == ["A", "C"]


def test_a_malformed_case_raises(engine: Engine) -> None:
    with pytest.raises(MalformedCase):
        pack({"budget": 1, "blocks": [{"id": 1, "size": 1}], "required": []}, engine=engine)


def test_ids_compare_as_utf16_code_units_whatever_python_string_spells_them() -> None:
    pair, char = "\ud800\udc00", "\U00010000"
    case = {"budget": 1, "blocks": [{"id": pair, "size": 1}], "required": [char, "\ud800"]}
    for engine in ("reference", "numpy"):
        assert pack(case, engine=engine) == {
            "kept": [char],
            "remaining": 0,
            "missing": ["\ud800"],
        }


def _mixed_cases() -> list[dict[str, Any]]:
    rng = random.Random(4)
    cases: list[dict[str, Any]] = []
    for n in [0, 1, 7, 60, 200, 5000]:
        sizes = [rng.randint(1, 100) for _ in range(n)]
        blocks = [{"id": f"b{i % 40}", "size": s} for i, s in enumerate(sizes)]
        required = [f"b{rng.randint(0, 50)}" for _ in range(6)]
        cases.append({"budget": sum(sizes) // 2, "blocks": blocks, "required": required})
    cases += [
        {"budget": 7, "blocks": [{"id": "A", "size": 4.0}, {"id": "B", "size": 3}], "required": []},
        {"budget": 3, "blocks": [{"id": "C", "size": -1}], "required": ["C"]},
        {"budget": Decimal("5"), "blocks": [{"id": "\ud83d", "size": 2}], "required": ["\uff00"]},
        {
            "budget": 2**70,
            "blocks": [{"id": "A", "size": 2**69}, {"id": "B", "size": 2**70}],
            "required": ["B", "\U0001f600"],
        },
    ]
    return cases


def test_pack_many_gives_what_pack_gives_case_by_case(engine: Engine) -> None:
    cases = _mixed_cases()
    before = copy.deepcopy(cases)
    assert pack_many(cases, engine=engine) == [pack(case) for case in cases]
    assert cases == before
    # Without the case past int64, every case goes through one pack_batch call.
    assert pack_many(cases[:-1], engine=engine) == [pack(case) for case in cases[:-1]]
    assert pack_many([], engine=engine) == []


def test_pack_many_refuses_a_malformed_case_and_an_unknown_engine() -> None:
    with pytest.raises(MalformedCase):
        pack_many([{"budget": 1, "blocks": [], "required": []}, {"budget": 1}])
    with pytest.raises(ValueError, match="unknown engine 'fast'"):
        pack_many([], engine="fast")  # type: ignore[arg-type]


class _Block:
    """Not a mapping, though it answers ``["id"]`` and ``["size"]``."""

    def __getitem__(self, key: str) -> object:
        return {"id": "A", "size": 1}[key]


_PLAIN = {"budget": 5, "blocks": blocks(3, 4, 2), "required": ["C", "B", "Z"]}


def _spoiled(*path: Any, value: Any) -> dict[str, Any]:
    case = copy.deepcopy(_PLAIN)
    where: Any = case
    for step in path[:-1]:
        where = where[step]
    where[path[-1]] = value
    return case


def test_a_plain_case_is_packed_in_one_loop() -> None:
    assert pack_plain(_PLAIN) == {"kept": ["A", "C"], "remaining": 0, "missing": ["B", "Z"]}
    # IDs that never reach the output need not be ASCII.
    case = _spoiled("blocks", 1, "id", value="\ud83d")
    assert pack_plain(case) == {"kept": ["A", "C"], "remaining": 0, "missing": ["B", "Z"]}
    # IDs beyond ASCII without a surrogate are their own UTF-16 identity: still plain.
    wide = _PLAIN | {"required": ["\uff00", "\U0001f600"]}
    assert pack_plain(wide) == {
        "kept": ["A", "C"],
        "remaining": 0,
        "missing": ["\U0001f600", "\uff00"],
    }
    nothing = {"kept": [], "remaining": 5, "missing": ["B", "C", "Z"]}
    assert pack_plain(_PLAIN | {"blocks": []}) == nothing
    # Nothing in the answer is the input's own list.
    for case in (_PLAIN, _PLAIN | {"required": []}, _PLAIN | {"required": ["Z"]}):
        answer = pack_plain(case)
        assert answer is not None
        assert answer["missing"] is not case["required"]
        assert answer["kept"] is not case["required"]


@pytest.mark.parametrize(
    "case",
    [
        [],
        _PLAIN | {"budget": True},
        _PLAIN | {"budget": -1},
        _PLAIN | {"budget": 5.0},
        _PLAIN | {"blocks": tuple(_PLAIN["blocks"])},
        _PLAIN | {"required": ("C",)},
        _PLAIN | {"required": "C"},
        _PLAIN | {"required": ["C", 1]},
        _PLAIN | {"required": ["\ud83d\ude00"]},  # a surrogate pair, to be joined
        _PLAIN | {"required": ["\ud83d"]},
        _spoiled("blocks", 2, value=_Block()),
        _spoiled("blocks", 2, value=["C", 2]),
        _spoiled("blocks", 2, "id", value=3),
        _spoiled("blocks", 1, "id", value=3),
        _spoiled("blocks", 1, "id", value=None),
        _spoiled("blocks", 1, "size", value=4.0),
        _spoiled("blocks", 1, "size", value=True),
        _spoiled("blocks", 1, "size", value=Decimal(4)),
        _spoiled("blocks", 2, "size", value=0),
        _spoiled("blocks", 2, "size", value=-1),
        _spoiled("blocks", 0, "id", value="\ud83d\ude00"),
        {"budget": 5, "blocks": [{"id": "A"}], "required": []},
        {"budget": 5, "blocks": [{"size": 1}], "required": []},
        {"budget": 5, "blocks": []},
    ],
)
def test_anything_but_a_plain_case_is_left_to_read_case(case: Any) -> None:
    assert pack_plain(case) is None


def test_an_unknown_engine_is_refused_before_the_case_is_read() -> None:
    with pytest.raises(ValueError, match="unknown engine 'fast'; expected one of reference, numpy"):
        pack(_PLAIN, engine="fast")  # type: ignore[arg-type]


def test_numpy_packer_is_the_engine() -> None:
    assert numpy_packer({"budget": 1, "blocks": [], "required": []})["remaining"] == 1
