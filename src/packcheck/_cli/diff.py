"""``packcheck diff``: does a packer still behave as its previous version did?"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
from pathlib import Path
from typing import Any

from .. import diff
from .._load import SetupError, load
from .._packers import CallablePacker, CommandPacker, Packer, WorkerPacker
from .._rule.sources import SourceError
from ..diff import DEFAULT_MAX_EXAMPLES
from ..strategies import MAX_SAFE_UNITS
from ..verify._fixtures import saved_fixtures, seed_fixtures, writable_directory
from ._progress import progress_for
from .verify import DEFAULT_TIMEOUT, _positive, _power_text, _save, _seed, parse_units

__all__ = ["register"]

#: A worker process without ``--timeout`` waits this long (11 days) for an answer.
_UNTIMED = 1e6
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
            "rule's answer. Exit 0 they agree, 1 on a divergence, 2 on a usage or setup "
            "error."
        ),
    )
    new = p.add_mutually_exclusive_group(required=True)
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
    old = p.add_mutually_exclusive_group(required=True)
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
        default=DEFAULT_MAX_EXAMPLES,
        metavar="N",
        help=f"generated cases (default: {DEFAULT_MAX_EXAMPLES})",
    )
    p.add_argument(
        "--max-units",
        type=parse_units,
        default=MAX_SAFE_UNITS,
        metavar="N",
        help="largest generated magnitude, digits or e.g. 2**70 (default: 2**53-1, what "
        "every JSON implementation holds exactly)",
    )
    p.add_argument(
        "--timeout",
        type=_positive(float),
        metavar="SECONDS",
        help=f"per case and side; Python packers then run in worker processes (default: "
        f"{DEFAULT_TIMEOUT:g} for commands, none in-process)",
    )
    p.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="no progress on stderr (default: a live line on a terminal, else a line per "
        "phase and at least one every 10 s)",
    )
    p.add_argument(
        "--count",
        action="store_true",
        help="run every phase to its end and report, per phase, the share of cases on "
        "which the two differ (the first divergence is still shrunk and shown)",
    )
    p.add_argument(
        "--no-long-lists",
        action="store_true",
        help="leave out the long lists (15 to 131,073 blocks): a quicker, weaker check",
    )
    p.add_argument(
        "--save-failures",
        type=Path,
        metavar="DIR",
        help="replay DIR/*.json first, and save a new divergence there as a fixture",
    )
    p.set_defaults(run=run_diff)


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

    def answer(self, case: dict[str, Any]) -> object:
        try:
            return self.packer.answer(case)
        except SetupError as exc:
            raise SetupError(_named(str(exc), self.option)) from None

    def close(self) -> None:
        self.packer.close()


def _side(
    spec: str | None, command: str | None, timeout: float | None, option: str, *, apart: bool
) -> _Side:
    """The adapter for one side; raises :class:`SetupError` naming its option.

    With ``apart`` a Python function runs in a worker process of its own even without a
    timeout: OLD's modules (a ``helpers.py`` beside the old file) must not be taken
    from NEW's, which Python would otherwise find already imported under the same name.
    Workers share one hash seed: a packer that iterates a set of strings does so in the
    same order on both sides.
    """
    flag = f"{option}-cmd" if command is not None else option
    try:
        packer: Packer
        if command is not None:
            packer = CommandPacker(command, timeout or DEFAULT_TIMEOUT, any_json=True)
            packer.start()
        elif timeout is not None or apart:
            assert spec is not None
            packer = WorkerPacker(spec, timeout or _UNTIMED, hash_seed=_HASH_SEED)
        else:
            assert spec is not None
            packer = CallablePacker(load(spec))
    except SetupError as exc:
        raise SetupError(_named(str(exc), flag)) from None
    return _Side(packer, flag)


def _name(spec: str | None, command: str | None) -> str:
    return f"command {command!r}" if command is not None else str(spec)


def _rerun(args: argparse.Namespace, seed: int) -> str:
    """The command that repeats this run: every option that changes what it checks."""
    words = ["packcheck", "diff"]
    for option in ("packer", "packer_cmd", "against", "against_cmd"):
        if getattr(args, option) is not None:
            words += ["--" + option.replace("_", "-"), getattr(args, option)]
    words += ["--seed", str(seed)]
    if args.max_examples != DEFAULT_MAX_EXAMPLES:
        words += ["--max-examples", str(args.max_examples)]
    if args.max_units != MAX_SAFE_UNITS:
        words += ["--max-units", _power_text(args.max_units)]
    if args.timeout is not None:
        words += ["--timeout", f"{args.timeout:g}"]
    for flag in ("count", "no_long_lists"):
        if getattr(args, flag):
            words.append("--" + flag.replace("_", "-"))
    if args.save_failures is not None:
        words += ["--save-failures", str(args.save_failures)]
    return shlex.join(words)


def run_diff(args: argparse.Namespace) -> int:
    """Compare NEW with OLD; 0 they agree, 1 a divergence, 2 usage/setup error."""
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    sides: list[_Side] = []
    try:
        if args.save_failures is not None:
            writable_directory(args.save_failures)
        fixtures = seed_fixtures()
        if args.save_failures is not None:
            fixtures += saved_fixtures(args.save_failures)
        both_python = args.packer is not None and args.against is not None
        sides.append(
            _side(args.packer, args.packer_cmd, args.timeout, "--packer", apart=both_python)
        )
        sides.append(
            _side(args.against, args.against_cmd, args.timeout, "--against", apart=both_python)
        )
    except (OSError, SourceError, SetupError) as exc:
        for side in sides:
            side.close()
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        print(f"packcheck diff: {why}", file=sys.stderr)
        return 2
    progress = progress_for(sys.stderr, args.quiet, "diff")
    try:
        summary = diff.run(
            sides[0],
            sides[1],
            seed=seed,
            max_examples=args.max_examples,
            max_units=args.max_units,
            fixtures=fixtures,
            long_lists=not args.no_long_lists,
            progress=progress,
            count=args.count,
        )
    except SetupError as exc:
        # A command that ended before answering any case never ran as a packer.
        print(f"packcheck diff: {exc}", file=sys.stderr)
        return 2
    finally:
        if progress is not None:
            progress.close()
        for side in sides:
            side.close()
    new, old = _name(args.packer, args.packer_cmd), _name(args.against, args.against_cmd)
    names = f"NEW {new}, OLD {old}"
    line = f"{summary.counts()}, seed {seed}, {summary.seconds:.1f} s ({names})"
    shares = [f"share:    {share}" for share in summary.shares()] if args.count else []
    finding = summary.finding
    if finding is None:
        print("\n".join([*shares, f"packcheck diff: agree: {line}"]))
        return 0
    args.status_if_cut_off = 1  # a reader that goes away must not turn this into a pass
    print(finding.report())
    for share in shares:
        print(share)
    if args.save_failures is not None and not finding.origin.startswith("fixture"):
        try:
            saved = _save(finding, args.save_failures)
            print(f"saved:    {saved} (replayed first by the next run with --save-failures)")
        except OSError as exc:
            print(f"saved:    nothing: {exc.strerror or exc}")
    print(f"rerun:    {_rerun(args, seed)}")
    print(f"packcheck diff: DIFFERENT: {line}")
    return 1
