"""``[tool.packcheck]`` in ``pyproject.toml``: a command's options, written once.

The first ``pyproject.toml`` with the table, from the current directory upwards, gives
``verify``'s settings; ``[tool.packcheck.diff]`` gives ``diff``'s and
``[tool.packcheck.diff.NAME]`` those of ``diff --table NAME``.  Keys are long options
without dashes, read as the command line reads them, and the command line wins; paths
are relative to the file's folder (docs/ci.md).  A bad key, value or file is a
:class:`ConfigError`: one line naming the file, the table and the key.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._rule.declared import Rule, RuleError

#: The tables inside ``[tool.packcheck]`` that hold no ``verify`` key: ``diff``'s
#: settings, and the declared rule (``[tool.packcheck.rule]``, read by :func:`rule`).
SECTIONS = ("diff", "rule")
#: Keys whose value may be a ``PATH.py:FUNCTION`` spec.
_SPECS = ("packer", "against")


class ConfigError(Exception):
    """``[tool.packcheck]`` cannot be used; one line."""


@dataclass(frozen=True, slots=True)
class Key:
    """A key of the table: the setting it sets (``dest``) and how its value is read
    (``parse``; ``None``: true or false; ``negated``: sets ``dest`` to the opposite);
    ``command_line_only`` keys are refused."""

    dest: str
    parse: Callable[[str], object] | None = None
    negated: bool = False
    command_line_only: bool = False


def find(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The first ``pyproject.toml`` from ``start`` upwards with a ``[tool.packcheck]``
    table, and that table; ``None`` when there is none."""
    for folder in (start, *start.parents):
        path = folder / "pyproject.toml"
        if not path.is_file():
            continue
        # Imported once there is a file to read: a command run where there is none
        # (``audit``, ``pack``) starts without it.
        import tomllib

        try:
            with path.open("rb") as stream:
                document = tomllib.load(stream)
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise ConfigError(f"{shown(path)}: {why}") from None
        tool = document.get("tool")
        table = tool.get("packcheck") if isinstance(tool, dict) else None
        if table is None:
            continue
        if not isinstance(table, dict):
            raise ConfigError(f"{shown(path)}: [tool.packcheck] must be a table")
        return path, table
    return None


def shown(path: Path) -> str:
    """``path`` relative to the current directory when it is below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _relative(folder: Path, text: str) -> str:
    """``text``, a path relative to ``folder``, as a path from the current directory."""
    if os.path.isabs(text) or folder.resolve() == Path.cwd().resolve():
        return text
    return os.path.relpath(folder / text)


def _value(key: Key, name: str, value: object, folder: Path) -> object:
    """``value`` as the command line's parser reads the option, or :class:`ConfigError`."""
    if key.command_line_only:
        raise ConfigError(
            f"{name}: a command-line option only (--{name}): where the report goes is "
            "the caller's choice"
        )
    if key.parse is None:
        if not isinstance(value, bool):
            raise ConfigError(f"{name}: expected true or false, not {_toml(value)}")
        return value != key.negated
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ConfigError(f"{name}: expected a string or a number, not {_toml(value)}")
    text = str(value)
    if name == "save-failures":
        text = _relative(folder, text)
    elif name in _SPECS and text.rpartition(":")[0].endswith(".py"):
        location, _, function = text.rpartition(":")
        text = f"{_relative(folder, location)}:{function}"
    try:
        return key.parse(text)
    except argparse.ArgumentTypeError as exc:
        raise ConfigError(f"{name}: {exc}") from None


def _toml(value: object) -> str:
    """``value`` as the file spells it (``true``, ``"x"``, ``[1, 2]``), for a message."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(map(_toml, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    return str(value)


def _table(path: Path, table: dict[str, Any], section: str | None) -> dict[str, Any]:
    """The keys of ``[tool.packcheck]`` (without the commands' tables), of
    ``[tool.packcheck.SECTION]`` (without its named tables) or, for a ``section``
    such as ``diff.NAME``, of the named table ``[tool.packcheck.diff.NAME]``."""
    for name in SECTIONS:
        if name in table and not isinstance(table[name], dict):
            raise ConfigError(
                f"{shown(path)} [tool.packcheck]: {name}: expected a table "
                f"([tool.packcheck.{name}]), not {table[name]!r}"
            )
    if section is None:
        return {key: value for key, value in table.items() if key not in SECTIONS}
    section, _, name = section.partition(".")
    chosen: dict[str, Any] = table.get(section, {})
    if not name:
        return {key: value for key, value in chosen.items() if not isinstance(value, dict)}
    named = tables(chosen)
    if name not in named:
        known = f"tables: {', '.join(named)}" if named else "it has no named table"
        raise ConfigError(
            f"{_where(path, section)}: no table {name!r} ([tool.packcheck.{section}.{name}]; "
            f"{known})"
        )
    return named[name]


def tables(table: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The named tables inside a command's table (``[tool.packcheck.diff.NAME]``), by
    name, in the file's order."""
    return {name: value for name, value in table.items() if isinstance(value, dict)}


def _where(path: Path, section: str | None) -> str:
    return f"{shown(path)} [tool.packcheck{'' if section is None else '.' + section}]"


def read(
    keys: Mapping[str, Key], start: Path, section: str | None = None
) -> tuple[Path | None, dict[str, Any]]:
    """The settings ``[tool.packcheck]`` (or its ``section`` table) gives, by ``dest``,
    and its file; :class:`ConfigError` for an unknown key or a refused value."""
    found = find(start)
    if found is None:
        return None, {}
    path, whole = found
    table = _table(path, whole, section)
    settings: dict[str, Any] = {}
    where = _where(path, section)
    for name, value in table.items():
        key = keys.get(name)
        if key is None:
            raise ConfigError(f"{where}: unknown key {name!r} ({_known(name, keys)})")
        if key.dest in settings:
            raise ConfigError(f"{where}: {name}: set twice")
        try:
            settings[key.dest] = _value(key, name, value, path.parent)
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
    return path, settings


def resolve(
    given: Mapping[str, Any],
    keys: Mapping[str, Key],
    defaults: Mapping[str, Any],
    *,
    start: Path,
    section: str | None = None,
    choices: Sequence[tuple[str, str]] = (),
) -> argparse.Namespace:
    """A run's settings: ``given`` (the command line's; ``None`` is not given), then the
    table's, then ``defaults``.  Each pair of ``choices`` names one thing two ways: the
    table may give one, and either on the command line replaces both.  Raises
    :class:`ConfigError`."""
    path, table = read(keys, start, section)
    for one, other in choices:
        if path is not None and one in table and other in table:
            names = f"{one.replace('_', '-')} and {other.replace('_', '-')}"
            raise ConfigError(f"{_where(path, section)}: {names} exclude each other")
        if given.get(one) is not None or given.get(other) is not None:
            table.pop(one, None)
            table.pop(other, None)
    resolved = argparse.Namespace(**given)
    #: Where a setting taken from the table came from, by its option: error messages
    #: that name ``--packer`` name the file's key instead.
    origins: dict[str, str] = {}
    for dest, default in defaults.items():
        value = given.get(dest)
        setattr(resolved, dest, value if value is not None else table.get(dest, default))
        if value is None and dest in table and path is not None:
            name = next(name for name, key in keys.items() if key.dest == dest)
            flag = "--" + name.removeprefix("no-")
            origins[flag] = f"{_where(path, section)}: {flag[2:]}"
    resolved.origins = origins
    return resolved


def attributed(message: str, origins: Mapping[str, str]) -> str:
    """``message`` naming the table's key where it names an option the table set
    (``--packer 'x:y': ...`` becomes ``pyproject.toml [tool.packcheck]: packer 'x:y': ...``)."""
    flag = message.split(" ", 1)[0]
    return origins[flag] + message[len(flag) :] if flag in origins else message


def rule(given: str | None, start: Path) -> Rule | None:
    """The declared rule: of the rule file ``given`` (``--rule``), else of
    ``[tool.packcheck.rule]`` in the ``pyproject.toml`` :func:`find` finds, else
    ``None``.  Raises :class:`ConfigError`, one line naming the file and the key."""
    try:
        if given is not None:
            return Rule.load(given)
        found = find(start)
        if found is None or "rule" not in found[1]:
            return None
        path, table = found
        _table(path, table, "rule")  # a table, or the one-line error
        from .._rule.rulefile import rule_from_table

        return rule_from_table(table["rule"], file=shown(path), prefix="tool.packcheck.rule.")
    except RuleError as exc:
        raise ConfigError(str(exc)) from None
    except OSError as exc:
        raise ConfigError(f"{given}: {exc.strerror or exc}") from None


def _known(name: str, keys: Mapping[str, Key]) -> str:
    """The keys a table may hold, the nearest to ``name`` first if one is near."""
    import difflib

    allowed = sorted(key for key, spec in keys.items() if not spec.command_line_only)
    near = difflib.get_close_matches(name, allowed, n=1)
    listed = f"keys: {', '.join(allowed)}"
    return f"did you mean {near[0]!r}? {listed}" if near else listed
