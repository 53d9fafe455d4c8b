"""Fixtures of the tests of ``verify``."""

from __future__ import annotations

import pytest

from packcheck.verify import _findings
from packcheck.verify._confirm import Confirmed


@pytest.fixture
def no_causes_sought(monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure explained without seeking its causes, for tests that check how it was
    found and shrunk, not what caused it.  Seeking them replays every neighbouring rule
    over the case: on a long list about 95% of a run at 100,000 blocks, a third at 4,097;
    on the short counterexamples of the ports' regressions, two fifths of their CPU.
    Causes are sought by the tests that do not use this (tests/verify/test_causes.py,
    test_rule_causes.py; in test_verify.py, 3,001 blocks blamed at its block)."""
    monkeypatch.setattr(_findings, "confirm", lambda *_, **__: Confirmed((), None))
