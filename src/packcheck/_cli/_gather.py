"""Output written in large pieces: on an unbuffered stdout each ``write`` is a system
call, and a trace or run record a case is tens of thousands of them."""

from __future__ import annotations

from typing import IO

#: Text held before it is written: about a pipe's buffer.
GATHER_CHARS = 1 << 16


class Gathered:
    """Text for ``out``, written in one piece once :data:`GATHER_CHARS` are held, and at
    :meth:`flush` (before the tool waits for input, writes to stderr, or ends)."""

    __slots__ = ("_held", "_out", "_size")

    def __init__(self, out: IO[str]) -> None:
        self._out = out
        self._held: list[str] = []
        self._size = 0

    def write(self, text: str) -> None:
        self._held.append(text)
        self._size += len(text)
        if self._size >= GATHER_CHARS:
            self._write_held()

    def flush(self) -> None:
        self._write_held()
        self._out.flush()

    def _write_held(self) -> None:
        if self._held:
            text = "".join(self._held)
            self._held.clear()
            self._size = 0
            self._out.write(text)
