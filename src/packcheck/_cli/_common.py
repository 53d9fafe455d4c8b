"""What the commands share: opening inputs, answering a record, one-line problems, and
the cluster that ``--workers`` or ``--scheduler`` asks ``pack`` and ``audit`` for."""

from __future__ import annotations

import argparse
import io
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import IO, Any

from .._cluster import ClusterError, cluster
from .._engines.choice import Engine, check_engine
from .._engines.pack import pack
from .._inputs import Runner, buffered
from .._rule.declared import Rule
from .._rule.jsonio import show_text
from .._rule.model import MalformedCase
from .._rule.sources import Record
from ._options import error


def engine_ready(command: str, engine: Engine) -> bool:
    """Whether ``engine`` can run; if not, its one-line problem is printed (exit 2)."""
    try:
        check_engine(engine)
    except ImportError as exc:
        problem(command, "--engine", str(exc))
        return False
    return True


def flushing(stream: IO[bytes], flush: Callable[[], None]) -> IO[bytes]:
    """``stream``, read so that ``flush`` runs before any read that could wait (a
    decompressed or remote stream is left as it is): a pipe's writer may be waiting for
    the answers already written.  One flush per chunk read, not per case."""
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


def problem(command: str, name: str, message: str) -> None:
    """``packcheck COMMAND: error: NAME: MESSAGE`` on stderr, one line (:func:`error`):
    ``name`` (a file name, which data may have chosen) shown escaped."""
    error(command, f"{show_text(name)}: {message}")


def files_argument(parser: argparse.ArgumentParser, how: str) -> None:
    """``FILE...``: files, globs, ``.gz`` and fsspec URLs, standard input if none."""
    parser.add_argument(
        "files",
        nargs="*",
        default=["-"],
        metavar="FILE",
        help=f"input: files, globs, .gz, fsspec URLs, {how} (default: -)",
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
