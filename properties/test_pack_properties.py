"""The NumPy packer against the reference, and both against the invariant checker."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from packcheck import MalformedCase, pack, read_case, reference
from packcheck._engines.choice import kept_flags
from packcheck._engines.pack import declared_output, pack_plain
from packcheck._partition.invariants import check_output
from packcheck._rule.model import SizeError
from packcheck._rule.same import same
from packcheck.strategies import cases

_KEYS = ("budget", "blocks", "required", "id", "size")


def _kernel(case: dict[str, Any]) -> dict[str, Any]:
    """The declared output with the NumPy kernel packing (at every size: see conftest).

    ``pack(case, engine="numpy")`` packs plain cases in the one loop both engines
    share, so it is compared too, but it would not reach the kernel on its own.
    """
    read = read_case(case)
    if isinstance(read, SizeError):
        return {"error": "size"}
    return declared_output(read, *kept_flags(read.budget, read.sizes, "numpy"))


@example({"budget": 1, "blocks": [{"id": "A", "size": 2}, {"id": "A", "size": 1}], "required": []})
@example({"budget": 0, "blocks": [], "required": ["\U0001f600", "\ue000"]})
@example({"budget": 0, "blocks": [{"id": "A", "size": 0}], "required": []})
@example({"budget": 2**64, "blocks": [{"id": "A", "size": 2**63}] * 3, "required": ["A"]})
@example({"budget": 4.0, "blocks": [{"id": "A", "size": 4.0}], "required": []})
@given(cases())
def test_numpy_gives_the_reference_answer(case: dict[str, Any]) -> None:
    expected = pack(case)
    for actual in (_kernel(case), pack(case, engine="numpy")):
        assert same(expected, actual, json=True)
        assert type(actual.get("remaining", 0)) is int


@given(cases(max_units=2**70))
def test_numpy_gives_the_reference_answer_beyond_int64(case: dict[str, Any]) -> None:
    assert same(pack(case), _kernel(case), json=True)
    assert same(pack(case), pack(case, engine="numpy"), json=True)


@given(cases(max_units=2**70))
def test_both_engines_satisfy_every_invariant(case: dict[str, Any]) -> None:
    check_output(case, pack(case))
    check_output(case, _kernel(case))


_ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-3, 3) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from(_KEYS), inner),
    max_leaves=4,
)


@st.composite
def _spoiled_cases(draw: st.DrawFn) -> Any:
    """A case with one value anywhere swapped for any JSON value (or a key dropped)."""
    case = copy.deepcopy(draw(cases(max_units=2**70)))
    spots: list[tuple[Any, Any]] = [(case, key) for key in _KEYS if key in case]
    if isinstance(case.get("blocks"), list):
        blocks = case["blocks"]
        spots += [(blocks, at) for at in range(len(blocks))]
        spots += [(block, key) for block in blocks for key in ("id", "size") if key in block]
    if isinstance(case.get("required"), list):
        spots += [(case["required"], at) for at in range(len(case["required"]))]
    if spots and draw(st.booleans()):
        where, key = draw(st.sampled_from(spots))
        if isinstance(where, dict) and draw(st.booleans()):
            del where[key]
        else:
            where[key] = draw(_ANY_JSON)
    return case


def _read_and_packed(case: Any) -> dict[str, Any] | None:
    """The declared output by the long way: read_case, then the reference's loop."""
    try:
        read = read_case(case)
    except MalformedCase:
        return None
    if isinstance(read, SizeError):
        return None
    return declared_output(read, *reference.pack_sizes(read.budget, read.sizes))


@example({"budget": 1, "blocks": [{"id": "\ud83d\ude00", "size": 1}], "required": []})
@example({"budget": 1, "blocks": [{"id": "A", "size": 0}], "required": []})
@example({"budget": 0, "blocks": [{"id": "A", "size": 1.5}], "required": []})
@example({"budget": 0, "blocks": [{"id": "A", "size": True}], "required": []})
@example({"budget": 1, "blocks": [{"id": "\ud83d", "size": 2}], "required": ["\ud83d"]})
@given(_spoiled_cases())
def test_the_one_loop_path_answers_as_reading_then_packing(case: Any) -> None:
    before = copy.deepcopy(case)
    fast = pack_plain(case)
    if fast is not None:
        assert fast == _read_and_packed(case)
        assert type(fast["remaining"]) is int
    assert case == before
