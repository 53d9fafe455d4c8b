"""A case that times out ends the run: it is reported as it is, never shrunk."""

from __future__ import annotations

from pathlib import Path

import pytest

from packcheck import _packers
from packcheck._packers import PackerTimeout, WorkerPacker
from packcheck.verify import SetupError, run

BROKEN = Path(__file__).parents[1] / "packers" / "broken.py"


@pytest.mark.parametrize(
    ("function", "phase", "origin"),
    [
        ("hangs_past_two_blocks", "generated", "generated case (seed 1"),
        ("hangs_on_long_lists", "long lists", "long list (seed 1)"),
    ],
)
def test_a_timed_out_case_is_reported_unshrunk(function: str, phase: str, origin: str) -> None:
    packer = WorkerPacker(f"{BROKEN}:{function}", 0.5)
    try:
        summary = run(packer, seed=1, max_examples=200, fixtures=())
    finally:
        packer.close()
    finding = summary.finding
    assert finding is not None
    assert isinstance(finding.answer, PackerTimeout)
    assert finding.failures == ("packer fault: no answer within 0.5 s (timeout); packer stopped",)
    assert finding.origin.startswith(origin)
    assert list(summary.phase_seconds)[-1] == phase
    assert summary.shrink_tries == 0


_SLOW_IN_WORKER = """
import sys, time
main = sys.modules["__main__"]
if getattr(main.__spec__, "name", None) == "packcheck._packers":
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
    monkeypatch.setattr(_packers, "WORKER_START_SECONDS", wait)
    packer = WorkerPacker(f"{module}:pack", 0.1)
    with pytest.raises(SetupError, match=message):
        packer.start()
    packer.close()
