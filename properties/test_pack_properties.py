"""The NumPy packer against the reference, and both against the invariant checker."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given

from packcheck import pack
from packcheck._invariants import check_output
from packcheck._jsonio import same_json
from packcheck.strategies import cases


@example({"budget": 1, "blocks": [{"id": "A", "size": 2}, {"id": "A", "size": 1}], "required": []})
@example({"budget": 0, "blocks": [], "required": ["\U0001f600", "\ue000"]})
@example({"budget": 0, "blocks": [{"id": "A", "size": 0}], "required": []})
@example({"budget": 2**64, "blocks": [{"id": "A", "size": 2**63}] * 3, "required": ["A"]})
@example({"budget": 4.0, "blocks": [{"id": "A", "size": 4.0}], "required": []})
@given(cases())
def test_numpy_gives_the_reference_answer(case: dict[str, Any]) -> None:
    expected = pack(case)
    actual = pack(case, engine="numpy")
    assert same_json(expected, actual)
    assert type(actual.get("remaining", 0)) is int


@given(cases(max_units=2**70))
def test_numpy_gives_the_reference_answer_beyond_int64(case: dict[str, Any]) -> None:
    assert same_json(pack(case), pack(case, engine="numpy"))


@given(cases(max_units=2**70))
def test_both_engines_satisfy_every_invariant(case: dict[str, Any]) -> None:
    check_output(case, pack(case))
    check_output(case, pack(case, engine="numpy"))
