"""The ports of real chat-history trimmers (tests/packers) and their one-line
regressions: each regression departs from its packer on a small witness case, so none
is an equivalent mutant, and each port checks its units."""

from __future__ import annotations

from typing import Any

import pytest
from packers import (
    autogen_context,
    langchain_token_buffer,
    langchain_trim,
    llama_memory,
    message_overhead,
)

PORTS = (autogen_context, llama_memory, langchain_trim, message_overhead, langchain_token_buffer)

# (budget, sizes) on which each regression answers otherwise than its packer.
WITNESSES = {
    "pack_validated_ge": (1, [1]),
    "pack_validated_middle_left": (1, [1, 1]),
    "pack_validated_limit_zero": (0, []),
    "get_ge": (2, [1, 1]),
    "get_no_last_check": (1, [2]),
    "get_last_check_ge": (1, [1]),
    "trim_last_lt": (4, [1, 1]),
    "trim_last_extra_4": (4, [1]),
    "trim_last_mid_floor": (4, [1, 1, 1, 1]),
    "pack_ge": (8, [1]),
    "pack_overhead_6": (7, [1]),
    "pack_skip": (8, [1, 2]),
    "prune_ge": (3, [1, 1]),
    "prune_newest": (3, [1, 1]),
    "prune_no_prefix": (2, [1, 1]),
}
REGRESSIONS = [
    (port, base, regression)
    for port in PORTS
    for base, regressions in port.REGRESSIONS.items()
    for regression in regressions
]


def _case(budget: int, sizes: list[int]) -> dict[str, Any]:
    blocks = [{"id": "ABCD"[i], "size": size} for i, size in enumerate(sizes)]
    return {"budget": budget, "blocks": blocks, "required": ["A"]}


def _outcome(packer: Any, case: dict[str, Any]) -> object:
    try:
        return packer(case)
    except ValueError as exc:
        return f"raised ValueError: {exc}"


def test_every_regression_has_a_witness() -> None:
    assert sorted(WITNESSES) == sorted(regression for _, _, regression in REGRESSIONS)


@pytest.mark.parametrize(("port", "base", "regression"), REGRESSIONS)
def test_a_regression_departs_from_its_packer(port: Any, base: str, regression: str) -> None:
    case = _case(*WITNESSES[regression])
    assert _outcome(getattr(port, regression), case) != _outcome(getattr(port, base), case)
    calm = _case(10**6, [1, 2, 3])  # a budget far above the sizes: every version keeps all
    assert getattr(port, regression)(calm)["kept"] == getattr(port, base)(calm)["kept"]


@pytest.mark.parametrize("port", PORTS)
def test_a_port_answers_a_size_error_on_bad_units(port: Any) -> None:
    for base in port.REGRESSIONS:
        assert getattr(port, base)(_case(-1, [1])) == {"error": "size"}
        assert getattr(port, base)({**_case(5, [1]), "blocks": [{"id": "A"}]}) == {"error": "size"}
        answer = getattr(port, base)({**_case(10**6, [4, 3]), "required": ["Z", "A"]})
        assert answer == {"kept": ["A", "B"], "remaining": answer["remaining"], "missing": ["Z"]}
