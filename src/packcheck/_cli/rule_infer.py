"""``packcheck rule infer``: print the rule a packer follows, as TOML ready to commit.

The packer is started as ``verify`` starts it; the search is :func:`packcheck.rules.infer`,
imported (with Hypothesis) only when the command runs: the other ``packcheck rule``
commands build this parser too.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import secrets
import shlex
import sys
from dataclasses import replace

from ._options import error, note
from ._subcommand import Subcommand
from ._values import DEFAULT_TIMEOUT, power_text

_COMMAND = "rule infer"


def _rerun(args: argparse.Namespace, chosen: int) -> str:
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
    from .._gate import Settings
    from .._packers import SetupError
    from ..rules import infer
    from ._progress import showing
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
    try:
        with showing(_COMMAND, args.quiet, _rerun(args, chosen)) as progress:
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
    except SetupError as exc:
        return error(_COMMAND, str(exc))
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
