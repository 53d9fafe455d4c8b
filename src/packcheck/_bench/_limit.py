"""A Python packer's time limit in bench: seconds a case; a case past it ends the run.

bench times a Python packer in this process's thread (a worker would time the
pickling), where a call cannot be interrupted: a watchdog thread hands the one-line
reason to ``expire``, which ends the process.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class Limit:
    """``seconds`` a case for a packer called in this process; ``expire(reason)`` is
    called from a watchdog thread when a watched call outlasts it."""

    def __init__(self, seconds: float, expire: Callable[[str], None]) -> None:
        self.seconds = seconds
        self._expire = expire
        self._watched: tuple[float, str] | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    @contextmanager
    def watching(self, what: str, calls: int = 1) -> Iterator[None]:
        """``what`` (the packer and case, for the reason) makes ``calls`` calls inside."""
        self._watched = (time.monotonic() + self.seconds * calls, what)
        try:
            yield
        finally:
            self._watched = None

    def _watch(self) -> None:
        while not self._stop.wait(min(0.1, max(0.01, self.seconds / 4))):
            watched = self._watched
            if watched is not None and time.monotonic() > watched[0]:
                self._stop.set()
                self._expire(
                    f"{watched[1]}: no answer within {self.seconds:g} s a case (timeout); "
                    "run stopped"
                )

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
