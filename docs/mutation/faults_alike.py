"""Prototype for issue 27: a packer diffed against itself, faults alike not compared.

Usage (from the repository root)::

    .venv/bin/python docs/mutation/faults_alike.py autogen_context:pack_validated --seed 1

Not wired into the CLI: today's gate (``packcheck.verify._gate.gate``) runs with a
subclass of today's ``DiffOracle`` that asks OLD first and, when OLD gives no answer
within the timeout, does not compare the case (NEW is not asked) and compares no
longer list after it (a list at least as long is counted as not compared, without a
call).  Both sides are workers, as ``packcheck diff`` makes them (10 s timeout).  It
prints the verdict, the cases not compared, the length OLD first timed out at, and the
seconds.  Integration: docs/mutation/diff_power.md, item 1.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

from packcheck._packers import PackerTimeout, WorkerPacker
from packcheck._plain_case import PlainCase
from packcheck.diff._behaviour import differences, outcome
from packcheck.diff._oracle import DiffOracle
from packcheck.verify._findings import Finding
from packcheck.verify._fixtures import Fixture
from packcheck.verify._gate import gate

TESTS = Path(__file__).resolve().parents[2] / "tests"


def _length(case: Any) -> int:
    if isinstance(case, PlainCase):
        return len(case.sizes)
    blocks = case.get("blocks") if isinstance(case, dict) else None
    return len(blocks) if isinstance(blocks, list) else 0


class AlikeOracle(DiffOracle):
    """:class:`DiffOracle`, OLD asked first; a case OLD times out on is not compared."""

    too_long = math.inf
    unanswered = 0
    skipped = 0

    def judge(self, case: Any, origin: str, fixture: Fixture | None = None) -> Finding | None:
        length = _length(case)
        if length >= self.too_long:
            self.skipped += 1
            return None
        old = outcome(self.old, case)
        if old.kind == "fault" and isinstance(old.value, PackerTimeout):
            self.unanswered += 1
            self.too_long = min(self.too_long, length)
            return None
        new = outcome(self.new, case)
        if not differences(new, old, json_numbers=self.json_numbers):
            return None
        return super().judge(case, origin, fixture)  # asks both again, as today


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packer", help="MODULE:FUNCTION of tests/packers")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args(argv)
    module, _, function = args.packer.partition(":")
    spec = f"{TESTS / 'packers' / module}.py:{function}"
    new = WorkerPacker(spec, args.timeout, hash_seed="0")
    old = WorkerPacker(spec, args.timeout, hash_seed="0")
    oracle = AlikeOracle(new, old)
    began = time.monotonic()
    try:
        tally = gate(oracle, seed=args.seed)
    finally:
        new.close()
        old.close()
    verdict = "agree" if tally.finding is None else "DIFFERENT"
    print(
        f"{args.packer} against itself, seed {args.seed}: {verdict}; "
        f"{oracle.unanswered} case(s) OLD gave no answer to in {args.timeout:g} s, "
        f"{oracle.skipped} longer list(s) not compared (from {oracle.too_long} blocks); "
        f"{sum(tally.counts.values())} cases, {time.monotonic() - began:.0f} s"
    )
    return 0 if tally.finding is None else 1


if __name__ == "__main__":
    sys.exit(main())
