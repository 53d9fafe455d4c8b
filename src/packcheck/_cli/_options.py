"""Option types and report options any command can use, each with one meaning.

``positive(int)`` / ``positive(float)``, :func:`byte_count` (``64M``), :func:`seconds`
(0 or more), :func:`timeout` (seconds; 0: no timeout, :data:`DEFAULT_TIMEOUT` unless
told), :func:`seed`,
:func:`seeds` (``1-8``, ``1,4,9``), :func:`parse_units` (``2**70``),
:func:`one_line_errors`, and the report options ``--format`` and ``--junit-xml`` with
:func:`publish`.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

#: Seconds a packer under test gets per case unless told (``--timeout``).
DEFAULT_TIMEOUT = 10.0
_N = TypeVar("_N", int, float)
_TERM = r"\d+(?:\*\*\d+)?"
_EXPRESSION = re.compile(rf"{_TERM}(?:[+-]{_TERM})*")
#: The largest ``--max-units`` is ``2**_MAX_BITS``: about 4,200 digits, within what
#: Python (and most JSON readers) will convert between integers and text.
_MAX_BITS = 14_000


def _clip(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:37]}..."


def parse_units(text: str) -> int:
    """``--max-units``: digits or a sum of powers such as ``2**70`` or ``2**53-1``."""
    text = text.replace(" ", "").replace("_", "")
    if not _EXPRESSION.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"{_clip(text)!r} is not a number such as 9007199254740991 or 2**70"
        )
    too_large = f"is too large (at most 2**{_MAX_BITS})"
    total = 0
    for sign, term in re.findall(rf"([+-]?)({_TERM})", text):
        base, _, power = term.partition("**")
        if max(len(base), len(power)) > 4000:  # int() refuses more than 4300 digits
            raise argparse.ArgumentTypeError(f"{_clip(term)} {too_large}")
        value, exponent = int(base), int(power or 1)
        if value > 1 and exponent * math.log2(value) > _MAX_BITS + 1:
            raise argparse.ArgumentTypeError(f"{_clip(term)} {too_large}")
        total += -(value**exponent) if sign == "-" else value**exponent
    if total < 1:
        raise argparse.ArgumentTypeError(f"{_clip(text)} must be at least 1")
    if total > 2**_MAX_BITS:
        raise argparse.ArgumentTypeError(f"{_clip(text)} {too_large}")
    return total


def power_text(units: int) -> str:
    """``2**70`` or ``2**53-1`` where ``units`` has that form, else its digits."""
    for exact, suffix in ((units, ""), (units + 1, "-1")):
        if exact >= 2**8 and exact & (exact - 1) == 0:
            return f"2**{exact.bit_length() - 1}{suffix}"
    return str(units)


def _number(kind: type[_N], text: str) -> _N:
    try:
        return kind(text)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def positive(kind: type[_N]) -> Callable[[str], _N]:
    """The type of an option that is a finite number greater than 0."""

    def parse(text: str) -> _N:
        value = _number(kind, text)
        if not value > 0 or value == math.inf:
            raise argparse.ArgumentTypeError(f"{text} must be greater than 0")
        return value

    return parse


_BYTE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def byte_count(text: str) -> int:
    """A number of bytes greater than 0: digits, or with ``K``, ``M`` or ``G`` (KiB,
    MiB, GiB): ``64M``."""
    match = re.fullmatch(r"(\d{1,15})([KMG]?)", text.strip(), re.IGNORECASE)
    if match is None or not int(match[1]):
        raise argparse.ArgumentTypeError(
            f"{_clip(text)!r} is not a number of bytes greater than 0, such as 67108864 or 64M"
        )
    return int(match[1]) * _BYTE_UNITS[match[2].upper()]


def seconds(text: str, zero: str = "") -> float:
    """The type of an option that is seconds, 0 or more (``zero``: what 0 means)."""
    value = float(_number(float, text))
    if not 0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"{text} must be 0{zero} or more")
    return value


def timeout(text: str) -> float:
    """``--timeout``: seconds, or 0 for none."""
    return seconds(text, " (no timeout)")


def seed(text: str) -> int:
    """``--seed``: a non-negative integer."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative integer")
    return int(text)


#: At most this many seeds in one ``--seeds``.
MAX_SEEDS = 100_000


def seeds(text: str) -> tuple[int, ...]:
    """``--seeds``: a range ``A-B``, a list ``1,4,9``, or both (``1-4,9``); the seeds
    in increasing order, each once."""
    found: set[int] = set()
    for item in text.replace(" ", "").split(","):
        first, dash, last = item.partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise argparse.ArgumentTypeError(
                f"{_clip(text)!r} is not a range A-B or a list of seeds such as 1,4,9"
            )
        low, high = int(first), int(last or first)
        if low > high:
            raise argparse.ArgumentTypeError(f"{item}: the range ends before it starts")
        if high - low + len(found) >= MAX_SEEDS:
            raise argparse.ArgumentTypeError(f"{_clip(text)}: more than {MAX_SEEDS:,} seeds")
        found.update(range(low, high + 1))
    return tuple(sorted(found))


def add_command(
    commands: Any,
    name: str,
    summary: str,
    description: str,
    run: Callable[[argparse.Namespace], int],
) -> argparse.ArgumentParser:
    """Add the subcommand ``name`` (``summary`` in ``packcheck --help``, ``description``
    in its own, blanks collapsed), run by ``run``; its parser, for its options."""
    parser: argparse.ArgumentParser = commands.add_parser(
        name, help=summary, description=description
    )
    parser.set_defaults(run=run)
    return parser


def one_line_errors(parser: argparse.ArgumentParser) -> None:
    """A bad option value is one line (exit 2); an unknown option shows the usage."""
    usage_error = parser.error

    def error(message: str) -> NoReturn:
        if message.startswith("argument "):
            parser.exit(2, f"{parser.prog}: error: {message}\n")
        usage_error(message)

    parser.error = error  # type: ignore[method-assign]


def add_format_option(
    parser: argparse.ArgumentParser,
    formats: Sequence[str],
    shapes: str = "text, json (one object) or github (Actions annotations, then the text)",
) -> None:
    """Add ``--format``, one of ``formats`` (default ``text``); ``shapes`` says what each
    prints, for the help."""
    parser.add_argument(
        "--format",
        choices=formats,
        default="text",
        help=f"the report on stdout: {shapes} (default: text)",
    )


def add_report_options(parser: argparse.ArgumentParser, formats: Sequence[str]) -> None:
    """Add ``--format`` (one of ``formats``, default ``text``) and ``--junit-xml PATH``."""
    add_format_option(parser, formats)
    parser.add_argument(
        "--junit-xml",
        type=Path,
        metavar="PATH",
        help="also write the report as JUnit XML to PATH (a test case per phase)",
    )


def cut_off(args: argparse.Namespace, status: int) -> None:
    """A reader that goes away (``| head``) leaves at least ``status``: a check that
    already failed must not turn into a pass."""
    args.status_if_cut_off = max(getattr(args, "status_if_cut_off", 0), status)


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
            print(
                f"packcheck {command}: error: --junit-xml {junit}: {exc.strerror}", file=sys.stderr
            )
            return 2
    return status
