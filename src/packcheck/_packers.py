"""Packers under test: a Python callable, a Python worker process, or any command.

Every adapter has ``answer(case) -> object`` and ``close()``.  Whatever goes wrong on
the packer's side (it raises, mutates its input, dies, hangs, prints garbage) becomes
a :class:`PackerFault` for that case; the adapter recovers (a dead or stuck process
is killed with its whole process group and restarted on the next case), so the gate
never hangs and never crashes.

Command protocol: one JSON case per line on the packer's stdin, one JSON object per
line on its stdout, in order.  The worker protocol is the same exchange with
length-prefixed pickles, so a Python packer's exact return types (tuples, NumPy
scalars) reach the checker unchanged.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import pickle
import re
import selectors
import shlex
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from decimal import Decimal
from operator import countOf
from pathlib import Path
from typing import IO, Any, Protocol, runtime_checkable

from . import _stop
from ._load import SetupError, load
from ._rule.jsonio import JSONError, loads
from ._rule.model import plain_columns

__all__ = [
    "CallablePacker",
    "CommandPacker",
    "Packer",
    "PackerFault",
    "PackerTimeout",
    "Recipe",
    "SetupError",
    "WorkerPacker",
    "ask",
    "encode_case",
    "serve",
]

#: An answer line longer than this is a fault, not something to buffer forever.
MAX_ANSWER_BYTES = 64 * 1024 * 1024
_HEADER = struct.Struct(">Q")
_STDERR_TAIL = 4000
# Lines of a failing packer's stderr shown in its fault.
_TAIL_LINES = 8
_ERROR_LINE = re.compile(r"(Error|Exception|panic|fatal|FATAL|Traceback)\b")
_GRACE_SECONDS = 1.0
#: A worker process may take this long to start (import NumPy, the packer's module):
#: on a loaded machine that is seconds, and it must not count against the first case.
WORKER_START_SECONDS = 60.0
_DEATH_SECONDS = 0.2


class PackerFault(Exception):
    """The packer failed on one case (raised, died, timed out, ...); one line."""


class PackerTimeout(PackerFault):
    """The packer gave no answer within its timeout (and was stopped)."""


class _Died(PackerFault):
    """The packer's process ended (or closed its pipes) while a case was in flight."""


@runtime_checkable
class Packer(Protocol):
    """What ``verify`` needs from a packer under test."""

    def answer(self, case: dict[str, Any]) -> object:
        """The packer's output for ``case``; raises :class:`PackerFault`."""
        ...  # pragma: no cover - protocol

    def close(self) -> None:
        """Release the packer (end its process, if any)."""
        ...  # pragma: no cover - protocol


def _difference(before: object, after: object, where: str) -> str | None:
    """Where ``after`` first differs from ``before``, comparing types exactly."""
    if type(before) is not type(after):
        return f"{where} changed type"
    if isinstance(before, dict) and isinstance(after, dict):
        if list(before) != list(after):
            return f"{where} keys changed"
        for key in before:
            found = _difference(before[key], after[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(before, list) and isinstance(after, list):
        if len(before) != len(after):
            return f"{where} length changed from {len(before)} to {len(after)}"
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            found = _difference(old, new, f"{where}[{index}]")
            if found:
                return found
        return None
    return None if before == after else f"{where} changed"


# Values that cannot change in place and that ``==`` tells apart exactly once their
# types are the same (no float: a NaN is not equal to itself).
_SCALARS = frozenset({str, int, bool, type(None)})


def _plain_copy(case: object) -> dict[str, Any] | None:
    """A copy of a plain ``case`` that shares nothing mutable with it, else ``None``.

    Plain: a ``dict`` with ``str`` keys whose values are ``str``, ``int``, ``bool`` or
    ``None``, lists of ``str``, or lists of blocks ``{"id": str, "size": int}``
    (:func:`packcheck._rule.model.plain_columns`), types exact.  The dict, its lists and
    the blocks are copied; strings and integers, which cannot change, are shared.  A
    block that stands twice in the list (the same dict) is two dicts in the copy.
    Anything else (floats, ``Decimal``, blocks with other keys or in another order,
    nesting) is ``None``: it is copied by pickling, as it always was.
    """
    if type(case) is not dict:
        return None
    work: dict[str, Any] = {}
    for key, value in case.items():
        kind = type(value)
        if type(key) is not str:
            return None
        if kind in _SCALARS:
            work[key] = value
        elif kind is not list:
            return None
        elif value and type(value[0]) is dict:
            if plain_columns(value) is None:
                return None
            work[key] = list(map(dict.copy, value))
        elif countOf(map(type, value), str) == len(value):
            work[key] = value.copy()
        else:
            return None
    return work


def _unchanged(case: dict[str, Any], work: dict[str, Any]) -> bool:
    """Whether ``work``, a :func:`_plain_copy` of ``case`` the packer had, is still
    exactly ``case``: the same keys in the same order, equal values of the same exact
    types, every block's ``id`` before its ``size``."""
    if list(work) != list(case):
        return False
    for key, value in case.items():
        after = work[key]
        if type(after) is not type(value):
            return False
        if type(after) is not list:
            continue
        if not (value and type(value[0]) is dict):
            if countOf(map(type, after), str) != len(after):
                return False
        elif plain_columns(after) is None:
            return False
    return work == case


def _located(case: object, work: object) -> None:
    """Raise the :class:`PackerFault` that says where ``work`` first differs from
    ``case`` (compared exactly), if it does."""
    changed = _difference(case, work, "case")
    if changed:
        raise PackerFault(f"modified its input ({changed})")


class Recipe(Protocol):
    """A case the caller keeps as its parts: each :meth:`build` is a new ``dict`` that
    nothing else refers to, and :meth:`holds` tells whether one is still as built.
    Picklable, of a class a worker can import, to be sent to one."""

    def build(self) -> dict[str, Any]:
        """A new case."""
        ...  # pragma: no cover - protocol

    def holds(self, case: object) -> bool:
        """Whether ``case``, made by :meth:`build`, is still exactly as built."""
        ...  # pragma: no cover - protocol

    def line(self) -> str:
        """The case as :func:`encode_case` writes :meth:`build`'s, byte for byte."""
        ...  # pragma: no cover - protocol


def ask(packer: Packer, recipe: Recipe) -> object:
    """``packer``'s answer to the case ``recipe`` builds, built for this call alone.

    A Python function gets it without the copy :meth:`CallablePacker.answer` makes
    (:meth:`CallablePacker.answer_built`), in a worker too, where the recipe is sent
    instead of the case (:meth:`WorkerPacker.answer_built`); a command gets the line
    the recipe writes (:meth:`CommandPacker.answer_built`).  A packer without an
    ``answer_built`` method gets a build.
    """
    answer_built = getattr(packer, "answer_built", None)
    if answer_built is not None:
        answer: object = answer_built(recipe)
        return answer
    return packer.answer(recipe.build())


class CallablePacker:
    """A Python function called in this process with its own deep copy of each case."""

    def __init__(self, function: Callable[[dict[str, Any]], object]) -> None:
        self.function = function

    def answer(self, case: dict[str, Any]) -> object:
        """Call the function; an exception or a modified input is a :class:`PackerFault`.

        A plain case (:func:`_plain_copy`, every generated and probe case of ``int``
        units) is copied as far as it can change, at C speed, and compared exactly
        afterwards; any other is copied by a pickle round trip.  Either way a change is
        located by :func:`_difference`, so both report the same faults.
        """
        work = _plain_copy(case)
        if work is None:
            return self._pickled(case)
        result = self._call(work)
        if not _unchanged(case, work):
            _located(case, work)
        return result

    def answer_built(self, recipe: Recipe) -> object:
        """:meth:`answer` for a case built for this call alone: nothing to copy, so
        the function gets it as built, and ``recipe`` tells afterwards whether it was
        changed (located against a second build, as :meth:`answer` locates it)."""
        work = recipe.build()
        result = self._call(work)
        if not recipe.holds(work):
            _located(recipe.build(), work)
        return result

    def answer_unpickled(self, case: dict[str, Any], pickled: bytes) -> object:
        """:meth:`answer` for a case read from ``pickled`` that nothing else holds (a
        worker's): the function gets it uncopied, and a pickle of it afterwards equal
        to ``pickled`` proves it unchanged; any other is compared exactly with a new read
        of ``pickled`` and the change located, as :meth:`answer` locates it."""
        result = self._call(case)
        if pickle.dumps(case) != pickled:
            _located(pickle.loads(pickled), case)
        return result

    def _call(self, work: dict[str, Any]) -> object:
        _stop.check()
        try:
            return self.function(work)
        except (Exception, SystemExit) as exc:
            raise PackerFault(f"raised {type(exc).__name__}: {exc}") from exc

    def _pickled(self, case: object) -> object:
        # A pickle round trip is a deep copy at C speed (JSON data: dicts, lists, str,
        # int, float, bool, None, Decimal), and equal pickles prove an unchanged input.
        before = pickle.dumps(case, protocol=pickle.HIGHEST_PROTOCOL)
        work = pickle.loads(before)
        result = self._call(work)
        if pickle.dumps(work, protocol=pickle.HIGHEST_PROTOCOL) != before:
            # Different pickles may still be equal data (shared objects replaced by
            # equal ones): the exact comparison decides.
            _located(case, work)
        return result

    def close(self) -> None:
        """Nothing to release."""


def encode_case(case: object) -> str:
    """One line of ASCII JSON with every number exactly as generated.

    ``4.0`` stays ``4.0`` (an integral float is a valid unit, and the packer must see
    it as written); ``Decimal`` values read from fixture files keep their digits.
    """
    try:
        return json.dumps(case, separators=(",", ":"))
    except (TypeError, ValueError):
        return _encode(case)


def _encode(value: object) -> str:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(Decimal(value))  # str(int) refuses more than 4300 digits
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{_encode(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(map(_encode, value)) + "]"
    return json.dumps(value)


class _Tail:
    """The last bytes a process wrote to stderr, drained by a thread so that a
    packer flooding stderr can never block on a full pipe."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._data = b""
        self._thread = threading.Thread(target=self._drain, args=(stream,), daemon=True)
        self._thread.start()

    def _drain(self, stream: IO[bytes]) -> None:
        with stream:
            for chunk in iter(lambda: stream.read1(65536), b""):  # type: ignore[attr-defined]
                self._data = (self._data + chunk)[-_STDERR_TAIL:]

    def text(self) -> str:
        """The telling lines of the tail: one line alone, or an indented block.

        A stack trace's message is rarely its last line (Node.js ends with its version,
        a Java trace with frames), so the block shows the last line naming an error or
        exception with the lines around it, then the last line; at most
        :data:`_TAIL_LINES` lines, each cut to 300 characters.
        """
        self._thread.join(0.2)
        text = self._data.decode("utf-8", "replace")
        lines = [line[-300:] for line in text.splitlines() if line.strip()]
        if len(lines) <= 1:
            return "".join(lines)
        marked = [i for i, line in enumerate(lines) if _ERROR_LINE.search(line)]
        if marked:
            start = max(0, marked[-1] - 2)
            shown = lines[start : start + _TAIL_LINES - 2]
            rest = len(lines) - (start + len(shown))
            shown += ["...", lines[-1]] if rest > 1 else lines[len(lines) - rest :]
        else:
            shown = lines[-_TAIL_LINES:]
        return "\n  | " + "\n  | ".join(shown)

    def join(self) -> None:
        self._thread.join(_GRACE_SECONDS)


class _Process:
    """A long-running packer process in its own session, restarted after a fault."""

    def __init__(
        self,
        argv: list[str],
        timeout: float,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
    ) -> None:
        """``cwd``: the directory the process starts in (default: this one's)."""
        self.argv = argv
        self.timeout = timeout
        self._env = env
        self._cwd = cwd
        self._proc: subprocess.Popen[bytes] | None = None
        self._tail: _Tail | None = None
        self._buffer = bytearray()

    @property
    def pid(self) -> int | None:
        """The running process's ID, or ``None`` when it is not running."""
        return None if self._proc is None else self._proc.pid

    def start(self) -> None:
        """Start the process; :class:`SetupError` when it cannot be started."""
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # its own process group: killpg ends its children
                env=self._env,
                cwd=self._cwd,
            )
        except OSError as exc:
            raise SetupError(f"cannot start {shlex.join(self.argv)}: {exc.strerror}") from None
        assert proc.stdin
        assert proc.stdout
        assert proc.stderr
        self._proc, self._buffer = proc, bytearray()
        _stop.started(proc.pid)
        os.set_blocking(proc.stdin.fileno(), False)
        self._tail = _Tail(proc.stderr)

    def _running(self) -> None:
        """The process running (started if it is not); a setup failure a fault."""
        _stop.check()
        if self._proc is None:
            try:
                self.start()
            except SetupError as exc:
                raise PackerFault(str(exc)) from None

    def exchange(self, request: bytes, take: Callable[[bytearray], bytes | None]) -> bytes:
        """Send ``request`` and return the reply ``take`` cuts from the output.

        Within :attr:`timeout` seconds, or the process is killed and a
        :class:`PackerFault` raised; any fault leaves the process stopped.
        """
        self._running()
        deadline = time.monotonic() + self.timeout
        try:
            self._write(request, deadline)
            return self._read(take, deadline)
        except PackerFault:
            self.stop()
            raise

    def stream(self, request: bytes, replies: int) -> None:
        """Send ``request`` and read ``replies`` lines back, writing and reading at
        once (a long batch would otherwise fill both pipes); the lines are counted,
        not kept.  Within :attr:`timeout` seconds, or a :class:`PackerFault` as for
        :meth:`exchange`.  For timing many cases through the running process."""
        self._running()
        try:
            self._stream(request, replies, time.monotonic() + self.timeout)
        except PackerFault:
            self.stop()
            raise

    def _stream(self, request: bytes, replies: int, deadline: float) -> None:
        assert self._proc
        assert self._proc.stdin
        assert self._proc.stdout
        stdin, stdout = self._proc.stdin, self._proc.stdout
        view = memoryview(request)
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            if view:
                selector.register(stdin, selectors.EVENT_WRITE)
            while replies > 0:
                # No timeout (``inf``): wait as long as it takes.
                wait = None if math.isinf(deadline) else max(0.0, deadline - time.monotonic())
                ready = selector.select(wait)
                if not ready:
                    raise PackerFault(
                        f"no answer within {self.timeout:g} s (timeout); packer stopped"
                    )
                for key, _ in ready:
                    if key.fileobj is stdin:
                        try:
                            view = view[os.write(stdin.fileno(), view[: 1 << 16]) :]
                        except BrokenPipeError:
                            raise _Died(self._death("closed its stdin")) from None
                        if not view:
                            selector.unregister(stdin)
                        continue
                    chunk = os.read(stdout.fileno(), 1 << 16)
                    if not chunk:
                        raise _Died(self._death("closed its stdout"))
                    replies -= chunk.count(b"\n")

    def _wait(self, fileobj: IO[bytes], event: int, deadline: float) -> None:
        # No timeout (``inf``): wait as long as it takes.
        wait = None if math.isinf(deadline) else max(0.0, deadline - time.monotonic())
        with selectors.DefaultSelector() as selector:
            selector.register(fileobj, event)
            if not selector.select(wait):
                raise PackerTimeout(
                    f"no answer within {self.timeout:g} s (timeout); packer stopped"
                )

    def _write(self, request: bytes, deadline: float) -> None:
        assert self._proc
        assert self._proc.stdin
        view = memoryview(request)
        while view:
            self._wait(self._proc.stdin, selectors.EVENT_WRITE, deadline)
            try:
                view = view[os.write(self._proc.stdin.fileno(), view) :]
            except BrokenPipeError:
                raise _Died(self._death("closed its stdin")) from None

    def _read(self, take: Callable[[bytearray], bytes | None], deadline: float) -> bytes:
        assert self._proc
        assert self._proc.stdout
        while (reply := take(self._buffer)) is None:
            if len(self._buffer) > MAX_ANSWER_BYTES:
                raise PackerFault(f"answer longer than {MAX_ANSWER_BYTES} bytes")
            self._wait(self._proc.stdout, selectors.EVENT_READ, deadline)
            chunk = os.read(self._proc.stdout.fileno(), 1 << 16)
            if not chunk:
                raise _Died(self._death("closed its stdout"))
            self._buffer += chunk
        return reply

    def _death(self, what: str) -> str:
        assert self._proc
        assert self._tail
        try:
            status = self._proc.wait(_DEATH_SECONDS)
            message = (
                f"exited with status {status}" if status >= 0 else f"killed by signal {-status}"
            )
        except subprocess.TimeoutExpired:
            message = what
        stderr = self._tail.text()
        if not stderr:
            return message
        return (
            f"{message}; stderr:{stderr}" if stderr[0] == "\n" else f"{message}; stderr: {stderr}"
        )

    def stop(self, grace: float = 0.0) -> None:
        """End the process and its whole group (after ``grace`` seconds to exit)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        assert proc.stdin
        assert proc.stdout
        assert self._tail
        proc.stdin.close()  # nothing is buffered: requests go out through os.write
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(grace)
        # Children may outlive the leader; the group outlives both.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        _stop.ended(proc.pid)
        proc.wait()
        proc.stdout.close()
        self._tail.join()

    def close(self) -> None:
        """Close stdin, let the packer exit, then end whatever is left of its group."""
        self.stop(_GRACE_SECONDS)


def _line(buffer: bytearray) -> bytes | None:
    end = buffer.find(b"\n")
    if end < 0:
        return None
    line = bytes(buffer[:end])
    del buffer[: end + 1]
    return line


def _frame(buffer: bytearray) -> bytes | None:
    if len(buffer) < _HEADER.size:
        return None
    (length,) = _HEADER.unpack_from(buffer)
    if len(buffer) < _HEADER.size + length:
        return None
    frame = bytes(buffer[_HEADER.size : _HEADER.size + length])
    del buffer[: _HEADER.size + length]
    return frame


class CommandPacker(_Process):
    """Any program speaking JSON Lines: one case in, one output object out."""

    #: Its answers are JSON text: a whole number may come as 4 where Python has 4.0.
    speaks_json = True

    def __init__(
        self, command: str, timeout: float, *, any_json: bool = False, cwd: str | None = None
    ) -> None:
        """``any_json``: any JSON value is an answer (``diff``), not only an object;
        ``cwd``: the directory the command runs in (default: this process's)."""
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise SetupError(f"--packer-cmd {command!r}: {exc}") from None
        if not argv:
            raise SetupError("--packer-cmd is empty")
        super().__init__(argv, timeout, cwd=cwd)
        self.command = command
        self.answered = False
        self.any_json = any_json

    def answer(self, case: dict[str, Any]) -> object:
        """The parsed object the command printed for ``case``.

        Raises :class:`SetupError` if the command ends before it has answered any
        case and, started again, ends on the empty case too (a mistyped script path,
        a missing module): it never ran as a packer.  One that answers the empty case
        failed on ``case`` itself, a :class:`PackerFault` like any other.
        """
        return self._answer(encode_case(case))

    def answer_built(self, recipe: Recipe) -> object:
        """:meth:`answer` for the case ``recipe`` builds, sent as the line it writes
        (the same bytes, without a ``dict`` per block)."""
        return self._answer(recipe.line())

    def _answer(self, line: str) -> object:
        try:
            raw = self._send(line)
        except _Died as exc:
            if self.answered or self._answers(_EMPTY_CASE):
                raise
            raise SetupError(
                f"--packer-cmd {self.command!r} ended before answering any case, and "
                f"again when given the empty case: {exc}"
            ) from None
        self.answered = True
        try:
            output = loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, JSONError) as exc:
            self.stop()
            raise PackerFault(f"answered {_clip(raw)}, which is not JSON ({exc})") from None
        if not isinstance(output, dict) and not self.any_json:
            self.stop()
            raise PackerFault(f"answered {_clip(raw)}, which is not a JSON object")
        return output

    def _send(self, line: str) -> bytes:
        """Send one JSON line; the line the command printed back."""
        return self.exchange((line + "\n").encode("ascii"), _line)

    def _answers(self, case: dict[str, Any]) -> bool:
        """Whether the command, started again if need be, answers ``case`` at all."""
        try:
            self._send(encode_case(case))
        except PackerFault:
            return False
        self.answered = True
        return True


_EMPTY_CASE: dict[str, Any] = {"budget": 0, "blocks": [], "required": []}


def _clip(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace")
    return repr(text if len(text) <= 80 else text[:77] + "...")


class WorkerPacker(_Process):
    """A Python ``MODULE:FUNCTION`` run in a worker process, so a hang can be timed out."""

    def __init__(
        self, spec: str, timeout: float, *, hash_seed: str | None = None, cwd: str | None = None
    ) -> None:
        """``hash_seed``: the worker's ``PYTHONHASHSEED`` unless the environment sets one,
        so that two workers iterate sets of strings in the same order.  The packer's
        module is imported in the worker alone (:meth:`start`), started in ``cwd``
        (default: this process's directory), which its ``MODULE`` or ``PATH.py`` is
        read from."""
        package_root = str(Path(__file__).resolve().parent.parent)
        env = dict(os.environ)
        if hash_seed is not None:
            env.setdefault("PYTHONHASHSEED", hash_seed)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
        super().__init__([sys.executable, "-m", "packcheck._packers", spec], timeout, env, cwd)
        self.spec = spec

    def start(self) -> None:
        """Start the worker and wait until it has loaded the function, so that its
        start-up never counts against a case's timeout.

        The worker says it is running (an empty frame: within
        :data:`WORKER_START_SECONDS`), then imports the packer's module within
        :attr:`timeout` seconds and says it is ready (an empty frame) or why it cannot
        be (the :class:`SetupError`'s one line, raised here).
        """
        super().start()
        try:
            self._started(WORKER_START_SECONDS, "the worker did not start within {} s")
            late = "importing it took longer than {} s (the timeout); worker stopped"
            reply = self._started(self.timeout, late)
        except BaseException:
            self.stop()  # stopped by a signal while it started: nothing left running
            raise
        if reply:
            self.stop()
            raise SetupError(pickle.loads(reply))

    def _started(self, wait: float, late: str) -> bytes:
        try:
            return self._read(_frame, time.monotonic() + wait)
        except PackerFault as exc:
            why = (
                late.format(f"{wait:g}")
                if isinstance(exc, PackerTimeout)
                else f"the worker did not start: {exc}"
            )
            raise SetupError(f"--packer {self.spec!r}: {why}") from None

    def answer(self, case: dict[str, Any]) -> object:
        """The function's return value, exactly as returned in the worker."""
        return self._ask(_CASE + pickle.dumps(case))

    def answer_built(self, recipe: Recipe) -> object:
        """:meth:`answer` for the case ``recipe`` builds: the worker gets the recipe
        (lists of strings and integers, pickled far faster than a case's ``dict`` per
        block) and builds the case there (:meth:`CallablePacker.answer_built`)."""
        return self._ask(_RECIPE + pickle.dumps(recipe))

    def _ask(self, request: bytes) -> object:
        frame = self.exchange(_HEADER.pack(len(request)) + request, _frame)
        status, value = pickle.loads(frame)
        if status == "fault":
            raise PackerFault(value)
        return value


# A request to a worker: a tag, then the pickled case or recipe.
_CASE, _RECIPE = b"c", b"r"


def _split(request: bytes) -> tuple[bytes, bytes]:
    return request[:1], request[1:]


def serve(function: Callable[[dict[str, Any]], object], inp: IO[bytes], out: IO[bytes]) -> None:
    """The worker loop: answer pickled cases from ``inp`` on ``out`` until end of input."""
    packer = CallablePacker(function)
    while len(header := inp.read(_HEADER.size)) == _HEADER.size:
        kind, body = _split(inp.read(_HEADER.unpack(header)[0]))
        request = pickle.loads(body)
        try:
            if kind == _RECIPE:
                answer = packer.answer_built(request)
            else:
                answer = packer.answer_unpickled(request, body)
        except PackerFault as exc:
            reply = pickle.dumps(("fault", str(exc)))
        else:
            try:
                reply = pickle.dumps(("ok", answer))
            except Exception as exc:
                reply = pickle.dumps(("fault", f"returned a value that cannot be sent back: {exc}"))
        out.write(_HEADER.pack(len(reply)) + reply)
        out.flush()


def _worker_main(spec: str) -> None:  # pragma: no cover - runs in the worker process
    # The protocol owns the real stdout; the packer's own prints go to stderr.
    protocol = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    protocol.write(_HEADER.pack(0))  # running: the packer's module is imported next
    protocol.flush()
    try:
        function = load(spec)
    except SetupError as exc:
        reason = pickle.dumps(str(exc))
        protocol.write(_HEADER.pack(len(reason)) + reason)
        protocol.flush()
        sys.exit(2)
    protocol.write(_HEADER.pack(0))  # ready
    protocol.flush()
    serve(function, sys.stdin.buffer, protocol)


if __name__ == "__main__":  # pragma: no cover - the worker process entry point
    _worker_main(sys.argv[1])
