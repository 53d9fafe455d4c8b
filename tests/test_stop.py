"""How a run stops on a signal, in-process (tests/test_ci_job.py runs whole jobs)."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from packcheck import _stop, verify
from packcheck._cli import _stopped, main
from packcheck._cli import pack as cli_pack
from packcheck._packers import WorkerPacker

CI_JOB = Path(__file__).parent / "packers" / "ci_job.py"


def test_a_signal_during_generated_cases_ends_the_run_with_its_status(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = f"{CI_JOB}:terminates_itself"
    assert main(["verify", "--packer", spec, "--timeout", "0", "--seed", "1", "-q"]) == 143
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "packcheck verify: stopped by SIGTERM; to repeat it: "
        f"packcheck verify --packer {spec} --seed 1 --timeout 0\n"
    )


def test_the_first_signal_raises_and_the_next_are_ignored_but_remembered() -> None:
    with _stop.handling():
        with pytest.raises(_stop.Stopped) as info:
            signal.raise_signal(signal.SIGINT)
        assert info.value.status == 130
        signal.raise_signal(signal.SIGTERM)  # ignored: the run is stopping already
        with pytest.raises(_stop.Stopped) as again:
            _stop.check()  # a packer call after the exception was caught
        assert again.value.signum == signal.SIGINT
        assert _stop.pending(RuntimeError()) is not None  # raised instead of Stopped
    _stop.check()  # outside, a new run starts afresh
    assert _stop.pending(RuntimeError()) is None
    with _stop.handling():
        _stop.check()


def test_no_handler_is_set_off_the_main_thread() -> None:
    before = signal.getsignal(signal.SIGTERM)
    seen = []

    def off_the_main_thread() -> None:
        with _stop.handling():
            seen.append(signal.getsignal(signal.SIGTERM))

    thread = threading.Thread(target=off_the_main_thread)
    thread.start()
    thread.join()
    assert seen == [before]


def test_every_recorded_process_group_is_ended() -> None:
    sleeper = [sys.executable, "-c", "import time; time.sleep(600)"]
    process = subprocess.Popen(sleeper, start_new_session=True)
    try:
        _stop.started(process.pid)
        _stop.end_all()
        assert process.wait(timeout=60) == -signal.SIGKILL
        _stop.end_all()  # ended, and forgotten
    finally:
        process.kill()
        process.wait()


def test_a_worker_stopped_while_it_starts_is_left_stopped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def stopped(self: WorkerPacker, wait: float, late: str) -> bytes:
        raise _stop.Stopped(signal.SIGTERM)

    monkeypatch.setattr(WorkerPacker, "_started", stopped)
    worker = WorkerPacker(f"{CI_JOB}:slow", 5)
    with pytest.raises(_stop.Stopped):
        worker.start()
    assert worker.pid is None


def _finding(origin: str) -> SimpleNamespace:
    fixture = {"id": "found", "input": {"budget": 1, "blocks": [], "required": []}, "expected": {}}
    return SimpleNamespace(origin=origin, fixture=lambda: fixture)


def test_the_line_says_what_was_saved_or_why_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _stopped(_stop.Stopped(signal.SIGTERM), "packcheck") == 143
    assert capsys.readouterr().err == "packcheck: stopped by SIGTERM\n"
    stop = _stop.Stopped(signal.SIGINT)
    stop.rerun, stop.found, stop.save = "packcheck verify --seed 3", _finding("generated"), tmp_path
    assert _stopped(stop, "packcheck verify") == 130
    assert capsys.readouterr().err == (
        "packcheck verify: stopped by SIGINT; to repeat it: packcheck verify --seed 3; "
        f"the failure found so far saved to {tmp_path / 'found.json'}\n"
    )
    (tmp_path / "file").write_text("")
    stop.rerun, stop.save = None, tmp_path / "file"
    _stopped(stop, "packcheck verify")
    assert "; the failure found so far not saved: " in capsys.readouterr().err
    stop.found, stop.save = _finding("fixture seed.json: case 1"), tmp_path / "unused"
    _stopped(stop, "packcheck verify")
    assert not (tmp_path / "unused").exists()  # a fixture's failure is saved already


def test_a_stop_that_became_another_exception_is_still_a_stop(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def swallows(args: object) -> int:
        try:
            signal.raise_signal(signal.SIGTERM)
        except _stop.Stopped as stop:
            raise RuntimeError("wrapped") from stop  # as Hypothesis might
        return 0  # pragma: no cover - the handler raises

    monkeypatch.setattr(cli_pack, "register", replace(cli_pack.register, run=swallows))
    assert main(["pack", "-"]) == 143
    assert capsys.readouterr().err == "packcheck pack: stopped by SIGTERM\n"


def test_a_run_in_another_thread_is_cancelled_with_its_packers_alone() -> None:
    packers = str(CI_JOB.parent)
    other = WorkerPacker("broken:hangs", 600, cwd=packers)  # started here: not cancelled
    other.start()
    got: list[object] = []
    ready = threading.Event()
    cancels: list[object] = []

    def run() -> None:
        with _stop.cancellable() as cancel:
            packer = WorkerPacker("broken:hangs", 600, cwd=packers)
            packer.start()
            cancels.append(cancel)
            ready.set()
            try:
                packer.answer({"budget": 5, "blocks": [{"id": "a", "size": 1}] * 2, "required": []})
            except Exception as exc:  # the packer killed: its case faults
                got.append(type(exc).__name__)
            try:
                _stop.check()
            except _stop.Stopped as exc:
                got.append(exc.status)
            packer.close()
        _stop.check()  # free again
        got.append("free")

    thread = threading.Thread(target=run)
    thread.start()
    ready.wait(60)
    _stop.check()  # this thread is not cancelled
    cancels[0]()  # type: ignore[operator]
    thread.join(60)
    assert got == ["PackerDied", 143, "free"]
    assert other.pid in _stop._groups
    other.close()


def test_a_stopped_run_carries_the_latest_failure_it_found() -> None:
    answered: list[object] = []

    def wrong_then_stopped(case: dict[str, object]) -> object:
        answered.append(case)
        if len(answered) > 1:  # while the fixture's failure is explained
            raise _stop.Stopped(signal.SIGTERM)
        return {"kept": [], "remaining": 0, "missing": []}

    with pytest.raises(_stop.Stopped) as info:
        verify.run(wrong_then_stopped, seed=1, max_examples=5)
    found = info.value.found
    assert found is not None
    assert found.origin.startswith("fixture seed.json")
    assert (info.value.rerun, info.value.save) == (None, None)  # the command's to say
