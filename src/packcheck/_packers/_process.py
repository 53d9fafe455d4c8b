"""A packer's long-running process: started in its own session, a request written and
its reply read within a timeout, its stderr's tail kept, its whole group ended."""

from __future__ import annotations

import codecs
import contextlib
import math
import os
import re
import selectors
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import IO

from .._stop import check, ended, started
from ._load import SetupError
from ._packer import Packer, PackerFault

#: An answer line longer than this is a fault, not something to buffer forever.
MAX_ANSWER_BYTES = 64 * 1024 * 1024
_STDERR_TAIL = 4000
# Lines of a failing packer's stderr shown in its fault.
_TAIL_LINES = 8
_ERROR_LINE = re.compile(r"(Error|Exception|panic|fatal|FATAL|Traceback)\b")
_GRACE_SECONDS = 1.0
_DEATH_SECONDS = 0.2


class PackerTimeout(PackerFault):
    """The packer gave no answer within its timeout (and was stopped)."""


class PackerDied(PackerFault):
    """The packer's process ended (or closed its pipes) while a case was in flight."""


class _Tail:
    """The last bytes a process wrote to stderr, drained by a thread (a full pipe
    would block the packer); with ``echo``, each chunk is copied to our stderr too."""

    def __init__(self, stream: IO[bytes], echo: bool = False) -> None:
        self._data = b""
        self._echo = codecs.getincrementaldecoder("utf-8")("replace") if echo else None
        self._thread = threading.Thread(target=self._drain, args=(stream,), daemon=True)
        self._thread.start()

    def _drain(self, stream: IO[bytes]) -> None:
        with stream:
            for chunk in iter(lambda: stream.read1(65536), b""):  # type: ignore[attr-defined]
                self._data = (self._data + chunk)[-_STDERR_TAIL:]
                if self._echo is not None:
                    try:
                        sys.stderr.write(self._echo.decode(chunk))
                        sys.stderr.flush()
                    except (OSError, ValueError):  # stderr gone: drain on, or the packer blocks
                        self._echo = None

    def text(self) -> str:
        """The telling lines of the tail: the last line naming an error with the lines
        around it, then the last line; at most :data:`_TAIL_LINES` lines."""
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


class Process(Packer):
    """A long-running packer process in its own session, restarted after a fault."""

    #: Whether what it writes to stderr is written to this process's stderr too (its
    #: tail is kept for a fault's message either way).
    echo_stderr = False

    def __init__(
        self,
        argv: list[str],
        timeout: float,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
    ) -> None:
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
        started(proc.pid)
        os.set_blocking(proc.stdin.fileno(), False)
        self._tail = _Tail(proc.stderr, self.echo_stderr)

    @contextlib.contextmanager
    def _request(self) -> Iterator[float]:
        """The process running (a setup failure is a fault), and the deadline of a request
        sent now; a fault inside leaves the process stopped."""
        check()
        if self._proc is None:
            try:
                self.start()
            except SetupError as exc:
                raise PackerFault(str(exc)) from None
        try:
            yield time.monotonic() + self.timeout
        except PackerFault:
            self.stop()
            raise

    def exchange(self, request: bytes, take: Callable[[bytearray], bytes | None]) -> bytes:
        """Send ``request`` and return the reply ``take`` cuts from the output within
        :attr:`timeout`, else kill the process and raise :class:`PackerFault`."""
        with self._request() as deadline:
            view = memoryview(request)
            while view:
                self._wait(self._pipes()[0], selectors.EVENT_WRITE, deadline)
                view = self._put(view)
            return self._read(take, deadline)

    def stream(self, request: bytes, replies: int) -> None:
        """Send ``request`` and count ``replies`` lines back, writing and reading at once
        (a long batch would fill both pipes), as :meth:`exchange` does; for timing."""
        with self._request() as deadline, selectors.DefaultSelector() as selector:
            stdin, stdout = self._pipes()
            view = memoryview(request)
            selector.register(stdout, selectors.EVENT_READ)
            if view:
                selector.register(stdin, selectors.EVENT_WRITE)
            while replies > 0:
                for key, _ in self._ready(selector, deadline):
                    if key.fileobj is stdout:
                        replies -= self._get().count(b"\n")
                        continue
                    view = self._put(view)
                    if not view:
                        selector.unregister(stdin)

    def _read(self, take: Callable[[bytearray], bytes | None], deadline: float) -> bytes:
        while (reply := take(self._buffer)) is None:
            if len(self._buffer) > MAX_ANSWER_BYTES:
                raise PackerFault(f"answer longer than {MAX_ANSWER_BYTES} bytes")
            self._wait(self._pipes()[1], selectors.EVENT_READ, deadline)
            self._buffer += self._get()
        return reply

    def pending(self) -> bytes:
        """Output no request asked for, in the buffer and on stdout now; emptied."""
        if self._proc is not None:
            stdout = self._pipes()[1]
            with selectors.DefaultSelector() as selector:
                selector.register(stdout, selectors.EVENT_READ)
                if selector.select(0):
                    self._buffer += os.read(stdout.fileno(), 1 << 16)
        extra, self._buffer = bytes(self._buffer), bytearray()
        return extra

    def drained(self) -> bytes:
        """Close stdin, then the output no request asked for (64 KiB at most), read for
        :data:`_GRACE_SECONDS` at most; the process is stopped after."""
        extra = self.pending()
        if self._proc is not None:
            stdin, stdout = self._pipes()
            stdin.close()
            deadline = time.monotonic() + _GRACE_SECONDS
            with selectors.DefaultSelector() as selector:
                selector.register(stdout, selectors.EVENT_READ)
                while selector.select(max(0.0, deadline - time.monotonic())):
                    chunk = os.read(stdout.fileno(), 1 << 16)
                    if not chunk:
                        break
                    extra += chunk[: max(0, (1 << 16) - len(extra))]
        self.stop()
        return extra

    def _pipes(self) -> tuple[IO[bytes], IO[bytes]]:
        assert self._proc
        assert self._proc.stdin
        assert self._proc.stdout
        return self._proc.stdin, self._proc.stdout

    def _ready(
        self, selector: selectors.BaseSelector, deadline: float
    ) -> list[tuple[selectors.SelectorKey, int]]:
        """What ``selector`` finds ready by ``deadline``, else :class:`PackerTimeout`."""
        wait = None if math.isinf(deadline) else max(0.0, deadline - time.monotonic())
        ready = selector.select(wait)
        if not ready:
            raise PackerTimeout(f"no answer within {self.timeout:g} s (timeout); packer stopped")
        return ready

    def _wait(self, fileobj: IO[bytes], event: int, deadline: float) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(fileobj, event)
            self._ready(selector, deadline)

    def _put(self, view: memoryview) -> memoryview:
        """What is left of ``view`` once the process's stdin took what it can now."""
        try:
            return view[os.write(self._pipes()[0].fileno(), view[: 1 << 16]) :]
        except BrokenPipeError:
            raise PackerDied(self._death("closed its stdin")) from None

    def _get(self) -> bytes:
        """What the process wrote to stdout (64 KiB at most); :class:`PackerDied` at its end."""
        chunk = os.read(self._pipes()[1].fileno(), 1 << 16)
        if not chunk:
            raise PackerDied(self._death("closed its stdout"))
        return chunk

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
        ended(proc.pid)
        proc.wait()
        proc.stdout.close()
        self._tail.join()

    def close(self) -> None:
        """Close stdin, let the packer exit, then end whatever is left of its group."""
        self.stop(_GRACE_SECONDS)


def cut_line(buffer: bytearray) -> bytes | None:
    end = buffer.find(b"\n")
    if end < 0:
        return None
    line = bytes(buffer[:end])
    del buffer[: end + 1]
    return line
