"""``[tool.packcheck]`` in ``pyproject.toml``: a command's options, written once.

The file is found as pytest finds its root: the first ``pyproject.toml`` holding a
``[tool.packcheck]`` table, from the current directory upwards.  That table holds
``verify``'s settings; ``[tool.packcheck.diff]`` (the table's ``diff`` key) holds
``diff``'s, and neither command reads the other's.  Keys are the command's long
options without the dashes (``packer``, ``max-units``, ``no-long-lists``...); each
value is read as that option's value would be on the command line, and the command
line overrides it.  Paths in the table (a ``PATH.py:FUNCTION`` packer, ``against``,
``save-failures``, ``junit-xml``) are relative to the file's folder.  An unknown key,
a value of the wrong kind or a file that is not TOML is a :class:`ConfigError`: one
line, naming the file, the table and the key.
"""

from __future__ import annotations

import argparse
import json
import os
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["SECTIONS", "ConfigError", "find", "read", "resolve", "shown"]

#: Options that are no settings: they say what to do, not how.
_NOT_SETTINGS = frozenset({"help"})
#: The commands with a table of their own inside ``[tool.packcheck]``.
SECTIONS = ("diff",)
#: Keys whose value may be a ``PATH.py:FUNCTION`` spec.
_SPECS = ("packer", "against")


class ConfigError(Exception):
    """``[tool.packcheck]`` cannot be used; one line."""


def find(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The first ``pyproject.toml`` from ``start`` upwards with a ``[tool.packcheck]``
    table, and that table; ``None`` when there is none."""
    for folder in (start, *start.parents):
        path = folder / "pyproject.toml"
        if not path.is_file():
            continue
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


def _value(action: argparse.Action, key: str, value: object, folder: Path) -> object:
    """``value`` as the command line's parser reads the option, or :class:`ConfigError`."""
    flag = action.nargs == 0
    if flag:
        if not isinstance(value, bool):
            raise ConfigError(f"{key}: expected true or false, not {_toml(value)}")
        if isinstance(action, argparse.BooleanOptionalAction):
            return value if f"--{key}" in action.option_strings[:1] else not value
        return value
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ConfigError(f"{key}: expected a string or a number, not {_toml(value)}")
    text = str(value)
    if key in ("save-failures", "junit-xml"):
        text = _relative(folder, text)
    elif key in _SPECS and text.rpartition(":")[0].endswith(".py"):
        location, _, function = text.rpartition(":")
        text = f"{_relative(folder, location)}:{function}"
    try:
        parsed = action.type(text) if callable(action.type) else text
    except argparse.ArgumentTypeError as exc:
        raise ConfigError(f"{key}: {exc}") from None
    if action.choices is not None and parsed not in action.choices:
        choices = ", ".join(map(str, action.choices))
        raise ConfigError(f"{key}: {text!r} is not one of {choices}")
    return parsed


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
    """The keys of ``[tool.packcheck]`` (without the commands' tables) or of
    ``[tool.packcheck.SECTION]``."""
    for name in SECTIONS:
        if name in table and not isinstance(table[name], dict):
            raise ConfigError(
                f"{shown(path)} [tool.packcheck]: {name}: expected a table "
                f"([tool.packcheck.{name}]), not {table[name]!r}"
            )
    if section is None:
        return {key: value for key, value in table.items() if key not in SECTIONS}
    chosen: dict[str, Any] = table.get(section, {})
    return chosen


def _where(path: Path, section: str | None) -> str:
    return f"{shown(path)} [tool.packcheck{'' if section is None else '.' + section}]"


def read(
    parser: argparse.ArgumentParser, start: Path, section: str | None = None
) -> tuple[Path | None, dict[str, Any]]:
    """The settings ``[tool.packcheck]`` (or its ``section`` table) gives, by ``parser``
    destination, and its file.

    Raises :class:`ConfigError` for an unknown key or a value the option refuses.
    """
    found = find(start)
    if found is None:
        return None, {}
    path, whole = found
    table = _table(path, whole, section)
    options = {
        option[2:]: action
        for action in parser._actions
        for option in action.option_strings
        if option.startswith("--") and action.dest not in _NOT_SETTINGS
    }
    settings: dict[str, Any] = {}
    where = _where(path, section)
    for key, value in table.items():
        action = options.get(key)
        if action is None:
            known = ", ".join(sorted(options))
            raise ConfigError(f"{where}: unknown key {key!r} (keys: {known})")
        if action.dest in settings:
            raise ConfigError(f"{where}: {key}: set twice")
        try:
            settings[action.dest] = _value(action, key, value, path.parent)
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
    return path, settings


def resolve(
    args: argparse.Namespace,
    parser: argparse.ArgumentParser,
    defaults: Mapping[str, Any],
    *,
    start: Path,
    section: str | None = None,
    choices: Sequence[tuple[str, str]] = (),
) -> argparse.Namespace:
    """A run's settings: the command line's, then the table's, then ``defaults``.

    Each pair of ``choices`` (``("packer", "packer_cmd")``) names one thing two ways:
    the table may give only one of them, and either given on the command line replaces
    both keys of the table.  Raises :class:`ConfigError`.
    """
    path, table = read(parser, start, section)
    for one, other in choices:
        if path is not None and one in table and other in table:
            names = f"{one.replace('_', '-')} and {other.replace('_', '-')}"
            raise ConfigError(f"{_where(path, section)}: {names} exclude each other")
        if getattr(args, one) is not None or getattr(args, other) is not None:
            table.pop(one, None)
            table.pop(other, None)
    resolved = argparse.Namespace(**vars(args))
    flags = {
        action.dest: action.option_strings[0]
        for action in parser._actions
        if action.option_strings and action.option_strings[0].startswith("--")
    }
    #: Where a setting taken from the table came from, by its option: error messages
    #: that name ``--packer`` name the file's key instead.
    origins: dict[str, str] = {}
    for dest, default in defaults.items():
        given = getattr(args, dest, None)
        setattr(resolved, dest, given if given is not None else table.get(dest, default))
        if given is None and dest in table and path is not None and dest in flags:
            origins[flags[dest]] = f"{_where(path, section)}: {flags[dest][2:]}"
    resolved.config = path
    resolved.origins = origins
    return resolved


def attributed(message: str, origins: Mapping[str, str]) -> str:
    """``message`` naming the table's key where it names an option the table set
    (``--packer 'x:y': ...`` becomes ``pyproject.toml [tool.packcheck]: packer 'x:y': ...``)."""
    flag = message.split(" ", 1)[0]
    return origins[flag] + message[len(flag) :] if flag in origins else message
