"""packcheck's pytest plugin: the gate as a test of your suite.

pytest collects one test item for the packer named in ``[tool.packcheck]`` of the
nearest ``pyproject.toml`` (``packer`` or ``packer-cmd``), one for each ``--packcheck
PACKER`` option (``MODULE:FUNCTION`` or ``PATH.py:FUNCTION``; the other settings come
from ``[tool.packcheck]``), one for the pair ``[tool.packcheck.diff]`` names
(``packer`` or ``packer-cmd`` against ``against`` or ``against-cmd``), run as
``packcheck diff``, and one for each named table ``[tool.packcheck.diff.NAME]``, run
as ``packcheck diff --table NAME``.  An item resolves its settings from the gate's option table, as
the command does, and runs the gate through the library; a failure shows the gate's
report, not a traceback.  Registered as the ``packcheck`` plugin (a ``pytest11`` entry
point): ``-p no:packcheck`` turns it off.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

__all__ = []


class PackcheckFailure(Exception):
    """The gate failed (or could not run); the message is its report."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("packcheck", "packcheck: the packing rule's gate")
    group.addoption(
        "--packcheck",
        action="append",
        default=[],
        metavar="PACKER",
        help="also gate this Python packer (MODULE:FUNCTION or PATH.py:FUNCTION) with "
        "the settings of [tool.packcheck]; repeatable",
    )


class PackcheckItem(pytest.Item):
    """``packcheck COMMAND`` (``verify`` or ``diff``) with the table's settings;
    ``packer``, if given, replaces the table's (``verify`` only); ``table`` names the
    ``diff`` table (``None``: the unnamed one)."""

    def __init__(
        self,
        *,
        command: str = "verify",
        packer: str | None,
        table: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.command = command
        self.packer = packer
        self.table = table

    def runtest(self) -> None:
        from ._cli import gate
        from ._cli.config import ConfigError
        from ._gate import text
        from ._packers import SetupError
        from ._rule.sources import SourceError

        given = {"gate_command": self.command, "packer": self.packer, "table": self.table}
        where = f"packcheck {self.command}"
        try:
            chosen = gate.spec(given, self.command, self.config.invocation_params.dir)
        except ConfigError as exc:
            raise PackcheckFailure(f"{where}: {exc}") from None
        try:
            outcome = gate.run(chosen)
        except (OSError, SourceError, SetupError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise PackcheckFailure(f"{where}: {gate.said(why, chosen.origins)}") from None
        if outcome.status:
            raise PackcheckFailure(text(outcome))

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | Any:
        if isinstance(excinfo.value, PackcheckFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)  # pragma: no cover - packcheck's own bug

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name


class PackcheckFile(pytest.File):
    """The items' parent, named after the ``pyproject.toml`` that holds the settings."""

    def collect(self) -> list[pytest.Item]:  # pragma: no cover - built, never collected
        return []


def _named(table: dict[str, Any], *keys: str) -> str | None:
    named = next((table[key] for key in keys if key in table), None)
    return None if named is None else str(named)


def _pair(table: dict[str, Any]) -> str:
    """The diff pair a table names: ``NEW vs OLD``."""
    new = _named(table, "packer", "packer-cmd")
    old = _named(table, "against", "against-cmd")
    return f"{new or '?'} vs {old or '?'}"


def _configured(start: Path) -> tuple[Path | None, str | None, dict[str | None, str]]:
    """The ``pyproject.toml`` with ``[tool.packcheck]``, the packer it names, and the
    diff pairs its diff tables name (``NEW vs OLD``), by table (``None``: the unnamed
    ``[tool.packcheck.diff]``, when it names a side).

    A table that cannot be read gives an item all the same, which fails with the error.
    """
    from ._cli.config import ConfigError, find, tables

    try:
        found = find(start)
    except ConfigError:
        return None, "pyproject.toml", {}
    if found is None:
        return None, None, {}
    path, table = found
    pairs: dict[str | None, str] = {}
    diff = table.get("diff")
    if isinstance(diff, dict):
        named = tables(diff)
        if any(key not in named for key in diff) or not named:
            pairs[None] = _pair(diff)
        pairs.update((name, _pair(value)) for name, value in named.items())
    return path, _named(table, "packer", "packer-cmd"), pairs


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Add the gate's items (before ``-k`` and ``-m`` select among the items)."""
    names: dict[str, str | None] = {}
    path, configured, pairs = _configured(config.invocation_params.dir)
    if configured is not None:
        names[configured] = None
    for spec in config.getoption("packcheck"):
        names.setdefault(spec, spec)
    if not names and not pairs:
        return
    where = PackcheckFile.from_parent(session, path=path or config.rootpath / "pyproject.toml")
    added = [
        PackcheckItem.from_parent(where, name=f"packcheck[{name}]", packer=packer)
        for name, packer in names.items()
    ]
    for table, pair in pairs.items():
        name = f"packcheck-diff[{'' if table is None else table + ': '}{pair}]"
        added.append(
            PackcheckItem.from_parent(where, name=name, command="diff", packer=None, table=table)
        )
    items.extend(added)
    # The terminal counts what collect reports carry: without one for these items, a
    # `-k` that deselects them would say "-1 selected".
    collected: list[pytest.Item | pytest.Collector] = [*added]
    report = pytest.CollectReport(where.nodeid, "passed", None, collected)
    config.hook.pytest_collectreport(report=report)
