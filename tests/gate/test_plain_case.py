"""``PlainCase``: a probe's case kept as its parts, handed to a Python packer uncopied."""

from __future__ import annotations

import copy
import pickle
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_packers import MUTATIONS, undone

from packcheck import pack
from packcheck._gate.plain_case import PlainCase
from packcheck._gate.probes import long_probes, unit_probes, wide_probes
from packcheck._packers import CallablePacker, CommandPacker, Packer, PackerFault, encode_case
from packcheck.verify._findings import examine
from packcheck.verify._oracle import ReferenceOracle

LINES_PACKER = Path(__file__).parents[1] / "packers" / "lines_packer.py"
PARTS = PlainCase(5, ["A", "B", "\U0001f600"], [1, 2, 3], ["C", "Z"])
# The mutations of a plain case that apply to one of exactly three keys.
THREE_KEYS = {
    k: v for k, v in MUTATIONS.items() if not k.startswith(("flag", "note", "top key removed"))
}


def test_every_build_is_a_new_case_equal_to_the_parts() -> None:
    first, second = PARTS.build(), PARTS.build()
    assert (
        first
        == second
        == {
            "budget": 5,
            "blocks": [
                {"id": "A", "size": 1},
                {"id": "B", "size": 2},
                {"id": "\U0001f600", "size": 3},
            ],
            "required": ["C", "Z"],
        }
    )
    assert first["blocks"] is not second["blocks"]
    assert first["required"] is not second["required"] is not PARTS.required
    assert PARTS.holds(first)


@pytest.mark.parametrize("change", THREE_KEYS.values(), ids=THREE_KEYS)
def test_holds_sees_every_change_and_it_is_located_as_the_copying_path_locates_it(
    change: Any,
) -> None:
    case = PARTS.build()
    change(case)
    assert not PARTS.holds(case)

    def packer(work: dict[str, Any]) -> object:
        change(work)
        return {}

    with pytest.raises(PackerFault) as copied:
        CallablePacker(packer).answer(PARTS.build())
    with pytest.raises(PackerFault) as built:
        CallablePacker(packer).answer_built(PARTS)
    assert str(built.value) == str(copied.value)
    assert str(built.value).startswith("modified its input (case")


@pytest.mark.parametrize(
    "case",
    [
        None,
        [],
        {"blocks": [], "budget": 5, "required": []},
        {**PARTS.build(), "budget": True},
        {**PARTS.build(), "budget": 6},
        {**PARTS.build(), "required": ("C", "Z")},
        {**PARTS.build(), "blocks": PARTS.build()["blocks"][:2]},
        {**PARTS.build(), "blocks": [*PARTS.build()["blocks"][:2], {"id": "\U0001f600"}]},
        {**PARTS.build(), "blocks": [*PARTS.build()["blocks"][:2], {"id": "x", "s": 3}]},
        {**PARTS.build(), "blocks": [*PARTS.build()["blocks"][:2], {"size": 3, "id": "x"}]},
    ],
)
def test_holds_refuses_anything_but_the_case_as_built(case: object) -> None:
    assert not PARTS.holds(case)


def test_a_change_undone_or_to_equal_data_is_no_fault() -> None:
    assert CallablePacker(undone).answer_built(PARTS) == {"ok": True}


def test_a_packer_that_keeps_its_case_cannot_reach_the_parts_or_a_finding() -> None:
    kept: list[dict[str, Any]] = []

    def keeps(case: dict[str, Any]) -> object:
        kept.append(case)
        return {"kept": [], "remaining": 0, "missing": []}

    finding = examine(CallablePacker(keeps), PARTS, PARTS.expected(), "probe")
    assert finding is not None
    kept[0]["blocks"].clear()
    kept[0]["required"].append("X")
    assert finding.case == PARTS.build() != kept[0]
    assert PARTS.sizes == [1, 2, 3]
    assert PARTS.required == ["C", "Z"]


def test_any_other_packer_gets_a_build() -> None:
    class Seen(Packer):
        def answer(self, case: dict[str, Any]) -> object:
            return case

    assert Seen().answer_built(PARTS) == PARTS.build()


def test_a_mutating_packer_is_a_finding_on_a_built_case() -> None:
    def mutates(case: dict[str, Any]) -> object:
        case["blocks"][1]["size"] = True
        return pack(case)

    oracle = ReferenceOracle(CallablePacker(mutates))
    finding = oracle.judge(PARTS, "long lists")
    assert finding is not None
    assert finding.case == PARTS.build()
    fault = "packer fault: modified its input (case.blocks[1].size changed type)"
    assert finding.failures == (fault,)
    assert ReferenceOracle(CallablePacker(pack)).judge(PARTS, "long lists") is None
    wrong = ReferenceOracle(CallablePacker(lambda case: {**pack(case), "remaining": 1}))
    finding = wrong.judge(PARTS, "long lists")
    assert finding is not None
    assert finding.case == PARTS.build()
    assert finding.expected == pack(PARTS.build())


_IDS = st.sampled_from(["A", "B", "\U0001f600", "\uff00", "\ud800", "\udc00", ""])
_UNITS = st.one_of(
    st.integers(-2, 12), st.integers(2**63 - 3, 2**63 + 3), st.integers(2**70, 2**71)
)


@given(
    budget=_UNITS,
    blocks=st.lists(st.tuples(_IDS, _UNITS), max_size=12),
    required=st.lists(_IDS, max_size=5),
)
def test_expected_is_the_declared_output_of_the_build(
    budget: int, blocks: list[tuple[str, int]], required: list[str]
) -> None:
    """Invalid units, lone surrogates (joined as UTF-16 by the reference) and magnitudes
    past int64 included; the answer is the very one ``pack`` gives, types too."""
    parts = PlainCase(budget, [i for i, _ in blocks], [s for _, s in blocks], required)
    declared = pack(parts.build())
    assert pickle.dumps(parts.expected()) == pickle.dumps(declared)


_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=4)


@given(
    budget=_UNITS,
    blocks=st.lists(st.tuples(st.one_of(_IDS, _TEXT), _UNITS), max_size=12),
    required=st.lists(st.one_of(_IDS, _TEXT), max_size=5),
)
def test_line_is_the_build_s_json_line_byte_for_byte(
    budget: int, blocks: list[tuple[str, int]], required: list[str]
) -> None:
    """Quotes, backslashes, control characters, DEL, non-ASCII and lone surrogates in
    IDs, integers of any size: the very line ``encode_case`` writes."""
    parts = PlainCase(budget, [i for i, _ in blocks], [s for _, s in blocks], required)
    assert parts.line() == encode_case(parts.build())


def test_a_line_past_the_digit_guard_is_written_as_encode_case_writes_it() -> None:
    huge = 10**5000 + 7
    for parts in (PlainCase(huge, ["A"], [1], []), PlainCase(1, ["A"], [huge], ["B"])):
        assert parts.line() == encode_case(parts.build())
        assert "1" + "0" * 4999 + "7" in parts.line()


def test_a_command_gets_the_line_and_answers_as_for_the_case() -> None:
    packer = CommandPacker(f"{sys.executable} {LINES_PACKER}", timeout=30)
    try:
        assert packer.answer_built(PARTS) == packer.answer(PARTS.build()) == pack(PARTS.build())
    finally:
        packer.close()


def test_every_probe_of_a_run_keeps_its_parts_as_its_build() -> None:
    """The gate judges probes by their parts: the same cases, the same declared output
    (the shortest probe of each family of seed 1, and each spoiled one; the digest test
    pins every build)."""
    probes = [*unit_probes(1), *wide_probes(1, 2**70), *long_probes(1, 2**70)]
    shortest: dict[tuple[str, bool], Any] = {}
    for probe in sorted(probes, key=lambda p: -p.length):
        shortest[probe.family, probe.spoil] = probe
    assert len(shortest) > 20
    for probe in shortest.values():
        parts = probe.parts()
        if probe.family == "units":
            assert parts is None
            continue
        assert parts is not None
        case = probe.build()
        assert parts.build() == case
        assert parts.holds(copy.deepcopy(case))
        assert pickle.dumps(parts.expected()) == pickle.dumps(pack(case)), probe
