"""The report options ``verify`` and ``diff`` share: ``--format`` and ``--junit-xml``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from .._reports import FORMATS

__all__ = ["add_options", "publish", "writable_file"]


def add_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--format`` and ``--junit-xml`` (default ``None``: the table may set them)."""
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="the report on stdout: text, json (one object) or github (Actions "
        "annotations, then the text) (default: text)",
    )
    parser.add_argument(
        "--junit-xml",
        type=Path,
        metavar="PATH",
        help="also write the report as JUnit XML to PATH (a test case per phase)",
    )


def writable_file(path: Path) -> None:
    """Raise :class:`OSError` unless a report can be written at ``path``."""
    if path.is_dir():
        raise OSError(f"--junit-xml {path}: is a directory")
    folder = path.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        raise OSError(f"--junit-xml {path}: {folder} is not a writable directory")


def publish(
    command: str, report: str, junit: Path | None, xml: Callable[[], bytes], status: int
) -> int:
    """Print ``report``, write ``xml()`` to ``junit`` if given; the exit status.

    A JUnit file that cannot be written is a one-line error on stderr, exit 2.
    """
    print(report)
    if junit is not None:
        try:
            junit.write_bytes(xml())
        except OSError as exc:
            print(f"packcheck {command}: --junit-xml {junit}: {exc.strerror}", file=sys.stderr)
            return 2
    return status
