"""The trace: steps, partition and the reason each required ID is missing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from _scan_check import PACK_ENGINES

from packcheck import Engine, MalformedCase, Partition, Step, Trace, pack, trace


def case(budget: Any, sizes: list[Any], required: list[str], ids: str = "ABCDEFG") -> Any:
    blocks = [{"id": i, "size": s} for i, s in zip(ids, sizes, strict=False)]
    return {"budget": budget, "blocks": blocks, "required": required}


@pytest.fixture(params=PACK_ENGINES)
def engine(request: pytest.FixtureRequest) -> Engine:
    name: Engine = request.param
    return name


def check_partition(t: Trace, ids: list[str]) -> None:
    # Check every block is in exactly one bucket, in input order, matching its step.
    assert [s.id for s in t.steps] == ids
    assert [s.index for s in t.steps] == list(range(len(ids)))
    for bucket in ("packed", "available", "dropped"):
        assert list(getattr(t.partition, bucket)) == [s.id for s in t.steps if s.bucket == bucket]
    assert list(t.partition.packed) == t.result["kept"]


def test_distractor_first_evicts_c(engine: Engine) -> None:
    t = trace(case(7, [4, 3, 2], ["B", "C"]), engine=engine)
    assert t.result == {"kept": ["A", "B"], "remaining": 0, "missing": ["C"]}
    assert t.steps == (
        Step(0, "A", 4, 7, "packed"),
        Step(1, "B", 3, 3, "packed"),
        Step(2, "C", 2, 0, "available"),
    )
    assert t.partition == Partition(("A", "B"), ("C",), ())
    assert t.reasons == {"C": "evicted"}
    assert [s.id for s in t.evicted_by("C")] == ["A", "B"]
    assert t.evicted_by("A") == ()
    assert t.evicted_by("nowhere") == ()
    check_partition(t, ["A", "B", "C"])


def test_skip_large_continue_drops_a(engine: Engine) -> None:
    t = trace(case(3, [4, 2], ["C"], ids="AC"), engine=engine)
    assert t.partition == Partition(("C",), (), ("A",))
    assert t.reasons == {}


def test_the_three_reasons(engine: Engine) -> None:
    t = trace(case(5, [9, 5, 1], ["A", "C", "Z", "B"]), engine=engine)
    assert t.result == {"kept": ["B"], "remaining": 0, "missing": ["A", "C", "Z"]}
    assert t.reasons == {"A": "oversized", "C": "evicted", "Z": "not-retrieved"}
    check_partition(t, ["A", "B", "C"])


def test_one_evictable_copy_makes_an_id_evicted_not_oversized(engine: Engine) -> None:
    # Copies of X: dropped, available, dropped again.  One copy could have fit.
    t = trace(case(3, [9, 2, 2, 9], ["X"], ids="XAXX"), engine=engine)
    assert t.partition == Partition(("A",), ("X",), ("X", "X"))
    assert t.reasons == {"X": "evicted"}
    assert [s.id for s in t.evicted_by("X")] == ["A"]


def test_an_id_kept_once_is_not_missing(engine: Engine) -> None:
    t = trace(case(3, [2, 2], ["X"], ids="XX"), engine=engine)
    assert t.result["missing"] == []
    assert t.partition == Partition(("X",), ("X",), ())


@pytest.mark.parametrize(
    ("budget", "partition", "reasons"),
    [
        (4, Partition(("B", "C", "D", "E"), ("F",), ("A",)), {"A": "oversized", "F": "evicted"}),
        (5, Partition(("A",), ("B", "C", "D", "E", "F"), ()), {"B": "evicted", "F": "evicted"}),
    ],
)
def test_pinned_more_budget_is_not_a_superset(
    engine: Engine, budget: int, partition: Partition, reasons: dict[str, str]
) -> None:
    t = trace(case(budget, [5, 1, 1, 1, 1, 1], ["A", "B", "F"]), engine=engine)
    assert t.partition == partition
    assert t.reasons == {k: v for k, v in reasons.items() if k in t.result["missing"]}


@pytest.mark.parametrize(
    ("budget", "partition", "reasons"),
    [
        (5, Partition(("A",), ("B", "C"), ()), {"C": "evicted"}),
        (6, Partition(("A", "C"), ("B",), ()), {}),
        (7, Partition(("A", "B"), ("C",), ()), {"C": "evicted"}),
        (3, Partition(("B",), ("C",), ("A",)), {"C": "evicted"}),
        (1, Partition((), (), ("A", "B", "C")), {"C": "oversized"}),
    ],
)
def test_pinned_4_3_2_required_c(
    engine: Engine, budget: int, partition: Partition, reasons: dict[str, str]
) -> None:
    t = trace(case(budget, [4, 3, 2], ["C"]), engine=engine)
    assert t.partition == partition
    assert t.reasons == reasons


def test_a_size_error_has_no_steps_and_names_the_field(engine: Engine) -> None:
    t = trace(case(3, [1, -1], ["C"]), engine=engine)
    assert t.result == {"error": "size"}
    assert t.steps == ()
    assert t.partition == Partition()
    assert t.reasons == {}
    assert t.size_error == "blocks[1].size: -1 (number) is not an integer >= 1"
    assert t.to_json() == {
        "result": {"error": "size"},
        "steps": [],
        "partition": {"packed": [], "available": [], "dropped": []},
        "reasons": {},
        "size_error": "blocks[1].size: -1 (number) is not an integer >= 1",
    }


def test_to_json_is_json_ready(engine: Engine) -> None:
    t = trace(case(7, [4, 3, 2], ["C", "Z"]), engine=engine)
    out = t.to_json()
    assert json.loads(json.dumps(out)) == out
    assert "size_error" not in out
    assert out["steps"][2] == {
        "index": 2,
        "id": "C",
        "size": 2,
        "remaining_before": 0,
        "bucket": "available",
    }
    assert out["partition"] == {"packed": ["A", "B"], "available": ["C"], "dropped": []}
    assert out["reasons"] == {"C": "evicted", "Z": "not-retrieved"}


def test_the_trace_result_is_the_declared_output(engine: Engine) -> None:
    value = case(10, [3, 9, 4, 4, 1], ["E", "B", "D"])
    assert trace(value, engine=engine).result == pack(value, engine=engine)


def test_a_malformed_case_raises(engine: Engine) -> None:
    with pytest.raises(MalformedCase):
        trace({"budget": 1}, engine=engine)
