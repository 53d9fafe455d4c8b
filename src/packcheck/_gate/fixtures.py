"""Fixture files: cases with their expected output under a rule, and the seed cases."""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Any, BinaryIO

from .._rule.declared import Rule
from .._rule.fixture_rule import contradiction, fixture_rule
from .._rule.jsonio import dumps, show_text
from .._rule.sources import SourceError, read_records

__all__ = [
    "Fixture",
    "read_fixtures",
    "rule_fixtures",
    "save_fixture",
    "saved_fixtures",
    "seed_fixtures",
    "writable_directory",
]

_DEFAULT = Rule()


@dataclass(frozen=True, slots=True)
class Fixture:
    """A case and the output ``rule`` expects (or ``"OLD"``'s), from ``origin``;
    unless ``checked``, only the input runs."""

    name: str | None
    case: Any
    expected: Any
    origin: str
    rule: Rule | str = field(default=_DEFAULT)
    checked: bool = True
    built_in: bool = False


def rule_fixtures(rule: Rule) -> list[Fixture]:
    """The fixtures a rule file carries, under that rule."""
    label = f"rule {rule.name!r}" if rule.name else "rule"
    return [
        Fixture(item.id, item.input, item.expected, f"fixture of the {label}: {item.id}", rule)
        for item in rule.fixtures
    ]


def _plain_numbers(value: Any) -> Any:
    """Numbers as ``json.loads`` gives them: floats where exact."""
    if isinstance(value, Decimal):
        return float(value) if float(value) == value else value
    if isinstance(value, dict):
        return {key: _plain_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain_numbers(item) for item in value]
    return value


def read_fixtures(path: Path, label: str | None = None) -> Iterator[Fixture]:
    """The fixtures of one file; :class:`OSError`, or :class:`SourceError` for a record
    unread, without ``expected``, or contradicting its rule."""
    with path.open("rb") as stream:
        yield from _fixtures_in(stream, label or show_text(str(path)))


def _fixtures_in(stream: BinaryIO, label: str) -> Iterator[Fixture]:
    for record in read_records(stream):
        if record.error is not None or not record.has_expected:
            why = record.error or "fixture has no 'expected'"
            raise SourceError(f"{label}: {record.where}: {why}")
        where = f"fixture {label}: {record.where}"
        rule = fixture_rule(record.rule, where)
        case = _plain_numbers(record.case)
        contradicted = contradiction(rule, case, record.expected, where)
        if contradicted is not None:
            raise SourceError(contradicted)
        yield Fixture(record.name, case, record.expected, where, rule)


# Opened without following a link, and without waiting for a FIFO's writer.
_READ = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


def _regular(path: Path) -> tuple[BinaryIO | None, str]:
    """``path`` open if a regular file, else ``None`` and what it is (a link, FIFO,
    device or socket is never followed nor read); a directory is an :class:`OSError`."""
    if path.is_symlink():
        return None, "a symbolic link"
    try:
        fd = os.open(path, _READ)
    except OSError as exc:
        raise OSError(f"{path}: {exc.strerror or exc}") from None
    mode = os.fstat(fd).st_mode
    if stat.S_ISREG(mode):
        return os.fdopen(fd, "rb"), "a file"
    os.close(fd)
    if stat.S_ISDIR(mode):
        raise OSError(f"{path}: Is a directory")
    return None, "a FIFO, device or socket"


def saved_fixtures(directory: Path) -> tuple[list[Fixture], list[str]]:
    """The fixtures of ``directory/*.json`` by name, and a note for each entry skipped
    as :func:`_regular` says; :class:`OSError` or :class:`SourceError`."""
    fixtures: list[Fixture] = []
    notes: list[str] = []
    if not directory.is_dir():
        return fixtures, notes
    for path in sorted(directory.glob("*.json")):
        stream, kind = _regular(path)
        if stream is None:
            notes.append(f"skipped {path}: {kind}, not a file of fixtures")
            continue
        with stream:
            fixtures += _fixtures_in(stream, show_text(str(path)))
    return fixtures, notes


def writable_directory(directory: Path) -> None:
    """Raise :class:`OSError` unless ``directory`` is, or can be made, a writable folder."""
    if directory.exists() and not directory.is_dir():
        raise OSError(f"save_failures {directory}: exists and is not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OSError(f"save_failures {directory}: {exc.strerror or exc}") from None


def save_fixture(fixture: dict[str, Any], directory: Path) -> Path:
    """Write ``fixture`` as ``directory/ID.json``, never through a link; an entry there
    already is left alone (an :class:`OSError` unless it holds the same bytes)."""
    path = directory / f"{fixture['id']}.json"
    data = (dumps([fixture]) + "\n").encode("ascii")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        # O_EXCL: a new file, never an existing one nor a link's target.
        temporary = directory / f".{path.name}.{secrets.token_hex(8)}.tmp"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(fd, "wb") as stream:
                stream.write(data)
            os.link(temporary, path)  # fails if the name is taken, even by a dangling link
        except FileExistsError:
            if not _holds(path, data):
                raise OSError(f"{path}: exists and is not this fixture: left alone") from None
        finally:
            os.unlink(temporary)
    except OSError as exc:
        if exc.strerror is None:  # already names the path
            raise
        raise OSError(f"{exc.filename or path}: {exc.strerror}") from None
    return path


def _holds(path: Path, data: bytes) -> bool:
    """Whether ``path`` is a regular file of exactly ``data``."""
    stream, _ = _regular(path)
    if stream is None:
        return False
    with stream:
        return stream.read(len(data) + 1) == data


def seed_fixtures() -> list[Fixture]:
    """The seed cases shipped in ``packcheck/data/seed.json``."""
    with resources.as_file(resources.files("packcheck") / "data" / "seed.json") as path:
        return [replace(f, built_in=True) for f in read_fixtures(path, "seed.json")]
