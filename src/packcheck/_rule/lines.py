"""Input lines, read in bounded pieces: no line longer than a limit is ever held whole;
one with no end in :data:`SKIP_LIMITS` times the limit ends the input."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

#: The longest line (its line end not counted) read unless told otherwise.
MAX_LINE_BYTES = 64 << 20
#: An over-long line is skipped up to this many times the limit; past that, the input ends.
SKIP_LIMITS = 16
# What one read takes while skipping: the skipped bytes are never held together.
_SKIP_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class TooLong:
    """A line of more than ``limit`` bytes, refused unread; ``endless``: nothing after
    it was read."""

    limit: int
    endless: bool = False

    def __str__(self) -> str:
        why = f"longer than {self.limit:,} bytes, the limit (--max-line-bytes raises it)"
        if self.endless:
            why += f"; no line end in {SKIP_LIMITS * self.limit:,} bytes: the rest is not read"
        return why


def bounded_lines(stream: IO[bytes], limit: int) -> Iterator[bytes | TooLong]:
    """The lines of ``stream`` (with line ends), :class:`TooLong` in place of one of
    more than ``limit`` bytes.  Memory: O(``limit``)."""
    while line := stream.readline(limit + 1):
        if len(line) <= limit or line.endswith(b"\n"):
            yield line
            continue
        refused = _skip(stream, limit)
        yield refused
        if refused.endless:
            return


def _skip(stream: IO[bytes], limit: int) -> TooLong:
    """Skip the rest of an over-long line; whether its end came within the bound."""
    skipped, bound = 0, SKIP_LIMITS * limit
    while skipped < bound:
        piece = stream.readline(min(_SKIP_BYTES, bound - skipped))
        if not piece or piece.endswith(b"\n"):
            return TooLong(limit)
        skipped += len(piece)
    return TooLong(limit, endless=True)
