"""``verify.check(save_failures=DIR)``: as ``packcheck verify --save-failures DIR``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from packers import broken

from packcheck.verify import Counterexample, Summary, check


def test_check_saves_a_new_counterexample_and_replays_it_first(tmp_path: Path) -> None:
    saved = tmp_path / "failures"

    def gate(packer: Any) -> Summary:
        return check(packer, seed=3, max_examples=300, long_lists=False, save_failures=saved)

    with pytest.raises(Counterexample) as first:
        gate(broken.missing_dedup)
    (path,) = saved.glob("*.json")
    assert first.value.saved == path
    assert str(first.value).endswith(f"\nsaved:    {path}")
    assert json.loads(path.read_text()) == [first.value.finding.fixture()]
    with pytest.raises(Counterexample) as again:
        gate(broken.missing_dedup)
    assert again.value.finding.origin.startswith(f"fixture {path}")
    assert again.value.saved is None
    assert "saved:" not in str(again.value)
    # A conformant packer replays the saved case and passes.
    summary = gate(broken.correct)
    assert summary.fixtures == 4
