"""What a benchmark can time: kernels, case-level functions and JSON Lines commands.

Real processes for the commands (tiny inputs, no assertion on a time); simulated
time where a verdict is checked.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from simulated_time import Clock, simulate

from packcheck import _bench as bench
from packcheck import pack
from packcheck._bench import _timing
from packcheck._bench._subjects import (
    CaseSubject,
    CommandSubject,
    KernelSubject,
    python_subject,
)
from packcheck._bench._workloads import workload
from packcheck._engines import numpy_entry as scan
from packcheck._packers import CommandPacker, PackerFault, SetupError

PACKERS = Path(__file__).resolve().parent.parent / "packers"
LINES = f"{sys.executable} {PACKERS / 'lines_packer.py'}"
PARETO = workload("pareto")


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return simulate(monkeypatch, Clock())


def case_packer(clock: Clock, seconds: float, wrong: bool = False) -> Any:
    """A case-level packer costing ``seconds`` a call; ``wrong`` drops ``remaining``."""

    def pack_case(case: dict[str, Any]) -> dict[str, Any]:
        clock.now += seconds
        answer = pack(case)
        return {**answer, "remaining": -1} if wrong else answer

    return pack_case


def kernel(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
    return scan.pack_sizes(budget, sizes)


def one_case(case: dict[str, Any]) -> dict[str, Any]:
    return pack(case)


def either(*args: Any) -> Any:
    return pack(args[0]) if len(args) == 1 else scan.pack_sizes(*args)


def kernel_only(*args: Any) -> Any:
    return scan.pack_sizes(*args)


def nothing(*args: Any) -> Any:
    return None


def raising(*args: Any) -> Any:
    raise RuntimeError("boom")


class NoSignature:
    """A callable ``inspect.signature`` cannot read (as some extensions are)."""

    __signature__ = "not a signature"

    def __call__(self, case: dict[str, Any]) -> dict[str, Any]:
        return pack(case)


def three(a: Any, b: Any, c: Any) -> None:
    """Neither kind: three arguments."""


@pytest.mark.parametrize(
    ("function", "kind"),
    [
        (kernel, "kernel"),
        (one_case, "case"),
        (either, "case"),  # *args: tried as a case first
        (kernel_only, "kernel"),  # *args, but a case makes it raise
        (NoSignature(), "case"),
    ],
)
def test_the_kind_is_told_by_the_signature_or_by_trying_a_case(function: Any, kind: str) -> None:
    assert python_subject("p", function).kind == kind


@pytest.mark.parametrize(
    ("function", "why"),
    [
        (three, "it takes neither one argument nor two"),
        # Tried both ways: why each failed.
        (
            nothing,
            "as a case-level packer it did not return an output object; as a kernel-level "
            "packer it did not return \\(flags, int remaining\\)",
        ),
        (
            raising,
            "as a case-level packer it raised RuntimeError: boom; as a kernel-level packer it "
            "raised RuntimeError: boom",
        ),
    ],
)
def test_a_function_of_neither_kind_is_a_setup_error(function: Any, why: str) -> None:
    with pytest.raises(
        SetupError, match=f"^--against 'p' is neither a case-level.*remaining\\)\\): {why}; say"
    ):
        python_subject("p", function, option="--against")


def test_an_explicit_kind_is_not_second_guessed() -> None:
    assert python_subject("p", either, "kernel").kind == "kernel"
    assert python_subject("p", kernel, "case").kind == "case"  # and fails when timed


def test_a_case_level_ab_flags_one_and_a_half_times_the_work(clock: Clock) -> None:
    old = CaseSubject("old", case_packer(clock, 1e-3))
    new = CaseSubject("new", case_packer(clock, 1.5e-3))
    report = bench.ab(new, old, workloads=["pareto"], sizes=[10], min_time=0.0)
    assert report.kinds == ("case", "case")
    assert [c.estimate.verdict for c in report.comparisons] == ["slower"]
    same = bench.ab(old, old, workloads=["pareto"], sizes=[10], min_time=0.0)
    assert [c.estimate.verdict for c in same.comparisons] == ["same"]


def test_kinds_mix_each_checked_against_the_rule(clock: Clock) -> None:
    def costly(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
        clock.now += 1e-3
        return scan.pack_sizes(budget, sizes)

    case = CaseSubject("case", case_packer(clock, 1e-3))
    report = bench.ab(case, costly, workloads=["pareto"], sizes=[10], min_time=0.0)
    assert report.kinds == ("case", "kernel")
    assert report.comparisons[0].estimate.verdict == "same"
    wrong = CaseSubject("wrong", case_packer(clock, 1e-3, wrong=True))
    with pytest.raises(bench.BenchError, match=r"^NEW gave a wrong answer on pareto at n=10$"):
        bench.ab(wrong, costly, workloads=["pareto"], sizes=[10], min_time=0.0)


def test_a_case_level_packer_is_checked_like_a_kernel(clock: Clock) -> None:
    def mutating(case: dict[str, Any]) -> dict[str, Any]:
        answer = pack(case)
        case["blocks"].pop()
        return answer

    def none(case: dict[str, Any]) -> None:
        return None

    right = CaseSubject("right", case_packer(clock, 1e-3))
    for bad, message in (
        (mutating, "NEW changed its input on pareto at n=10"),
        (none, "NEW did not return an output object on pareto at n=10"),
        (raising, "NEW raised RuntimeError: boom on pareto at n=10"),
    ):
        with pytest.raises(bench.BenchError, match=f"^{message}$"):
            bench.ab(CaseSubject("bad", bad), right, workloads=["pareto"], sizes=[10])


def test_the_matrix_times_case_level_packers_against_pack_case(clock: Clock) -> None:
    fast = CaseSubject("fast", case_packer(clock, 1e-3))
    report = bench.run(
        packers={"fast": fast}, workloads=["pareto"], sizes=[10], repeat=2, min_time=0.0
    )
    assert report.engines() == ["reference", "fast"]
    assert report.seconds("fast", "pareto", 10) == pytest.approx(1e-3)
    # Above the reference limit the answer is checked against the NumPy engine's.
    report = bench.run(
        packers={"fast": fast}, workloads=["pareto"], sizes=[10], repeat=2, reference_limit=5,
        min_time=0.0,
    )  # fmt: skip
    assert report.engines() == ["fast"]
    wrong = CaseSubject("wrong", case_packer(clock, 1e-3, wrong=True))
    with pytest.raises(bench.BenchError, match=r"^wrong gave a wrong answer on pareto at n=10$"):
        bench.run(packers={"wrong": wrong}, workloads=["pareto"], sizes=[10], min_time=0.0)


def test_impossible_mixes_are_rejected(clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    case = CaseSubject("case", case_packer(clock, 1e-3))
    with pytest.raises(ValueError, match="separate runs"):
        bench.run(packers={"case": case, "kernel": kernel}, sizes=[10])
    command = CommandSubject(LINES, 10.0)
    seeing = "cannot see a command packer's work"
    with pytest.raises(ValueError, match=f"the thread clock {seeing}.*: use the command or wall"):
        bench.run(packers={"cmd": command}, sizes=[10])
    with pytest.raises(ValueError, match=f"the process clock {seeing}"):
        bench.ab(command, case, sizes=[10], clock="process")
    monkeypatch.setattr(_timing, "COMMAND_CLOCK", False)  # not Linux
    with pytest.raises(ValueError, match=f"the command clock {seeing}.*: use the wall clock$"):
        bench.ab(command, case, sizes=[10], clock="command")
    command.close()


def test_the_command_clock_adds_the_watched_processes_cpu_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_timing, "_watched", {})  # no packer of another test counts
    alone = _timing.command_clock() - time.thread_time()
    _timing.watch(1, os.getpid)  # this process: its CPU time so far is added
    _timing.watch(2, lambda: None)  # a packer not running adds nothing
    try:
        watched = _timing.command_clock() - time.thread_time()
    finally:
        _timing.unwatch(1)
        _timing.unwatch(2)
    assert alone == pytest.approx(0.0, abs=1e-3)
    assert watched >= time.process_time() / 2  # this process has worked for a while
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    assert _timing._process_cpu(int(ended.stdout)) == 0.0
    monkeypatch.setattr(_timing.os, "listdir", lambda path: ["no-such-thread"])
    assert _timing._process_cpu(os.getpid()) == 0.0


def test_each_side_of_a_pair_is_timed_on_its_own_process(monkeypatch: pytest.MonkeyPatch) -> None:
    # The CPU each packer's process has used: NEW's keeps working after its sample
    # (a JIT runtime's background collection); OLD's sample must not be charged for it.
    used = {101: 5.0, 202: 7.0}
    monkeypatch.setattr(_timing, "_watched", {})
    monkeypatch.setattr(_timing, "_process_cpu", used.__getitem__)
    monkeypatch.setattr(_timing.time, "thread_time", lambda: 0.0)
    _timing.watch(1, lambda: 101)
    _timing.watch(2, lambda: 202)
    _timing.watch(3, lambda: None)  # not running: nothing
    new, old, idle = (_timing.own_clock("command", key) for key in (1, 2, 3))
    start = old()
    used[101] += 2.0  # NEW's leftover work, while OLD is timed
    used[202] += 0.5
    assert old() - start == 0.5
    assert new() == 7.0
    assert idle() == 0.0
    assert _timing.command_clock() == 14.5  # all of them, as the matrix's clock
    assert _timing.own_clock("wall", 1) is _timing.CLOCKS["wall"]


def test_a_command_is_timed_over_batches_through_one_process() -> None:
    command = CommandSubject(LINES, 10.0)
    other = CommandSubject(LINES, 10.0)
    try:
        report = bench.ab(
            command, other, workloads=["pareto"], sizes=[10, 100], min_time=0.0,
            min_pairs=2, max_pairs=2, clock="command",
        )  # fmt: skip
        assert report.kinds == ("command", "command")
        assert [c.estimate.pairs for c in report.comparisons] == [2, 2]
        first = command.packer._proc
        matrix = bench.run(
            packers={"cmd": command}, workloads=["pareto"], sizes=[10], repeat=1,
            min_time=0.0, clock="wall",
        )  # fmt: skip
        assert matrix.engines() == ["reference", "cmd"]
        assert command.packer._proc is first  # started once
    finally:
        command.close()
        other.close()


def test_a_failing_command_is_one_line() -> None:
    dying = CommandSubject(f"{LINES} die", 10.0)
    try:
        with pytest.raises(bench.BenchError, match=r"^NEW failed on pareto at n=10: exited"):
            bench.ab(dying, dying, workloads=["pareto"], sizes=[10], clock="wall")
    finally:
        dying.close()
    never = CommandSubject(f"{sys.executable} -c pass", 10.0)
    try:
        with pytest.raises(SetupError, match="ended before answering any case"):
            bench.ab(never, never, workloads=["pareto"], sizes=[10], clock="wall")
    finally:
        never.close()


def test_a_kernel_subject_is_what_a_plain_function_is(clock: Clock) -> None:
    subject = KernelSubject("k", kernel)
    cell = subject.cell(PARETO, 10, 0)
    assert cell.answer() == cell.expected()
    assert cell.untouched()
    assert subject.family == "kernel"


def _streamed(packer: CommandPacker, request: bytes, replies: int) -> None:
    try:
        packer.stream(request, replies)
    finally:
        packer.close()


def test_streaming_a_batch_counts_the_answers() -> None:
    line = b'{"budget":1,"blocks":[],"required":[]}\n'
    many = CommandPacker(LINES, 10.0)
    _streamed(many, line * 2000, 2000)  # more than a pipe holds either way
    _streamed(CommandPacker("cat", 10.0), b"", 0)


PY = f"{sys.executable} -c 'import os, time; "


@pytest.mark.parametrize(
    ("command", "lines", "timeout", "message"),
    [
        ("/nonexistent/packer", 1, 1.0, "cannot start"),
        (f"{PY}time.sleep(30)'", 1, 0.5, "no answer within 0.5 s"),
        # A request larger than a pipe holds: the write waits until the stdin closes.
        (f"{PY}os.close(0); time.sleep(30)'", 100_000, 30.0, "closed its stdin$"),
        (f"{PY}os.close(1); time.sleep(30)'", 1, 30.0, "closed its stdout$"),
    ],
)
def test_a_stream_that_fails_is_a_fault_and_stops_the_packer(
    command: str, lines: int, timeout: float, message: str
) -> None:
    packer = CommandPacker(command, timeout)
    with pytest.raises(PackerFault, match=message):
        _streamed(packer, b"{}\n" * lines, lines)
    assert packer._proc is None
