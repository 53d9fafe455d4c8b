"""A run's progress on stderr: a live line on a terminal; in a log, a line as each
phase ends and at least every :data:`EVERY` seconds, so that a slow case never leaves
a CI log silent, and one as each seed of ``--seeds`` is done.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from .._gate import EXPLAINING
from .._stop import pending

#: Seconds between two plain progress lines at most.
EVERY = 10.0
#: The progress "phase" of a run of several seeds: ``done`` seeds of ``total`` are done.
SEEDS = "seeds"
#: What a command's progress counts, one and many, where it is not cases: bench times
#: cells (a workload at a size), as its report calls them.
_COUNTED = {"bench": ("cell", "cells")}


def _state(command: str, phase: str, done: int, total: int | None, elapsed: float) -> str:
    if phase == SEEDS:
        return f"packcheck {command}: {done} of {total} seeds done, {elapsed:.0f} s"
    if phase == EXPLAINING:
        return f"packcheck {command}: explaining the failure, {elapsed:.0f} s"
    count = f"{done}/{total}" if total else f"{done}"
    many = (total or done) != 1
    one, several = _COUNTED.get(command, ("case", "cases"))
    unit = ("tries" if many else "try") if phase == "shrinking" else (several if many else one)
    return f"packcheck {command}: {phase}: {count} {unit}, {elapsed:.0f} s"


class LiveLine:
    """A live line on a terminal's stderr: phase, cases, elapsed; at most ten a second."""

    def __init__(self, stream: IO[str], command: str = "verify") -> None:
        self.stream = stream
        self.command = command
        self.started = time.monotonic()
        self.shown = 0.0

    def __call__(self, phase: str, done: int, total: int | None) -> None:
        now = time.monotonic()
        if now - self.shown >= 0.1 or phase == SEEDS:
            self.shown = now
            self.stream.write(
                f"\r\x1b[K{_state(self.command, phase, done, total, now - self.started)}"
            )
            self.stream.flush()

    def finish(self) -> None:
        """The line is cleared by :meth:`close`."""

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


class PlainLines:
    """Whole lines for a log: one as each phase ends, and one every ``every`` s."""

    def __init__(self, stream: IO[str], every: float = EVERY, command: str = "verify") -> None:
        self.stream = stream
        self.command = command
        self.every = every
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._state: tuple[str, int, int | None] | None = None
        self._written = False
        self._stop = threading.Event()
        self._timer = threading.Thread(target=self._beat, daemon=True)
        self._timer.start()

    def __call__(self, phase: str, done: int, total: int | None) -> None:
        with self._lock:
            if self._state is not None and self._state[0] != phase and not self._written:
                self._write()  # the phase that just ended, with its count
            self._state = (phase, done, total)
            self._written = phase == SEEDS
            if self._written:
                self._write()

    def _write(self) -> None:
        if self._state is None or self._stop.is_set():
            return
        elapsed = time.monotonic() - self.started
        try:
            self.stream.write(_state(self.command, *self._state, elapsed) + "\n")
            self.stream.flush()
        except (OSError, ValueError):  # the log went away: the run goes on, silent
            self._stop.set()

    def _beat(self) -> None:
        while not self._stop.wait(self.every):
            with self._lock:
                self._write()

    def finish(self) -> None:
        """The run ended: the last phase's line, before the report."""
        with self._lock:
            if not self._written:
                self._write()

    def close(self) -> None:
        """Stop the timer; nothing is written after this returns."""
        self._stop.set()
        self._timer.join()


def progress_for(
    stream: IO[str], quiet: bool, command: str = "verify"
) -> LiveLine | PlainLines | None:
    """The progress of ``command`` that suits ``stream``: none when ``quiet``."""
    if quiet:
        return None
    if stream.isatty():
        return LiveLine(stream, command)
    return PlainLines(stream, command=command)


@contextmanager
def showing(
    command: str, quiet: bool, rerun: str | None = None, save: Path | None = None
) -> Iterator[LiveLine | PlainLines | None]:
    """The progress of ``command`` on stderr (none when ``quiet``) for the run inside,
    finished when it ends and closed however it ends.  A run stopped by a signal says
    ``rerun`` and where its failure found so far is saved (``save``)."""
    progress = progress_for(sys.stderr, quiet, command)
    try:
        yield progress
        if progress is not None:
            progress.finish()
    except BaseException as exc:
        stop = pending(exc)
        if stop is None:
            raise
        stop.rerun, stop.save = rerun, save
        raise stop from None
    finally:
        if progress is not None:
            progress.close()
