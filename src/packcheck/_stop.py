"""How a run ends on SIGTERM or SIGINT: at once, through its clean-up, with exit status
128 + the signal's number.

:class:`Stopped` is a ``KeyboardInterrupt``, which Hypothesis and ``except Exception``
let through; a phase that caught it anyway stops at its next packer call
(:func:`check`), and the way out ends every packer process still running.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_signalled: list[int] = []
#: The packer process groups running, each by the thread that started it.
_groups: dict[int, int] = {}
#: The threads whose runs are to stop (:func:`cancellable`).
_cancelled: set[int] = set()


class Stopped(KeyboardInterrupt):
    """The run was stopped by the signal ``signum``, with its latest failing finding,
    the command that repeats it and the folder of its saved failures."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        #: The exit status: 143 for SIGTERM, 130 for SIGINT.
        self.status = 128 + signum
        self.found: Any = None
        self.rerun: str | None = None
        self.save: Path | None = None


def check() -> None:
    """Raise :class:`Stopped` if a signal (or a cancellation) has asked the run to stop."""
    if _signalled:
        raise Stopped(_signalled[0])
    if _cancelled and threading.get_ident() in _cancelled:
        raise Stopped(signal.SIGTERM)


def pending(exc: BaseException) -> Stopped | None:
    """The :class:`Stopped` that ``exc`` is, or that a signal asked for while ``exc``
    was raised instead (Hypothesis wraps what it catches), else ``None``."""
    if isinstance(exc, Stopped):
        return exc
    return Stopped(_signalled[0]) if _signalled else None


def started(pid: int) -> None:
    """A packer's process ``pid`` leads its own process group, now running."""
    _groups[pid] = threading.get_ident()


def ended(pid: int) -> None:
    """The process group of ``pid`` has been ended."""
    _groups.pop(pid, None)


def end_all(thread: int | None = None) -> None:
    """Kill every recorded process group still running (``thread``: those it started)."""
    for pid, owner in list(_groups.items()):
        if thread is None or owner == thread:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            ended(pid)


@contextlib.contextmanager
def cancellable() -> Iterator[Callable[[], None]]:
    """Within: a function that, from any thread, stops the run in this thread (a Dask
    worker's task) and ends the packer processes it started."""
    thread = threading.get_ident()

    def cancel() -> None:
        _cancelled.add(thread)
        end_all(thread)

    try:
        yield cancel
    finally:
        _cancelled.discard(thread)


def _handler(signum: int, frame: object) -> None:
    if not _signalled:
        _signalled.append(signum)
        raise Stopped(signum)


@contextlib.contextmanager
def handling() -> Iterator[None]:
    """SIGINT and SIGTERM raise :class:`Stopped` within (main thread only); the handlers
    before, and a clean slate, are restored after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, _handler) for signum in _SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        _signalled.clear()  # the next run starts afresh
