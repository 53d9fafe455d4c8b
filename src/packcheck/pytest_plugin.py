"""packcheck's pytest plugin: the gate as a test of your suite.

One test item for the packer ``[tool.packcheck]`` names, one for each ``--packcheck
PACKER``, and one for each diff table (``[tool.packcheck.diff]`` and its named tables),
each resolved from the gate's option table as the command resolves it
(``--packcheck-NAME`` options of :data:`SETTINGS` over the table's) and run through
the library; a failure shows the gate's report (docs/ci.md).  ``-p no:packcheck`` turns
it off.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

__all__ = []


#: The gate's settings pytest's command line may give, as ``--packcheck-NAME``: each
#: declared once, in the commands' option table, and over the ``[tool.packcheck]`` one.
SETTINGS = (
    "--seed",
    "--max-examples",
    "--max-units",
    "--timeout",
    "--long-lists",
    "--partition",
    "--save-failures",
)
_PREFIX = "packcheck-"


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
    # The option table alone: the gate (and Hypothesis) load when an item runs.
    from ._cli import add_options

    add_options(group.addoption, "verify", prefix=_PREFIX, only=SETTINGS)


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
        from ._cli.config import ConfigError

        # The module, not the package's attribute: pytester's inline runs drop the
        # modules they imported, not the attributes of a package imported before them.
        from ._cli.gate import options, run, spec
        from ._gate import text
        from ._packers import SetupError
        from ._rule.sources import SourceError

        given = {"gate_command": self.command, "packer": self.packer, "table": self.table}
        for option in options(self.command):  # pytest's command line over the table
            if option.flag in SETTINGS:  # None: not given
                given[option.dest] = self.config.getoption(f"packcheck_{option.dest}")
        where = f"packcheck {self.command}"
        try:
            chosen = spec(given, self.command, self.config.invocation_params.dir)
        except ConfigError as exc:
            raise PackcheckFailure(f"{where}: {exc}") from None
        try:
            outcome = run(chosen)
        except (OSError, SourceError, SetupError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise PackcheckFailure(f"{where}: {chosen.said(why)}") from None
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
    diff pairs by table (``None``: the unnamed one); a table that cannot be read, or
    that names no packer and holds a bad key or value (a misspelt ``packer``), still
    gives an item, which fails with the error."""
    from ._cli.config import ConfigError, find, tables

    try:
        found = find(start)
    except ConfigError:
        return None, "pyproject.toml", {}
    if found is None:
        return None, None, {}
    path, table = found
    packer = _named(table, "packer", "packer-cmd")
    if packer is None and not _usable(start):
        packer = "pyproject.toml"
    pairs: dict[str | None, str] = {}
    diff = table.get("diff")
    if isinstance(diff, dict):
        named = tables(diff)
        if any(key not in named for key in diff) or not named:
            pairs[None] = _pair(diff)
        pairs.update((name, _pair(value)) for name, value in named.items())
    return path, packer, pairs


def _usable(start: Path) -> bool:
    """Whether ``verify`` can read its settings (and rule) from the table ``start``
    finds; the gate (and Hypothesis) load here only for a table that names no packer."""
    from ._cli import gate
    from ._cli.config import ConfigError

    try:
        gate.spec({"gate_command": "verify"}, "verify", start)
    except ConfigError:
        return False
    return True


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
