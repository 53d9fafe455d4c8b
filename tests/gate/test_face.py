"""``packcheck._gate.face``: ``check`` is ``run`` that raises, and a phase's cases are
an attribute of the summary."""

from __future__ import annotations

import inspect
import typing
from dataclasses import replace

import pytest

from packcheck import diff, pack, verify
from packcheck._gate import PhaseCases, Settings

QUICK = Settings(seed=1, max_examples=3, long_lists=False, fixtures=())


@pytest.mark.parametrize("face", [verify, diff])
def test_check_is_named_and_documented_as_itself_and_takes_what_run_takes(face: object) -> None:
    check, run = face.check, face.run  # type: ignore[attr-defined]
    assert (check.__name__, check.__qualname__, check.__module__) == (
        "check",
        "check",
        face.__name__,  # type: ignore[attr-defined]
    )
    assert check.__doc__.startswith(":func:`run`, raising")
    assert inspect.signature(check) == inspect.signature(run)
    assert typing.get_type_hints(check) == typing.get_type_hints(run)


def test_check_returns_the_summary_that_run_gives() -> None:
    summary = verify.check(pack, QUICK, max_examples=2)
    assert replace(summary, seconds=0, phase_seconds={}) == replace(
        verify.run(pack, QUICK, max_examples=2), seconds=0, phase_seconds={}
    )
    assert type(summary) is verify.Summary
    assert summary.generated == 2


def test_a_phase_count_is_the_cases_checked_in_that_phase() -> None:
    summary = verify.run(pack, QUICK, long_lists=True)
    assert isinstance(verify.Summary.long_lists, PhaseCases)
    assert (summary.fixtures, summary.generated) == (0, 3)
    assert summary.long_lists == summary.checked["long lists"] > 0
    assert summary.wide == summary.checked["wide ranges"] > 0
