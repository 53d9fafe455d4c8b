"""What the commands share: opening inputs, answering a record, one-line problems, and
the options that run ``pack`` and ``audit`` on a Dask cluster."""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import IO, Any

from .._cluster import CONNECT_TIMEOUT, ClusterError, cluster
from .._engines.choice import ENGINES, Engine, check_engine
from .._engines.pack import pack
from .._inputs import Runner, buffered
from .._rule.declared import Rule
from .._rule.jsonio import one_line, show_text
from .._rule.lines import MAX_LINE_BYTES
from .._rule.model import MalformedCase
from .._rule.sources import Record
from ._options import byte_count, positive


def engine_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="reference",
        help="packing algorithm; the answer is the same (default: reference; numba "
        "needs the extra: pip install 'packcheck[numba]')",
    )


def engine_ready(engine: Engine) -> bool:
    """Whether ``engine`` can run; if not, its one-line problem is printed (exit 2).

    ``--engine numba`` without the extra says which to install, before any input is read.
    """
    try:
        check_engine(engine)
    except ImportError as exc:
        problem("--engine", str(exc))
        return False
    return True


def flushing(stream: IO[bytes], flush: Callable[[], None]) -> IO[bytes]:
    """``stream``, read so that ``flush`` runs before any read that could wait (a
    decompressed or remote stream is left as it is).

    A read from a pipe may wait for its writer, who may be waiting for the answers
    already written: flushing first means no answer sits in a buffer while the tool
    waits.  Reads are buffered chunks, so this costs one flush per chunk, not per case.
    """
    if not isinstance(stream, io.BufferedReader | io.FileIO):
        return stream
    try:
        fd = stream.fileno()
    except (OSError, ValueError):  # an in-memory stream never waits
        return stream

    def read(size: int) -> bytes:
        flush()
        return os.read(fd, size)

    return buffered(read)


def answer(
    record: Record, engine: Engine, rule: Rule | None = None
) -> tuple[dict[str, Any], str | None]:
    """The declared output for ``record`` (under ``rule``), or an input-error record and
    its message."""
    if record.error is None:
        try:
            return pack(record.case, engine=engine, rule=rule), None
        except MalformedCase as exc:
            detail = f"{record.where}: {exc}"
    else:
        detail = f"{record.where}: {record.error}"
    return {"error": "input", "detail": detail}, detail


def writable(text: str, stream: IO[str]) -> str:
    """``text`` with what ``stream``'s encoding cannot write as backslash escapes.

    IDs and fixture names are shown as typed, but an ASCII terminal cannot show
    "café", and a file name may hold undecodable bytes (surrogate escapes).
    """
    encoding = getattr(stream, "encoding", None) or "utf-8"
    return text.encode(encoding, "backslashreplace").decode(encoding)


def problem(name: str, message: str) -> None:
    """``packcheck: NAME: MESSAGE`` on stderr, one line: ``name`` (a file name, which
    data may have chosen) shown escaped, and no line break from ``message``'s data."""
    print(one_line(f"packcheck: {show_text(name)}: {message}"), file=sys.stderr)


def files_argument(parser: argparse.ArgumentParser, how: str) -> None:
    """``FILE...``: files, globs, ``.gz`` and fsspec URLs, standard input if none."""
    parser.add_argument(
        "files",
        nargs="*",
        default=["-"],
        metavar="FILE",
        help=f"input: files, globs, .gz, fsspec URLs, {how} (default: -)",
    )


def line_limit_option(parser: argparse.ArgumentParser) -> None:
    """``--max-line-bytes BYTES``: the longest input line, case or record read."""
    parser.add_argument(
        "--max-line-bytes",
        type=byte_count,
        default=MAX_LINE_BYTES,
        metavar="BYTES",
        help="refuse, as malformed, an input line (a case, a record, a document read "
        "whole, a CSV table) longer than BYTES, never holding it whole; 64M, 1G, or "
        f"digits (default: {MAX_LINE_BYTES >> 20}M)",
    )


def cluster_options(parser: argparse.ArgumentParser) -> None:
    """``--workers N`` | ``--scheduler ADDRESS``, and ``--connect-timeout SECONDS``."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        type=positive(int),
        metavar="N",
        help="run on a local Dask cluster of N processes (1: a thread of this one); "
        "the output is the same "
        "(needs the dask extra: pip install 'packcheck[dask]')",
    )
    where.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on the Dask cluster at ADDRESS (tcp://host:8786), whose workers "
        "must reach the files (shared or object storage)",
    )
    parser.add_argument(
        "--connect-timeout",
        type=positive(float),
        default=CONNECT_TIMEOUT,
        metavar="SECONDS",
        help=f"with --scheduler: give up reaching it after SECONDS (default: {CONNECT_TIMEOUT:g})",
    )


@contextmanager
def cluster_runner(args: argparse.Namespace, names: Sequence[str]) -> Iterator[Runner | None]:
    """The cluster ``--workers`` or ``--scheduler`` asks for (``None``: neither), closed
    on leaving; :class:`ClusterError` if it cannot be had or cannot read ``names``."""
    if args.workers is None and args.scheduler is None:
        yield None
        return
    flag = "--workers" if args.scheduler is None else "--scheduler"
    if "-" in names:
        raise ClusterError(f"{flag} reads FILEs, not standard input")
    with cluster(args.workers, args.scheduler, args.connect_timeout) as run:
        yield run
