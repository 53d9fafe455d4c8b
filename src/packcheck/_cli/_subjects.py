"""What the gate's commands check: the packer adapters they start, run through the API.

``verify`` checks one packer (packcheck's own when none is named, under the rule in use);
``diff`` two, NEW and OLD, each in a worker process of its own.  A setup error names the
option (or the table's key) that chose the packer.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from .._engines.pack import pack
from .._gate import Outcome, Progress, Settings
from .._packers import (
    CallablePacker,
    Packer,
    Recipe,
    SetupError,
    loaded,
    started,
)
from .._rule.declared import Rule

# Imported from the modules, not as attributes of the package: pytester's inline runs
# drop the modules they imported but not the package's attributes that name them.
from ..diff import run as diff_run
from ..verify import run as verify_run
from ._spec import Spec

#: The packer ``verify`` checks when none is named, under the default rule: packcheck's
#: NumPy kernel (under another declared rule, :func:`_own_under`).
DEFAULT_PACKER = "packcheck._engines.pack:numpy_packer"


def verify_packer(s: Spec) -> tuple[Packer, str]:
    """The adapter for ``verify``'s packer, and its name; raises :class:`SetupError`.

    A Python packer runs in a worker process, for its ``timeout``; packcheck's own, or
    any with no timeout, in this process.  ``cwd``: the directory a packer's process
    starts in and its spec is read from (default: this process's).
    """
    if s.packer is None and s.packer_cmd is None and s.rule is not None and not s.rule.is_default:
        return _own_under(s.rule)
    name = _name(s.packer or "packcheck's NumPy packer", s.packer_cmd)
    spec = s.packer or DEFAULT_PACKER
    if s.packer_cmd is None and s.timeout is None:
        return loaded(spec, s.cwd), name
    return started(spec, s.packer_cmd, s.timeout, s.cwd, diff=False), name


def _own_under(rule: Rule) -> tuple[Packer, str]:
    """packcheck's own packer for a declared ``rule`` that is not the default, and its
    name: ``pack(case, rule=rule, engine="numpy")``, in this process whatever the
    timeout (it is packcheck's code, and a worker could not be handed the rule)."""
    return (
        CallablePacker(partial(pack, rule=rule, engine="numpy")),
        f"packcheck's NumPy packer under the rule {rule.describe()}",
    )


def run_seed(s: Spec, progress: Progress | None) -> Outcome:
    """The run of ``s``'s one seed, through :func:`packcheck.verify.run` or
    :func:`packcheck.diff.run`, with the settings its report shows and the command that
    repeats it; its packers started in ``s.cwd`` (default: this process's directory)."""
    settings = replace(s.settings, progress=progress)
    if s.command == "diff":
        outcome = _compared(s, settings)
    else:
        packer, name = verify_packer(s)
        try:
            ran = verify_run(packer, settings, partition=s.partition, rule=s.rule)
        finally:
            packer.close()
        outcome = replace(ran, subject=name, names={"packer": name})
    return replace(outcome, rerun=s.rerun(outcome.seed), settings=s.shown)


def _named(message: str, option: str) -> str:
    """A setup error of one side, naming the option the user gave for that side."""
    for flag in ("--packer-cmd", "--packer"):
        if message.startswith(flag):
            return option + message[len(flag) :]
    return f"{option}: {message}"


class _Side(Packer):
    """A packer adapter whose setup errors name the option that chose it."""

    def __init__(self, packer: Packer, option: str) -> None:
        self.packer = packer
        self.option = option
        self.speaks_json = packer.speaks_json
        self.timeout = packer.timeout

    def answer(self, case: dict[str, Any]) -> object:
        try:
            return self.packer.answer(case)
        except SetupError as exc:
            raise SetupError(_named(str(exc), self.option)) from None

    def answer_built(self, recipe: Recipe) -> object:
        try:
            return self.packer.answer_built(recipe)
        except SetupError as exc:
            raise SetupError(_named(str(exc), self.option)) from None

    def close(self) -> None:
        self.packer.close()


def _side(
    spec: str | None,
    command: str | None,
    timeout: float | None,
    option: str,
    cwd: str | None = None,
) -> _Side:
    """The adapter for one side; raises :class:`SetupError` naming its option.

    A Python function runs in a worker process of its own: a hang fails its case, and
    OLD's modules (a ``helpers.py`` beside the old file) are never taken from NEW's,
    which Python would otherwise find already imported under the same name.
    """
    flag = f"{option}-cmd" if command is not None else option
    try:
        packer = started(spec, command, timeout, cwd, diff=True)
    except SetupError as exc:
        raise SetupError(_named(str(exc), flag)) from None
    return _Side(packer, flag)


def _name(spec: str | None, command: str | None) -> str:
    return f"command {command!r}" if command is not None else str(spec)


def _compared(s: Spec, settings: Settings) -> Outcome:
    """``diff``'s run of NEW against OLD."""
    sides: list[_Side] = []
    try:
        sides.append(_side(s.packer, s.packer_cmd, s.timeout, "--packer", s.cwd))
        sides.append(_side(s.against, s.against_cmd, s.timeout, "--against", s.cwd))
        outcome = diff_run(sides[0], sides[1], settings, count=s.count)
    finally:
        for side in sides:
            side.close()
    new, old = _name(s.packer, s.packer_cmd), _name(s.against, s.against_cmd)
    return replace(outcome, subject=f"NEW {new}, OLD {old}", names={"new": new, "old": old})
