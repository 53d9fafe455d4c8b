"""The packer adapters: every fault is a PackerFault for its case, never a hang."""

from __future__ import annotations

import io
import os
import pickle
import shutil
import struct
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from packers import broken

from packcheck._load import SetupError, load_function
from packcheck._packers import (
    CallablePacker,
    CommandPacker,
    PackerFault,
    WorkerPacker,
    encode_case,
    serve,
)

PACKERS = Path(__file__).parent / "packers"

SMALL = {"budget": 1, "blocks": [{"id": "A", "size": 1}], "required": ["B"]}
TWO = {"budget": 3, "blocks": [{"id": "A", "size": 4}, {"id": "C", "size": 2}], "required": ["C"]}
ANSWER = {"kept": ["C"], "remaining": 1, "missing": []}


def _command(mode: str, timeout: float = 5.0) -> CommandPacker:
    return CommandPacker(f"{sys.executable} {PACKERS / 'lines_packer.py'} {mode}", timeout)


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.split(")")[1].split()[0] != "Z"  # a zombie is dead, awaiting its reaper


def _dies(pid: int) -> bool:
    """Whether ``pid`` is gone within a few seconds: SIGKILL is delivered, then acted on
    (a busy machine can leave a killed process running for a moment)."""
    deadline = time.monotonic() + 5
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_command_packer_answers_line_by_line_and_closes() -> None:
    packer = _command("correct")
    assert packer.answer(TWO) == ANSWER
    assert packer.answer(SMALL) == {"kept": ["A"], "remaining": 0, "missing": ["B"]}
    packer.close()
    packer.close()  # closing twice is harmless


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("garbage", "answered 'this is not JSON', which is not JSON"),
        ("array", "answered '[1, 2]', which is not a JSON object"),
        ("bad-utf8", "which is not JSON ('utf-8' codec"),
        ("die", "exited with status 3; stderr: packer: cannot cope"),
        ("close-stdout", "closed its stdout"),
    ],
)
def test_a_misbehaving_command_is_a_fault_and_is_restarted(mode: str, message: str) -> None:
    packer = _command(mode)
    try:
        assert packer.answer(SMALL)["kept"] == ["A"]
        with pytest.raises(PackerFault, match=message.replace("(", r"\(").replace("[", r"\[")):
            packer.answer(TWO)
        assert packer.answer(SMALL)["kept"] == ["A"]  # a fresh process answers again
    finally:
        packer.close()


def test_a_command_flooding_stderr_does_not_deadlock() -> None:
    packer = _command("flood", timeout=20)
    try:
        for _ in range(5):  # 1 MB of stderr in all, far beyond a pipe's buffer
            assert packer.answer(TWO) == ANSWER
    finally:
        packer.close()


def test_a_command_answering_out_of_order_gives_wrong_answers() -> None:
    packer = _command("out-of-order")
    try:
        packer.answer(SMALL)
        assert packer.answer(TWO)["kept"] == ["A"]  # the previous case's answer
    finally:
        packer.close()


def test_a_hanging_command_times_out_and_leaves_no_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pids = tmp_path / "pids"
    monkeypatch.setenv("PIDFILE", str(pids))
    packer = _command("hang", timeout=1)
    started = time.monotonic()
    with pytest.raises(PackerFault, match="no answer within 1 s"):
        packer.answer(TWO)
    assert time.monotonic() - started < 4
    for pid in map(int, pids.read_text().split()):
        assert _dies(pid), pid
    packer.close()


def test_a_command_that_never_reads_cannot_block_the_gate() -> None:
    packer = CommandPacker("sleep 60", timeout=0.5)
    huge = {"budget": 1, "blocks": [{"id": "x" * 1000, "size": 1}] * 300, "required": []}
    with pytest.raises(PackerFault, match="timeout"):
        packer.answer(huge)
    packer.close()


def test_a_command_that_closes_stdin_is_a_fault() -> None:
    packer = CommandPacker(f"{sys.executable} -c 'import os, time; os.close(0); time.sleep(60)'", 5)
    big = {"budget": 1, "blocks": [{"id": "x" * 1000, "size": 1}] * 300, "required": []}
    # It never answers anything, not even the empty case: a setup error, saying why.
    with pytest.raises(SetupError, match=r"closed its stdin|closed its stdout"):
        packer.answer(big)
    packer.close()


def test_an_endless_answer_line_is_a_fault(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("packcheck._packers.MAX_ANSWER_BYTES", 10)
    packer = CommandPacker("sh -c 'printf %0100d 0; sleep 60'", timeout=5)
    with pytest.raises(PackerFault, match="answer longer than 10 bytes"):
        packer.answer(SMALL)
    packer.close()


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("", "--packer-cmd is empty"),
        ("'unbalanced", "No closing quotation"),
        ("/no/such/packer", "cannot start /no/such/packer"),
    ],
)
def test_a_command_that_cannot_start_is_a_setup_error(command: str, message: str) -> None:
    with pytest.raises(SetupError, match=message):
        CommandPacker(command, 1).start()


def test_a_command_that_cannot_restart_is_a_fault(tmp_path: Path) -> None:
    script = tmp_path / "once.sh"
    script.write_text("#!/bin/sh\nread line\necho '{}'\nexit 1\n")
    script.chmod(0o755)
    packer = CommandPacker(str(script), 5)
    assert packer.answer(SMALL) == {}
    with pytest.raises(PackerFault, match="exited with status 1"):
        packer.answer(SMALL)
    script.unlink()
    with pytest.raises(PackerFault, match="cannot start"):
        packer.answer(SMALL)


def test_a_command_killed_by_a_signal_says_so() -> None:
    packer = CommandPacker("sh -c 'read line; echo {}; read line; kill -9 $$'", 5)
    assert packer.answer(SMALL) == {}
    with pytest.raises(PackerFault, match="killed by signal 9"):
        packer.answer(SMALL)


@pytest.mark.parametrize("script", ["exit 2", "read line; exit 1", "kill -9 $$"])
def test_a_command_that_ends_before_any_answer_is_a_setup_error(script: str) -> None:
    # A mistyped script path (`python3 nosuch.py` exits 2) never ran as a packer.
    packer = CommandPacker(f"sh -c '{script}'", 5)
    with pytest.raises(SetupError, match="ended before answering any case, and again when"):
        packer.answer(SMALL)
    packer.close()


def test_a_command_that_answers_the_empty_case_failed_on_the_first_one() -> None:
    # It dies on cases with blocks only: a fault of that case, not of the setup.
    script = 'read line; case "$line" in *size*) exit 1;; esac; echo {}; read line; echo {}'
    packer = CommandPacker(f"sh -c '{script}'", 5)
    with pytest.raises(PackerFault, match="exited with status 1"):
        packer.answer(SMALL)
    assert packer.answer({"budget": 0, "blocks": [], "required": []}) == {}
    packer.close()


def test_encode_case_keeps_every_number_as_written() -> None:
    from decimal import Decimal

    assert encode_case({"budget": 4.0, "x": [True, None]}) == '{"budget":4.0,"x":[true,null]}'
    assert encode_case({"budget": Decimal("1E+400"), "n": 10**5000 + 1, "s": "\ud800"}) == (
        '{"budget":1E+400,"n":' + "1" + "0" * 4999 + '1,"s":"\\ud800"}'
    )
    assert encode_case([Decimal("2.5"), None]) == "[2.5,null]"


def test_a_callable_gets_its_own_copy_and_may_not_mutate_it() -> None:
    seen: list[Any] = []
    packer = CallablePacker(lambda case: seen.append(case) or {"ok": True})
    assert packer.answer(TWO) == {"ok": True}
    assert seen[0] == TWO
    assert seen[0] is not TWO
    mutating = CallablePacker(broken.mutates_input)
    with pytest.raises(PackerFault, match=r"modified its input \(case.blocks\[0\]"):
        mutating.answer(TWO)


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda c: c.update(budget=3.0), "case.budget changed type"),
        (lambda c: c.update(extra=1), "case keys changed"),
        (lambda c: c["required"].append("X"), "case.required length changed from 1 to 2"),
        (lambda c: c["blocks"][1].update(size=3), r"case.blocks\[1\].size changed"),
    ],
)
def test_every_kind_of_mutation_is_located(change: Any, where: str) -> None:
    def packer(case: dict[str, Any]) -> object:
        change(case)
        return {}

    with pytest.raises(PackerFault, match=where):
        CallablePacker(packer).answer(TWO)
    CallablePacker(lambda case: {}).close()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nocolon", "expected MODULE:FUNCTION or PATH.py:FUNCTION"),
        ("no_such_module_xyz:f", "cannot import 'no_such_module_xyz': ModuleNotFoundError"),
        ("broken:no_such_function", "has no function 'no_such_function'"),
        ("broken:WIDE_TYPO", "has no function"),
    ],
)
def test_load_function_errors_are_one_line(
    spec: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(PACKERS)
    with pytest.raises(SetupError, match=message):
        load_function(spec)


def test_load_function_puts_the_current_directory_on_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "cwd_packer_mod.py").write_text("def pack(case):\n    return 42\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    assert load_function("cwd_packer_mod:pack")({}) == 42


def _frames(*cases: Any) -> io.BytesIO:
    data = b""
    for case in cases:
        body = pickle.dumps(case)
        data += struct.pack(">Q", len(body)) + body
    return io.BytesIO(data)


def _replies(out: io.BytesIO) -> list[Any]:
    raw, replies = out.getvalue(), []
    while raw:
        (length,) = struct.unpack(">Q", raw[:8])
        replies.append(pickle.loads(raw[8 : 8 + length]))
        raw = raw[8 + length :]
    return replies


def test_the_worker_loop_returns_exact_types_and_faults() -> None:
    out = io.BytesIO()
    serve(broken.numpy_remaining, _frames(TWO), out)
    ((status, value),) = _replies(out)
    assert status == "ok"
    assert type(value["remaining"]) is np.int64
    out = io.BytesIO()
    serve(broken.raises, _frames(TWO, SMALL), out)
    assert [r[0] for r in _replies(out)] == ["fault", "ok"]
    out = io.BytesIO()
    serve(broken.unpicklable, _frames(TWO), out)
    assert _replies(out) == [("fault", _replies(out)[0][1])]
    assert "cannot be sent back" in _replies(out)[0][1]


def test_a_python_packer_in_a_worker_times_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PACKERS)
    packer = WorkerPacker("broken:hangs", timeout=1)
    try:
        assert packer.answer(SMALL) == {"kept": ["A"], "remaining": 0, "missing": ["B"]}
        with pytest.raises(PackerFault, match="no answer within 1 s"):
            packer.answer(TWO)
        assert packer.answer(SMALL)["kept"] == ["A"]
    finally:
        packer.close()


def test_a_worker_keeps_numpy_types_and_prints_do_not_break_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(PACKERS)
    for spec, check in [
        ("broken:numpy_remaining", lambda v: type(v["remaining"]) is np.int64),
        ("broken:prints", lambda v: v == ANSWER),
        ("broken:tuple_kept", lambda v: v["kept"] == ("C",)),
    ]:
        packer = WorkerPacker(spec, timeout=10)
        try:
            assert check(packer.answer(TWO)), spec
        finally:
            packer.close()
    # An answer far larger than one pipe read arrives in pieces.
    big = {"budget": 300, "blocks": [{"id": f"{i:01000d}", "size": 1} for i in range(300)]}
    packer = WorkerPacker("broken:correct", timeout=10)
    try:
        assert len(packer.answer({**big, "required": []})["kept"]) == 300
    finally:
        packer.close()
    faulty = WorkerPacker("broken:exits", timeout=10)
    with pytest.raises(PackerFault, match="raised SystemExit: 3"):
        faulty.answer(TWO)
    faulty.close()


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_javascript_packer_speaks_the_protocol() -> None:
    packer = CommandPacker(f"node {PACKERS / 'packer.js'}", 10)
    try:
        assert packer.answer(TWO) == ANSWER
        assert packer.answer({**TWO, "budget": 4.0})["kept"] == ["A"]
    finally:
        packer.close()
    assert os.path.exists(PACKERS / "packer.js")


# Each answers the empty case (it dies on a case, not on its setup).
_TRACE = (
    "import sys\n"
    "if 'size' not in sys.stdin.readline(): print('{}'); sys.exit(0)\n"
    "print('Traceback (most recent call last):', file=sys.stderr)\n"
    "for i in range(12): print(f'  frame {i}', file=sys.stderr)\n"
    "print('ValueError: the size is not a number', file=sys.stderr)\n"
    "for i in range(9): print(f'  after {i}', file=sys.stderr)\n"
    "sys.exit(1)\n"
)
_PLAIN = (
    "import sys\n"
    "if 'size' not in sys.stdin.readline(): print('{}'); sys.exit(0)\n"
    "for i in range(20): print(f'line {i}', file=sys.stderr)\n"
    "sys.exit(1)\n"
)


@pytest.mark.parametrize(
    ("script", "shown", "hidden"),
    [
        (
            _TRACE,
            ["ValueError: the size is not a number", "  frame 10", "...", "  after 8"],
            ["  frame 3", "  after 6"],
        ),
        (_PLAIN, ["line 12", "line 19"], ["line 11"]),
    ],
)
def test_a_dying_command_shows_the_telling_lines_of_its_stderr(
    tmp_path: Path, script: str, shown: list[str], hidden: list[str]
) -> None:
    (tmp_path / "dies.py").write_text(script)
    packer = CommandPacker(f"{sys.executable} {tmp_path / 'dies.py'}", 5.0)
    try:
        with pytest.raises(PackerFault) as info:
            packer.answer(SMALL)
    finally:
        packer.close()
    lines = str(info.value).splitlines()
    assert lines[0] == "exited with status 1; stderr:"
    assert len(lines) <= 9
    body = [line.removeprefix("  | ") for line in lines[1:]]
    for text in shown:
        assert text in body
    for text in hidden:
        assert text not in body
