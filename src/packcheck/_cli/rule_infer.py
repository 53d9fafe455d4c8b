"""``packcheck rule infer``: print the rule a packer follows, as TOML ready to commit.

The packer is named and started as ``verify`` starts it (``--packer``, ``--packer-cmd``,
``--timeout``); the search is :func:`packcheck.rules.infer`.  stdout holds the TOML
alone (its comments say how it was found), or with ``--format json`` one object;
progress and notes go to stderr.  Stopped by Ctrl-C or SIGTERM, it prints nothing on
stdout and says how to repeat the run.

The search and ``verify`` import Hypothesis: they are imported when the command runs,
so that the other ``packcheck rule`` commands, which build this parser too, start
quickly.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import secrets
import shlex
import sys
from dataclasses import replace

from .._stop import pending
from ._options import error, note
from ._subcommand import Subcommand
from ._values import DEFAULT_TIMEOUT, power_text

__all__ = ["register", "run"]

_COMMAND = "rule infer"


def _rerun(args: argparse.Namespace, chosen: int) -> str:
    """The command that repeats this run."""
    words = ["packcheck", "rule", "infer"]
    words += ["--packer", args.packer] if args.packer else ["--packer-cmd", args.packer_cmd]
    words += ["--seed", str(chosen)]
    if args.max_examples is not None:
        words += ["--max-examples", str(args.max_examples)]
    if args.max_units is not None:
        words += ["--max-units", power_text(args.max_units)]
    if args.timeout is not None:
        words += ["--timeout", f"{args.timeout:g}"]
    if not args.long_lists:
        words.append("--no-long-lists")
    return shlex.join(words)


def run(args: argparse.Namespace) -> int:
    """Run ``rule infer``: 0 a rule fits, 1 none does, 2 usage or setup error."""
    from .._gate import Settings
    from .._packers import SetupError
    from ..rules import infer
    from ._progress import progress_for
    from ._spec import Spec
    from ._subjects import verify_packer
    from .rule_infer_report import json_object, toml

    chosen = args.seed if args.seed is not None else secrets.randbelow(2**32)
    limit = None if args.timeout == 0 else args.timeout or DEFAULT_TIMEOUT
    try:
        settings = Settings(seed=chosen, long_lists=args.long_lists)
        if args.max_examples is not None:
            settings = replace(settings, max_examples=args.max_examples)
        if args.max_units is not None:
            settings = replace(settings, max_units=args.max_units)
    except ValueError as exc:  # past what a run may hold
        why = f"--{exc}".replace("_", "-", 1)
        return error(_COMMAND, why)
    progress = progress_for(sys.stderr, args.quiet, _COMMAND)
    try:
        spec = Spec(
            "verify", settings, packer=args.packer, packer_cmd=args.packer_cmd, timeout=limit
        )
        packer, _ = verify_packer(spec)
        try:
            # stdout holds the TOML alone: a packer in this process prints to stderr.
            with contextlib.redirect_stdout(sys.stderr):
                found = infer(packer, replace(settings, progress=progress))
        finally:
            packer.close()
        if progress is not None:
            progress.finish()
    except SetupError as exc:
        return error(_COMMAND, str(exc))
    except BaseException as exc:
        stop = pending(exc)
        if stop is None:
            raise
        stop.rerun = _rerun(args, chosen)
        raise stop from None
    finally:
        if progress is not None:
            progress.close()
    for said in found.notes:
        note(_COMMAND, said)
    if args.format == "json":
        print(json.dumps(json_object(found), ensure_ascii=False, default=repr))
    else:
        sys.stdout.write(toml(found))
    return 0 if found.fits else 1


#: ``register(commands, name)`` adds ``rule infer`` to the ``packcheck rule`` subcommands.
register = Subcommand(
    "find the simplest declared rule a packer follows",
    """Ask a packer cases and print, as TOML, the simplest rule of the vocabulary
    (docs/rules.md) that gives every answer it gave, checked by verify --rule at the
    same seed and settings. Exit 0 when a rule fits; 1 when none does (the nearest
    rule is printed, with a case against it); 2 on a usage or setup error.""",
    run,
    _COMMAND,
    required=("new",),
)
