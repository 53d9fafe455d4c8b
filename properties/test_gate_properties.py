"""The gate's own properties: the checker accepts exactly the declared outputs."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from packcheck import pack
from packcheck._partition.invariants import InvariantError, check_output
from packcheck.strategies import cases


@given(cases(allow_invalid=False), st.data())
def test_the_checker_rejects_any_change_to_a_declared_output(
    case: dict[str, Any], data: st.DataObject
) -> None:
    output = pack(case)
    field = data.draw(st.sampled_from(["kept", "remaining", "missing"]))
    wrong = dict(output)
    if field == "remaining":
        wrong["remaining"] = output["remaining"] + data.draw(st.sampled_from([-1, 1, 2**64]))
    elif output[field]:
        wrong[field] = output[field][:-1]
    else:
        wrong[field] = ["\U0001f600"]
    with pytest.raises(InvariantError):
        check_output(case, wrong)
