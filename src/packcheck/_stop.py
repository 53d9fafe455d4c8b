"""How a run ends on SIGTERM or SIGINT: at once, whatever it is doing, through its
clean-up, with exit status 128 + the signal's number.

The handler (:func:`handling`) raises :class:`Stopped`, a ``KeyboardInterrupt``, which
Hypothesis, its shrinker and ``except Exception`` let through; the signal is also
remembered, so that a phase that caught it anyway stops at its next packer call
(:func:`check`).  Further signals are ignored while the run stops.  Packer processes
are recorded while they run, so that the way out ends every one still running
(:func:`end_all`).  A run in another thread (a Dask worker's task) is stopped by
:func:`cancellable`'s function.
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
    """The run was stopped by the signal ``signum``; said and saved as it stops: its
    latest failing finding (``found``, set by the gate), the command that repeats it
    (``rerun``) and the folder of its saved failures (``save``, set by the command)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        #: The exit status: 143 for SIGTERM, 130 for SIGINT.
        self.status = 128 + signum
        self.found: Any = None
        self.rerun: str | None = None
        self.save: Path | None = None


def check() -> None:
    """Raise :class:`Stopped` if a signal has asked the run to stop (or, for a run in
    a thread of its own, its cancellation: as by SIGTERM)."""
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
    """Within: a function that, called from any thread, stops the run in this thread
    (its next packer call raises :class:`Stopped`) and ends the packer processes it
    started; on leaving, the thread runs freely again."""
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
    """SIGINT and SIGTERM raise :class:`Stopped` within; the handlers before, and a
    clean slate (no signal), are restored after.  Nothing is set outside the main
    thread, where signals cannot be."""
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
