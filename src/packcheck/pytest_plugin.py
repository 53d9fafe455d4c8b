"""packcheck's pytest plugin: the gate as a test of your suite.

pytest collects one test item for the packer named in ``[tool.packcheck]`` of the
nearest ``pyproject.toml`` (``packer`` or ``packer-cmd``), and one for each
``--packcheck PACKER`` option (``MODULE:FUNCTION`` or ``PATH.py:FUNCTION``; the other
settings come from ``[tool.packcheck]``).  An item runs ``packcheck verify`` with those
settings; a failure shows the gate's report, not a traceback.  Registered as the
``packcheck`` plugin (a ``pytest11`` entry point): ``-p no:packcheck`` turns it off.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

__all__ = ["PackcheckFailure", "PackcheckFile", "PackcheckItem"]


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
    """``packcheck verify`` for one packer (``None``: the one ``[tool.packcheck]`` names)."""

    def __init__(self, *, packer: str | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.packer = packer

    def runtest(self) -> None:
        from ._cli import build_parser
        from ._cli._config import ConfigError
        from ._cli.verify import gate, settings
        from ._load import SetupError
        from ._rule.sources import SourceError
        from .verify._reports import text

        args = build_parser().parse_args(["verify"])
        if self.packer is not None:
            args.packer = self.packer
        try:
            chosen = settings(args, args.command_parser, self.config.invocation_params.dir)
            chosen.junit_xml = None  # pytest writes its own: --junitxml
            outcome = gate(chosen)
        except (ConfigError, OSError, SourceError, SetupError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise PackcheckFailure(f"packcheck verify: {why}") from None
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


def _configured(start: Path) -> tuple[Path | None, str | None]:
    """The ``pyproject.toml`` with ``[tool.packcheck]`` and the packer it names.

    A table that cannot be read gives an item all the same, which fails with the error.
    """
    from ._cli._config import ConfigError, find

    try:
        found = find(start)
    except ConfigError:
        return None, "pyproject.toml"
    if found is None:
        return None, None
    path, table = found
    named = table.get("packer", table.get("packer-cmd"))
    return path, None if named is None else str(named)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Add the gate's items (before ``-k`` and ``-m`` select among the items)."""
    names: dict[str, str | None] = {}
    path, configured = _configured(config.invocation_params.dir)
    if configured is not None:
        names[configured] = None
    for spec in config.getoption("packcheck"):
        names.setdefault(spec, spec)
    if not names:
        return
    where = PackcheckFile.from_parent(session, path=path or config.rootpath / "pyproject.toml")
    for name, packer in names.items():
        items.append(PackcheckItem.from_parent(where, name=f"packcheck[{name}]", packer=packer))
