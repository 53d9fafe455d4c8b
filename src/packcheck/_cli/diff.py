"""``packcheck diff``: does a packer still behave as its previous version did?"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
from pathlib import Path
from typing import Any

from .. import _stop, diff
from .._load import SetupError
from .._packers import CommandPacker, Packer, Recipe, WorkerPacker, ask
from .._rule.sources import SourceError
from ..diff import DEFAULT_MAX_EXAMPLES
from ..diff._reports import DiffOutcome, github, json_report, junit_xml, text
from ..strategies import MAX_SAFE_UNITS
from ..verify._fixtures import saved_fixtures, seed_fixtures, writable_directory
from ..verify._gate import Progress
from . import _config, _reports
from ._progress import progress_for
from .verify import (
    DEFAULT_TIMEOUT,
    _one_line_errors,
    _positive,
    _power_text,
    _save,
    _seed,
    parse_units,
)

__all__ = ["compare", "register", "settings"]

#: ``PYTHONHASHSEED`` of both sides' worker processes, unless the environment sets one.
_HASH_SEED = "0"


def register(commands: Any) -> None:
    """Add ``diff`` to the ``packcheck`` subcommands."""
    p = commands.add_parser(
        "diff",
        help="check that a packer behaves as its previous version did, whatever its rule",
        description=(
            "Give every case of verify's phases (fixtures, generated cases, wide ranges, "
            "long lists) to two packers, NEW (--packer or --packer-cmd) and OLD (--against "
            "or --against-cmd), and compare what they do exactly: answers as JSON with "
            "exact types, an exception by its type, a timeout or a dead process as that "
            "side's fault. The first divergence is shrunk and shown beside the declared "
            "rule's answer. Options not given are read from [tool.packcheck.diff] in the "
            "nearest pyproject.toml. Exit 0 they agree, 1 on a divergence, 2 on a usage "
            "or setup error."
        ),
    )
    _one_line_errors(p)
    # Every default is None: an option not given may come from [tool.packcheck.diff].
    new = p.add_mutually_exclusive_group()
    new.add_argument(
        "--packer",
        metavar="SPEC",
        help="NEW, a Python function case -> output: MODULE:FUNCTION (the current directory "
        "is importable) or PATH.py:FUNCTION",
    )
    new.add_argument(
        "--packer-cmd",
        metavar="COMMAND",
        help="NEW, a program reading one JSON case per line and printing one JSON output per line",
    )
    old = p.add_mutually_exclusive_group()
    old.add_argument(
        "--against",
        metavar="SPEC",
        help="OLD, as --packer: e.g. PATH.py:FUNCTION in a checkout of the previous release",
    )
    old.add_argument("--against-cmd", metavar="COMMAND", help="OLD, as --packer-cmd")
    p.add_argument("--seed", type=_seed, help="reproduce a run (default: random, printed)")
    p.add_argument(
        "--max-examples",
        type=_positive(int),
        metavar="N",
        help=f"generated cases (default: {DEFAULT_MAX_EXAMPLES})",
    )
    p.add_argument(
        "--max-units",
        type=parse_units,
        metavar="N",
        help="largest generated magnitude, digits or e.g. 2**70 (default: 2**53-1, what "
        "every JSON implementation holds exactly)",
    )
    p.add_argument(
        "--timeout",
        type=_positive(float),
        metavar="SECONDS",
        help=f"per case and side, then that side's case fails (default: {DEFAULT_TIMEOUT:g}); "
        "Python packers run in worker processes of their own",
    )
    p.add_argument(
        "--count",
        action=argparse.BooleanOptionalAction,
        help="run every phase to its end and report, per phase, the share of cases on "
        "which the two differ (the first divergence is still shrunk and shown); "
        "--no-count undoes count = true",
    )
    p.add_argument(
        "--long-lists",
        action=argparse.BooleanOptionalAction,
        help="the long lists (15 to 131,073 blocks); --no-long-lists: a quicker, weaker "
        "check (default: on)",
    )
    p.add_argument(
        "--save-failures",
        type=Path,
        metavar="DIR",
        help="replay DIR/*.json first, and save a new divergence there as a fixture",
    )
    _reports.add_options(p)
    p.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        default=None,
        help="no progress on stderr (default: a live line on a terminal, else a line per "
        "phase and at least one every 10 s)",
    )
    p.set_defaults(run=run_diff)


#: What an option not given on the command line nor in [tool.packcheck.diff] is.
_DEFAULTS: dict[str, Any] = {
    "packer": None,
    "packer_cmd": None,
    "against": None,
    "against_cmd": None,
    "seed": None,
    "max_examples": DEFAULT_MAX_EXAMPLES,
    "max_units": MAX_SAFE_UNITS,
    "timeout": None,
    "count": False,
    "long_lists": True,
    "save_failures": None,
    "format": "text",
    "junit_xml": None,
    "quiet": False,
}
#: Each side's two options, as ``--packer`` and ``--packer-cmd`` name NEW.
_SIDES = (("packer", "packer_cmd"), ("against", "against_cmd"))


def settings(
    args: argparse.Namespace, parser: argparse.ArgumentParser, start: Path | None = None
) -> argparse.Namespace:
    """The run's settings: the command line's, then ``[tool.packcheck.diff]``'s, then
    defaults.  A side named on the command line replaces both of that side's keys.

    Raises :class:`_config.ConfigError`, also when a side is given nowhere.
    """
    s = _config.resolve(
        args,
        parser,
        _DEFAULTS,
        start=Path.cwd() if start is None else start,
        section="diff",
        choices=_SIDES,
    )
    for side, (spec, command) in zip(("NEW", "OLD"), _SIDES, strict=True):
        if getattr(s, spec) is None and getattr(s, command) is None:
            options = f"--{spec} or --{command.replace('_', '-')}"
            raise _config.ConfigError(
                f"{side} is needed: {options} (or {spec} or {command.replace('_', '-')} "
                "in [tool.packcheck.diff])"
            )
    return s


def _named(message: str, option: str) -> str:
    """A setup error of one side, naming the option the user gave for that side."""
    for flag in ("--packer-cmd", "--packer"):
        if message.startswith(flag):
            return option + message[len(flag) :]
    return f"{option}: {message}"


class _Side:
    """A packer adapter whose setup errors name the option that chose it."""

    def __init__(self, packer: Packer, option: str) -> None:
        self.packer = packer
        self.option = option
        #: Whether the side answers in JSON text (see packcheck.diff's DiffOracle).
        self.speaks_json = getattr(packer, "speaks_json", False)

    def answer(self, case: dict[str, Any]) -> object:
        try:
            return self.packer.answer(case)
        except SetupError as exc:
            raise SetupError(_named(str(exc), self.option)) from None

    def answer_built(self, recipe: Recipe) -> object:
        try:
            return ask(self.packer, recipe)
        except SetupError as exc:
            raise SetupError(_named(str(exc), self.option)) from None

    def close(self) -> None:
        self.packer.close()


def _side(spec: str | None, command: str | None, timeout: float | None, option: str) -> _Side:
    """The adapter for one side; raises :class:`SetupError` naming its option.

    Each side gets ``timeout`` seconds a case (default :data:`DEFAULT_TIMEOUT`).  A
    Python function runs in a worker process of its own: a hang fails its case, and
    OLD's modules (a ``helpers.py`` beside the old file) are never taken from NEW's,
    which Python would otherwise find already imported under the same name.  Workers
    share one hash seed: a packer that iterates a set of strings does so in the same
    order on both sides.
    """
    flag = f"{option}-cmd" if command is not None else option
    try:
        packer: Packer
        if command is not None:
            packer = CommandPacker(command, timeout or DEFAULT_TIMEOUT, any_json=True)
            packer.start()
        else:
            # In a worker, so that a packer that hangs fails its case instead of
            # hanging the run.
            assert spec is not None
            packer = WorkerPacker(spec, timeout or DEFAULT_TIMEOUT, hash_seed=_HASH_SEED)
            packer.start()
    except SetupError as exc:
        raise SetupError(_named(str(exc), flag)) from None
    return _Side(packer, flag)


def _name(spec: str | None, command: str | None) -> str:
    return f"command {command!r}" if command is not None else str(spec)


def _rerun(s: argparse.Namespace, seed: int) -> str:
    """The command that repeats this run: every setting that changes what it checks
    (those read from [tool.packcheck.diff] too, so it repeats the run from anywhere)."""
    words = ["packcheck", "diff"]
    for option in ("packer", "packer_cmd", "against", "against_cmd"):
        if getattr(s, option) is not None:
            words += ["--" + option.replace("_", "-"), getattr(s, option)]
    words += ["--seed", str(seed)]
    if s.max_examples != DEFAULT_MAX_EXAMPLES:
        words += ["--max-examples", str(s.max_examples)]
    if s.max_units != MAX_SAFE_UNITS:
        words += ["--max-units", _power_text(s.max_units)]
    if s.timeout is not None:
        words += ["--timeout", f"{s.timeout:g}"]
    if s.count:
        words.append("--count")
    if not s.long_lists:
        words.append("--no-long-lists")
    if s.save_failures is not None:
        words += ["--save-failures", str(s.save_failures)]
    return shlex.join(words)


def _settings_shown(s: argparse.Namespace) -> dict[str, Any]:
    """What decides what a run compares, for the JSON and JUnit reports."""
    return {
        "max_examples": s.max_examples,
        "max_units": _power_text(s.max_units),
        "timeout": None if s.timeout is None else float(s.timeout),
        "count": s.count,
        "long_lists": s.long_lists,
        "save_failures": None if s.save_failures is None else str(s.save_failures),
    }


def compare(s: argparse.Namespace, progress: Progress | None = None) -> DiffOutcome:
    """Run ``diff`` with the settings ``s``; raises :class:`OSError`,
    :class:`SourceError` or :class:`SetupError` when it cannot run at all (a command
    that ended before answering any case never ran as a packer)."""
    seed = s.seed if s.seed is not None else random.SystemRandom().randrange(2**32)
    _stop.note(rerun=_rerun(s, seed), save=s.save_failures)  # said if stopped
    fixtures = seed_fixtures()
    if s.save_failures is not None:
        writable_directory(s.save_failures)
        fixtures += saved_fixtures(s.save_failures)
    if s.junit_xml is not None:
        _reports.writable_file(s.junit_xml)
    sides: list[_Side] = []
    try:
        sides.append(_side(s.packer, s.packer_cmd, s.timeout, "--packer"))
        sides.append(_side(s.against, s.against_cmd, s.timeout, "--against"))
        summary = diff.run(
            sides[0],
            sides[1],
            seed=seed,
            max_examples=s.max_examples,
            max_units=s.max_units,
            fixtures=fixtures,
            long_lists=s.long_lists,
            progress=progress,
            count=s.count,
        )
    finally:
        for side in sides:
            side.close()
    finding = summary.finding
    saved = None
    fresh = finding is not None and not finding.origin.startswith("fixture")
    if fresh and s.save_failures is not None:
        assert finding is not None
        try:
            path = _save(finding, s.save_failures)
            saved = f"{path} (replayed first by the next run with --save-failures)"
        except OSError as exc:
            saved = f"nothing: {exc.strerror or exc}"
    new, old = _name(s.packer, s.packer_cmd), _name(s.against, s.against_cmd)
    return DiffOutcome(summary, new, old, _rerun(s, seed), saved, _settings_shown(s))


def run_diff(args: argparse.Namespace) -> int:
    """Compare NEW with OLD; 0 they agree, 1 a divergence, 2 usage/setup error."""
    try:
        s = settings(args, args.command_parser)
    except _config.ConfigError as exc:
        print(f"packcheck diff: error: {exc}", file=sys.stderr)
        return 2
    progress = progress_for(sys.stderr, s.quiet, "diff")
    try:
        outcome = compare(s, progress)
        if progress is not None:
            progress.finish()
    except (OSError, SourceError, SetupError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        print(f"packcheck diff: {_config.attributed(why, s.origins)}", file=sys.stderr)
        return 2
    finally:
        if progress is not None:
            progress.close()
    if outcome.status:
        args.status_if_cut_off = 1  # a reader that goes away must not turn this into a pass
    report = {"text": text, "json": json_report, "github": github}[s.format](outcome)
    return _reports.publish("diff", report, s.junit_xml, lambda: junit_xml(outcome), outcome.status)
