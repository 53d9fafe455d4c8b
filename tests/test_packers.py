"""The packer adapters: every fault is a PackerFault for its case, never a hang."""

from __future__ import annotations

import collections
import copy
import io
import math
import operator
import os
import pickle
import shutil
import struct
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from packers import broken

from packcheck import pack
from packcheck._gate.plain_case import PlainCase
from packcheck._packers import (
    CallablePacker,
    CommandPacker,
    Packer,
    PackerFault,
    SetupError,
    WorkerPacker,
    adapter,
    encode_case,
    load_function,
    serve,
)
from packcheck._packers._callable import _plain_copy
from packcheck._packers._process import _Tail

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


def test_every_adapter_declares_every_capability_of_a_packer() -> None:
    command = CommandPacker(f"{sys.executable} -c pass", timeout=3)
    worker = WorkerPacker("packcheck:pack", timeout=4)
    callable_packer = CallablePacker(pack)
    for packer in (command, worker, callable_packer):
        assert isinstance(packer, Packer)
    got = [(p.speaks_json, p.timeout) for p in (command, worker, callable_packer)]
    assert got == [(True, 3), (False, 4), (False, math.inf)]


def test_an_adapter_is_a_packer_a_function_or_a_type_error() -> None:
    class Answers(Packer):
        def answer(self, case: dict[str, Any]) -> object:
            return pack(case)

    answers = Answers()
    assert adapter(answers) is answers
    assert adapter(pack).answer(SMALL) == pack(SMALL)
    with pytest.raises(TypeError, match=r"^packer: expected a function case -> output or a "):
        adapter(object())


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


class _GoneStream(io.StringIO):
    """A stderr the reader closed: every write fails."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_an_echoed_stderr_that_is_gone_is_still_drained(monkeypatch: pytest.MonkeyPatch) -> None:
    # Echoing stops; draining does not, so the packer never blocks on a full pipe.
    monkeypatch.setattr(sys, "stderr", _GoneStream())
    read, write = os.pipe()
    tail = _Tail(os.fdopen(read, "rb"), echo=True)
    with os.fdopen(write, "wb", buffering=0) as stream:
        stream.write(b"first\n")
        while b"first" not in tail._data:  # read, and its echo failed
            time.sleep(0.01)
        stream.write(b"ValueError: last\n")
    tail.join()
    assert tail.text().endswith("ValueError: last")


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
    monkeypatch.setattr("packcheck._packers._process.MAX_ANSWER_BYTES", 10)
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


class _Str(str):
    """Equal to a ``str``, and not one."""


# A plain case (copied by the fast path): a block list, a list of str, scalars.
PLAIN = {
    "budget": 5,
    "blocks": [{"id": "A", "size": 1}, {"id": "B", "size": 2}, {"id": "\U0001f600", "size": 3}],
    "required": ["C", "Z"],
    "note": None,
    "flag": True,
}


def _set(where: Any, key: Any, value: Any) -> None:
    where[key] = value


def _move_to_end(where: dict[str, Any], key: str) -> None:
    where[key] = where.pop(key)


# Each changes the packer's copy of PLAIN; the equal-but-different ones matter most.
MUTATIONS = {
    "size 1 to True": lambda c: _set(c["blocks"][0], "size", True),
    "size 1 to 1.0": lambda c: _set(c["blocks"][0], "size", 1.0),
    "size to a NumPy int": lambda c: _set(c["blocks"][1], "size", np.int64(2)),
    "size changed": lambda c: _set(c["blocks"][2], "size", 4),
    "id to a str subclass": lambda c: _set(c["blocks"][2], "id", _Str("\U0001f600")),
    "block appended": lambda c: c["blocks"].append({"id": "D", "size": 1}),
    "block removed": lambda c: c["blocks"].pop(),
    "blocks reversed": lambda c: c["blocks"].reverse(),
    "block keys reordered": lambda c: _move_to_end(c["blocks"][1], "id"),
    "block rebuilt in another order": lambda c: _set(c["blocks"], 0, {"size": 1, "id": "A"}),
    "key added to a block": lambda c: _set(c["blocks"][1], "text", "x"),
    "key removed from a block": lambda c: c["blocks"][1].pop("id"),
    "block to an OrderedDict": lambda c: _set(
        c["blocks"], 1, collections.OrderedDict(c["blocks"][1])
    ),
    "block to a str": lambda c: _set(c["blocks"], 1, "B"),
    "blocks to a tuple": lambda c: _set(c, "blocks", tuple(c["blocks"])),
    "required appended": lambda c: c["required"].append("X"),
    "required to a str subclass": lambda c: _set(c["required"], 0, _Str("C")),
    "required to blocks": lambda c: _set(c, "required", c["blocks"][:2]),
    "required sorted back": lambda c: c["required"].reverse(),
    "budget to 5.0": lambda c: _set(c, "budget", 5.0),
    "budget to a NumPy int": lambda c: _set(c, "budget", np.int64(5)),
    "flag True to 1": lambda c: _set(c, "flag", 1),
    "note None to 0": lambda c: _set(c, "note", 0),
    "top keys reordered": lambda c: _move_to_end(c, "budget"),
    "top key added": lambda c: _set(c, "extra", 1),
    "top key removed": lambda c: c.pop("note"),
}


@pytest.mark.parametrize("change", MUTATIONS.values(), ids=MUTATIONS)
def test_a_plain_case_s_copy_is_checked_as_exactly_as_a_pickled_one(change: Any) -> None:
    """The fast path reports every change, located as the pickle round trip locates it,
    and the caller's case is never touched."""
    case = copy.deepcopy(PLAIN)
    assert _plain_copy(case) is not None  # the fast path

    def packer(work: dict[str, Any]) -> object:
        change(work)
        return {}

    with pytest.raises(PackerFault) as pickled:
        CallablePacker(packer)._pickled(case)
    with pytest.raises(PackerFault) as fast:
        CallablePacker(packer).answer(case)
    assert str(fast.value) == str(pickled.value)
    assert str(fast.value).startswith("modified its input (case")
    assert case == PLAIN
    assert pickle.dumps(case) == pickle.dumps(PLAIN)


@pytest.mark.parametrize("change", MUTATIONS.values(), ids=MUTATIONS)
def test_a_worker_s_case_is_checked_by_its_pickle_as_exactly(change: Any) -> None:
    """In a worker the case read from the pipe is the packer's alone: it is not copied,
    and a change is found by pickling it again and located as the copying path does."""
    request = pickle.dumps(copy.deepcopy(PLAIN))

    def packer(work: dict[str, Any]) -> object:
        change(work)
        return {}

    with pytest.raises(PackerFault) as copied:
        CallablePacker(packer).answer(pickle.loads(request))
    with pytest.raises(PackerFault) as read:
        CallablePacker(packer).answer_unpickled(pickle.loads(request), request)
    assert str(read.value) == str(copied.value)
    seen: list[Any] = []
    case = pickle.loads(request)
    keeps = CallablePacker(lambda work: seen.append(work) or {"ok": True})
    assert keeps.answer_unpickled(case, request) == {"ok": True}
    assert seen[0] is case


def undone(work: dict[str, Any]) -> object:
    """A packer that changes its case and undoes it, or swaps in equal data."""
    work["blocks"].reverse()
    work["blocks"].reverse()
    work["blocks"][0] = {"id": "A", "size": 1}
    work["required"] = list(work["required"])
    return {"ok": True}


def test_a_change_undone_or_to_equal_data_is_no_fault_on_either_path() -> None:
    for packer in (CallablePacker(undone).answer, CallablePacker(undone)._pickled):
        assert packer(copy.deepcopy(PLAIN)) == {"ok": True}
    request = pickle.dumps(PLAIN)
    assert CallablePacker(undone).answer_unpickled(pickle.loads(request), request) == {"ok": True}
    # Blocks whose size comes first are pickled, and checked as exactly.
    case = {**PLAIN, "blocks": [{"size": 1, "id": "A"}]}
    assert _plain_copy(case) is None
    reorders = CallablePacker(lambda c: _move_to_end(c["blocks"][0], "size"))
    with pytest.raises(PackerFault, match=r"case.blocks\[0\] keys changed"):
        reorders.answer(case)
    # A NaN replaced by another NaN: equal pickles, no fault (the fast path leaves
    # floats to pickling, where a NaN is not compared by value).
    nan = {**PLAIN, "note": float("nan")}
    assert _plain_copy(nan) is None
    assert CallablePacker(lambda c: _set(c, "note", float("nan"))).answer(nan) is None


def test_the_fast_copy_shares_only_what_cannot_change() -> None:
    case = copy.deepcopy(PLAIN)
    work = _plain_copy(case)
    assert work == case
    assert list(work) == list(case)
    assert work is not case
    assert work["blocks"] is not case["blocks"]
    assert work["required"] is not case["required"]
    assert not any(map(operator.is_, work["blocks"], case["blocks"]))
    assert all(map(operator.is_, work["required"], case["required"]))
    assert _plain_copy({"budget": 1, "blocks": [], "required": []}) == {
        "budget": 1,
        "blocks": [],
        "required": [],
    }


@pytest.mark.parametrize(
    "case",
    [
        [PLAIN],
        {1: "x"},
        {**PLAIN, "budget": 5.0},
        {**PLAIN, "budget": Decimal(5)},
        {**PLAIN, "budget": np.int64(5)},
        {**PLAIN, "nested": {"a": 1}},
        {**PLAIN, "blocks": ({"id": "A", "size": 1},)},
        {**PLAIN, "blocks": [{"id": "A", "size": 1, "text": "x"}]},
        {**PLAIN, "blocks": [{"id": "A", "size": 1}, {"size": 2, "id": "B"}]},
        {**PLAIN, "blocks": [{"id": "A", "text": "x"}]},
        {**PLAIN, "blocks": [{"id": "A", "size": 1.0}]},
        {**PLAIN, "blocks": [{"id": "A", "size": True}]},
        {**PLAIN, "blocks": [{"id": _Str("A"), "size": 1}]},
        {**PLAIN, "blocks": [collections.OrderedDict(id="A", size=1)]},
        {**PLAIN, "blocks": [{"id": "A", "size": 1}, "B"]},
        {**PLAIN, "required": ["A", 1]},
        {**PLAIN, "required": [[]]},
    ],
)
def test_anything_but_a_plain_case_is_pickled(case: Any) -> None:
    assert _plain_copy(case) is None
    seen: list[Any] = []
    assert CallablePacker(lambda work: seen.append(work)).answer(case) is None
    assert pickle.dumps(seen[0]) == pickle.dumps(case)


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


def _frames(*cases: Any, tag: bytes = b"c") -> io.BytesIO:
    """Requests to a worker: each case (or, tagged ``b"r"``, recipe) pickled."""
    data = b""
    for case in cases:
        body = tag + pickle.dumps(case)
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


def test_the_worker_loop_builds_a_recipe_s_case_and_checks_it() -> None:
    parts = PlainCase(3, ["A", "C"], [4, 2], ["C"])
    out = io.BytesIO()
    serve(broken.mutates_input, _frames(parts, parts, tag=b"r"), out)
    serve(pack, _frames(parts, tag=b"r"), out)
    serve(pack, _frames(TWO), out)
    replies = _replies(out)
    assert [r[0] for r in replies] == ["fault", "fault", "ok", "ok"]
    assert replies[0][1].startswith("modified its input (case.blocks[0]")
    assert replies[2][1] == replies[3][1] == ANSWER


def _result(packer: Any, parts: PlainCase) -> tuple[str, object]:
    try:
        answer = packer.answer_built(parts)
    except PackerFault as exc:
        return "fault", str(exc)
    return "ok", pickle.dumps(answer)  # exact types too


def test_a_worker_gets_a_recipe_and_answers_as_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PACKERS)
    parts = PlainCase(3, ["A", "C"], [4, 2], ["C"])
    statuses = {"mutates_input": "fault", "numpy_remaining": "ok", "raises": "fault"}
    for name, status in statuses.items():
        worker = WorkerPacker(f"broken:{name}", timeout=30)
        try:
            there = _result(worker, parts)
        finally:
            worker.close()
        assert there == _result(CallablePacker(getattr(broken, name)), parts)
        assert there[0] == status


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
