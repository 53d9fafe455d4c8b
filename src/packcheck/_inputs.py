"""Reading runs and case files: names and globs, ``-``, ``.gz``, fsspec URLs, and pieces
of about :data:`PIECE_BYTES` cut at line ends for a cluster."""

from __future__ import annotations

import glob
import gzip
import io
import os
import stat
import sys
import zlib
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import IO, Any, Protocol, TypeVar, cast

from ._rule.lines import MAX_LINE_BYTES

#: The size a file is cut into for a cluster (a piece ends at the first line end past it).
PIECE_BYTES = 8 << 20
#: What reading a file can raise: the system's errors, a truncated or corrupt ``.gz``.
READ_ERRORS = (OSError, EOFError, zlib.error)
_MAGIC = frozenset("*?[")
_T = TypeVar("_T")
_R = TypeVar("_R")


class ReadError(Exception):
    """A file that cannot be read (or a glob that matches none): ``name: reason``."""

    def __init__(self, name: str, why: str) -> None:
        super().__init__(name, why)
        self.name = name
        self.why = why

    def __str__(self) -> str:
        return f"{self.name}: {self.why}"


def reason(exc: BaseException) -> str:
    """One line on ``exc``: ``cannot read: ...`` for a read error, else its message."""
    if isinstance(exc, OSError) and exc.strerror:
        return f"cannot read: {exc.strerror}"
    return f"cannot read: {exc}" if isinstance(exc, READ_ERRORS) else str(exc)


@dataclass(frozen=True, slots=True)
class Piece:
    """Bytes ``[start, stop)`` of the file shown as ``name`` and opened as ``path``;
    ``first_line``: its first line's number (2 past the file's start, until counted)."""

    name: str
    path: str
    start: int = 0
    stop: int | None = None
    first_line: int = 1


def _is_url(name: str) -> bool:
    return "://" in name


def _url_fs(name: str) -> tuple[Any, str]:
    """The fsspec file system of the URL ``name``, and the path in it; ``OSError``
    without fsspec or its backend."""
    try:
        import fsspec

        fs, path = fsspec.core.url_to_fs(name)
    except (ImportError, ValueError) as exc:
        why = "a URL needs fsspec: pip install 'packcheck[dask]'"
        raise OSError(why if isinstance(exc, ModuleNotFoundError) else str(exc)) from None
    return fs, path


def expand(names: Sequence[str]) -> list[str]:
    """``names`` with each glob replaced by the files it matches, sorted;
    :class:`ReadError` if a glob matches nothing."""
    out: list[str] = []
    for name in names:
        if name == "-" or not _MAGIC & set(name) or (not _is_url(name) and os.path.exists(name)):
            out.append(name)
            continue
        try:
            found = _glob_url(name) if _is_url(name) else sorted(glob.glob(name))
        except READ_ERRORS as exc:
            raise ReadError(name, reason(exc)) from None
        if not found:
            raise ReadError(name, "no file matches")
        out += found
    return out


def _glob_url(name: str) -> list[str]:
    fs, path = _url_fs(name)
    return [fs.unstrip_protocol(found) for found in sorted(fs.glob(path))]


def _compressed(name: str) -> bool:
    if _is_url(name):
        _url_fs(name)  # fsspec, and its backend for this URL, are installed
        from fsspec.utils import infer_compression

        return infer_compression(name) is not None
    return name.lower().endswith(".gz")


def whole(name: str) -> Piece:
    """The file ``name`` (``-``: standard input, shown as ``<stdin>``) as one piece."""
    if name == "-":
        return Piece("<stdin>", "-")
    return Piece(name, name if _is_url(name) else os.path.abspath(name))


@contextmanager
def opened(name: str) -> Iterator[IO[bytes]]:
    """The bytes of ``name``: ``-`` standard input, a URL through fsspec, a ``.gz`` file
    decompressed, else the file."""
    if name == "-":
        yield sys.stdin.buffer
    elif _is_url(name):
        fs, path = _url_fs(name)
        with fs.open(path, "rb", compression="infer") as stream:
            yield _sized_lines(stream)
    elif name.lower().endswith(".gz"):
        with gzip.open(name, "rb") as unzipped:
            yield cast(IO[bytes], unzipped)
    else:
        with open(name, "rb") as stream:
            yield stream


def _sized_lines(stream: Any) -> IO[bytes]:
    """An fsspec file as a buffered stream, whose ``readline`` takes a size."""
    return io.BufferedReader(stream)


@contextmanager
def piece_lines(piece: Piece) -> Iterator[IO[bytes]]:
    """The bytes of ``piece``, from its ``start`` up to its ``stop``."""
    with opened(piece.path) as stream:
        if piece.start:
            stream.seek(piece.start)
        if piece.stop is None:
            yield stream
        else:
            left = piece.stop - piece.start

            def window(size: int) -> bytes:
                nonlocal left
                data = stream.read(min(size, left))
                left -= len(data)
                return data

            yield buffered(window)


class _Raw(io.RawIOBase):
    """The bytes ``read(size)`` gives, as a raw stream."""

    def __init__(self, read: Callable[[int], bytes]) -> None:
        super().__init__()
        self._read = read

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def buffered(read: Callable[[int], bytes]) -> IO[bytes]:
    """A stream of the bytes ``read(size)`` gives, read in chunks of 64 KiB."""
    return io.BufferedReader(_Raw(read), buffer_size=1 << 16)


def plan(
    name: str, piece_bytes: int, splittable: Callable[[bytes], bool] | None = None
) -> list[Piece]:
    """``name`` cut at line ends into pieces of about ``piece_bytes``, or whole (standard
    input, a compressed or irregular file, one ``splittable`` refuses or none can read)."""
    first = whole(name)
    try:
        if name == "-" or _compressed(name):
            return [first]
        with _sized(first.path) as (stream, size):
            # A first line past the default limit is refused anyway: read no more of it.
            first_line = stream.readline(MAX_LINE_BYTES + 1)
            if size <= piece_bytes or (splittable and not splittable(first_line)):
                return [first]
            cuts = _cuts(stream, size, piece_bytes)
    except READ_ERRORS:
        return [first]
    edges = [0, *cuts]
    return [
        replace(first, start=start, stop=stop, first_line=2 if start else 1)
        for start, stop in zip(edges, [*cuts, None], strict=True)
    ]


@contextmanager
def _sized(path: str) -> Iterator[tuple[IO[bytes], int]]:
    """``path`` opened, and its size (0 if it is not a regular file)."""
    if _is_url(path):
        fs, inner = _url_fs(path)
        with fs.open(inner, "rb") as stream:
            yield _sized_lines(stream), fs.size(inner)
    else:
        with open(path, "rb") as stream:
            info = os.fstat(stream.fileno())
            yield stream, info.st_size if stat.S_ISREG(info.st_mode) else 0


def _cuts(stream: IO[bytes], size: int, piece_bytes: int) -> list[int]:
    """Offsets just past a line end, each the first at least ``piece_bytes`` past the last."""
    cuts: list[int] = []
    cut = 0
    while True:
        cut = _line_end(stream, cut + piece_bytes - 1)
        if cut >= size:
            return cuts
        cuts.append(cut)


def _line_end(stream: IO[bytes], at: int) -> int:
    """The offset just past the first newline at or after ``at`` (the size if none)."""
    stream.seek(at)
    while True:
        block = stream.read(1 << 16)
        found = block.find(b"\n")
        if found >= 0:
            return at + found + 1
        at += len(block)
        if not block:
            return at


def count_lines(piece: Piece) -> int | str:
    """The newlines in ``piece``, or why it cannot be read."""
    count = 0
    try:
        with piece_lines(piece) as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                count += block.count(b"\n")
    except READ_ERRORS as exc:
        return reason(exc)
    return count


class Runner(Protocol):
    """Runs ``fn`` on each item, anywhere; the results in the items' order."""

    def __call__(
        self, fn: Callable[[_T], _R], items: Sequence[_T], /
    ) -> Generator[_R, None, None]: ...


def pieces(
    names: Sequence[str],
    run: Runner,
    piece_bytes: int,
    splittable: Callable[[bytes], bool] | None = None,
) -> list[Piece]:
    """The files ``names`` cut by :func:`plan`, each piece numbered by the newlines ``run``
    counts before it (one that cannot be counted is read to the end of its file)."""
    planned = [piece for name in names for piece in plan(name, piece_bytes, splittable)]
    need = [i for i in range(len(planned) - 1) if planned[i + 1].start]
    counts = dict(zip(need, run(count_lines, [planned[i] for i in need]), strict=True))
    out: list[Piece] = []
    line = 1
    for i, piece in enumerate(planned):
        if not piece.start:
            line = 1
        elif out[-1].stop is None:  # the rest of its file is read whole, from before it
            continue
        out.append(replace(piece, first_line=line))
        count = counts.get(i, 0)
        if isinstance(count, str):
            out[-1] = replace(out[-1], stop=None)
        else:
            line += count
    return out
