"""A case that times out ends the run: it is reported as it is, never shrunk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from packers import broken

from packcheck._gate import run as _run
from packcheck._packers import (
    CallablePacker,
    Packer,
    PackerTimeout,
    SetupError,
    WorkerPacker,
    _worker,
)
from packcheck.verify import Settings, Summary, run
from packcheck.verify._oracle import VERIFY, ReferenceOracle

BROKEN = Path(__file__).parents[1] / "packers" / "broken.py"
NOT_SHRUNK = "not shrunk: no answer within the timeout"


class _Watched(Packer):
    """A packer adapter that counts what is asked of it after its first timeout."""

    def __init__(self, packer: WorkerPacker) -> None:
        self.packer = packer
        self.timed_out = False
        self.asked_after = 0

    def answer(self, case: dict[str, Any]) -> object:
        self.asked_after += self.timed_out
        try:
            return self.packer.answer(case)
        except PackerTimeout:
            self.timed_out = True
            raise

    def close(self) -> None:
        self.packer.close()


def _timed_out(packer: _Watched) -> tuple[Any, Any]:
    """The run (seed 1, 200 cases, no fixtures) of ``packer``, closed after it, and its
    finding: a case that got no answer, the packer stopped."""
    try:
        summary = run(packer, seed=1, max_examples=200, fixtures=())
    finally:
        packer.close()
    finding = summary.finding
    assert finding is not None
    assert isinstance(finding.answer, PackerTimeout)
    return summary, finding


@pytest.mark.parametrize(
    ("function", "phase", "origin"),
    [
        ("hangs_past_two_blocks", "generated", f"generated case (seed 1, {NOT_SHRUNK})"),
        ("hangs_on_long_lists", "long lists", f"long list (seed 1, {NOT_SHRUNK})"),
    ],
)
def test_a_timed_out_case_is_reported_unshrunk(
    function: str, phase: str, origin: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    packer = _Watched(WorkerPacker(f"{BROKEN}:{function}", 0.5))
    # Hypothesis's test starts with `dumps(case)`: after the timeout it must not run again
    # (refused tries would leave Hypothesis's shrinker at work for seconds of CPU).
    tried_after = []
    dumps = _run.dumps
    monkeypatch.setattr(_run, "dumps", lambda v: tried_after.append(packer.timed_out) or dumps(v))
    summary, finding = _timed_out(packer)
    assert finding.failures == ("packer fault: no answer within 0.5 s (timeout); packer stopped",)
    assert finding.origin == origin
    assert list(summary.phase_seconds)[-1] == phase
    assert summary.shrink_tries == 0
    # Nothing more is asked (explaining it would wait the timeout once more); the case is
    # as found, whole.
    assert packer.asked_after == 0
    assert not any(tried_after)
    if phase == "generated":
        assert finding.blocks() > 2
        assert finding.first is not None
        assert finding.first.case == finding.case


_WRONG_THEN_HANGS = """
import time
from packcheck import pack

def pack_case(case):
    out = pack(case)
    if len(case["blocks"]) >= 3 and "remaining" in out:
        return {**out, "remaining": out["remaining"] + 1}
    if len(case["blocks"]) == 2 and case.get("budget") == 0:
        time.sleep(3600)
    return out
"""


def test_shrinking_stops_at_a_case_that_times_out(tmp_path: Path) -> None:
    """A try of the shrinker that gets no answer is reported, said to stop the shrinking."""
    module = tmp_path / "wrong_then_hangs.py"
    module.write_text(_WRONG_THEN_HANGS)
    packer = _Watched(WorkerPacker(f"{module}:pack_case", 0.5))
    summary, finding = _timed_out(packer)
    stopped = "shrinking stopped: this case got no answer within the timeout"
    assert finding.origin == f"generated case (seed 1, {stopped})"
    assert finding.blocks() == 2
    assert summary.shrink_tries > 0
    assert packer.asked_after == 0


def test_a_fault_counted_as_found_is_not_said_shrunk() -> None:
    """With ``count`` a fault is neither shrunk by Hypothesis nor by packcheck."""

    class Counting(ReferenceOracle):
        count = True

    oracle = Counting(CallablePacker(broken.raises))
    summary = _run.run_gate(
        oracle, Settings(seed=1, max_examples=20, fixtures=(), long_lists=False), VERIFY, Summary
    )
    finding = summary.finding
    assert finding is not None
    shown = "not shrunk: a packer fault is shown as found"
    assert finding.origin == f"generated case (seed 1, {shown})"
    assert summary.failing["generated"] > 1


_SLOW_IN_WORKER = """
import sys, time
main = sys.modules["__main__"]
if getattr(main.__spec__, "name", None) == "packcheck._packers.__main__":
    {action}
def pack(case):
    return None
"""


@pytest.mark.parametrize(
    ("action", "wait", "message"),
    [
        ("time.sleep(3600)", 1.0, "importing it took longer than 0.1 s"),
        ("time.sleep(3600)", 0.0, "the worker did not start within 0 s"),
        ("raise RuntimeError('only in the worker')", 60.0, "RuntimeError: only in the worker$"),
        ("import os; os._exit(3)", 60.0, "the worker did not start: exited with status 3"),
    ],
)
def test_a_worker_that_does_not_start_is_a_setup_error(
    action: str, wait: float, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = tmp_path / "slow_start.py"
    module.write_text(_SLOW_IN_WORKER.format(action=action))
    monkeypatch.setattr(_worker, "WORKER_START_SECONDS", wait)
    packer = WorkerPacker(f"{module}:pack", 0.1)
    with pytest.raises(SetupError, match=message):
        packer.start()
    packer.close()
