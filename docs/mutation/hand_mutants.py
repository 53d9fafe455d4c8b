"""Hand-made kernel mutants: does a command (by default the gate) catch each of them?

Usage (from the repository root)::

    .venv/bin/python docs/mutation/hand_mutants.py        # packcheck verify --seed 1
    .venv/bin/python docs/mutation/hand_mutants.py --command "python -m pytest -x -q -n 0 tests"
    .venv/bin/python docs/mutation/hand_mutants.py --compiled   # the compiled engine's tests

Each mutant below is a one-line edit of the kind an optimiser makes to
``src/packcheck/_engines/levels.py`` (a threshold, an off-by-one at a chunk or level boundary,
``<`` for ``<=``, a shift, a clip), and none is equivalent: each changes some answer
or raises where the reference answers.  For each, the package is copied to a
temporary directory, the edit applied there (the working tree is never touched) and
the command run with that copy first on ``PYTHONPATH``.  Exit status 1 from the
command is ``killed``; 0 is ``SURVIVED``; anything else (or the timeout) is reported
as it is.  A mutant whose text is no longer in the source is ``not applicable``.

Exit status: 0 when every applicable mutant is killed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "packcheck"
DEFAULT_COMMAND = "python -m packcheck verify --seed 1"


class Mutant(NamedTuple):
    name: str
    old: str  # unique in the file; only one line of it differs in `new`
    new: str
    why: str  # what goes wrong
    path: str = "_engines/levels.py"


MUTANTS = [
    Mutant(
        "sum-limit-2**63",
        "_SUM_LIMIT = 2**62",
        "_SUM_LIMIT = 2**63",
        "a whole chunk summing to exactly 2**63 wraps (two blocks of 2**62 suffice)",
    ),
    Mutant(
        "sum-limit-first-width",
        "if top <= _SUM_LIMIT // chunk.shape[0]:",
        "if top <= _SUM_LIMIT // _CHUNK_MIN:",
        "a later, wider chunk summing to 2**63 wraps",
    ),
    Mutant(
        "halves-or",
        "return (high << 31) + low",
        "return (high << 31) | low",
        "the low half-sum has more than 31 bits",
    ),
    Mutant(
        "low-bits-32",
        "_LOW_BITS = (1 << 31) - 1",
        "_LOW_BITS = (1 << 32) - 1",
        "bit 31 is counted in both halves",
    ),
    Mutant(
        "high-half-32",
        "high = int((chunk >> 31).sum())",
        "high = int((chunk >> 32).sum())",
        "bit 31 is lost from whole-chunk sums",
    ),
    Mutant(
        "prefix-high-32",
        "high = np.cumsum(chunk >> 31)",
        "high = np.cumsum(chunk >> 32)",
        "bit 31 is lost from prefix sums past int64",
    ),
    Mutant(
        "prefix-shift-32",
        "return (int(high[length - 1]) << 31) + int(low[length - 1]) if length else 0",
        "return (int(high[length - 1]) << 32) + int(low[length - 1]) if length else 0",
        "prefix sums past int64 double their high half",
    ),
    Mutant(
        "prefix-drops-its-last-block",
        "kept[:fits] = True",
        "kept[: fits - 1] = True",
        "the last block of a fitting prefix past int64 is counted but not kept",
    ),
    Mutant(
        "nothing-fits-at-equality",
        "fitting = np.flatnonzero(chunk <= remaining)",
        "fitting = np.flatnonzero(chunk < remaining)",
        "a sparse chunk's one block that fits exactly is not among those scanned",
    ),
    Mutant(
        "stop-at-smallest",
        "while start < n and remaining >= smallest:",
        "while start < n and remaining > smallest:",
        "a block of the smallest size that fits exactly is never reached",
    ),
    Mutant(
        "whole-chunk-off-by-one",
        "remaining -= total\n",
        "remaining -= total - 1\n",
        "a chunk kept whole costs one unit less",
    ),
    Mutant(
        "past-int64-threshold",
        "if remaining > _INT64_MAX:",
        "if remaining > 2**64:",
        "a remaining just past int64 reaches the int64 level scan",
    ),
    Mutant(
        "small-up-to-tau+1",
        "small = sizes - (tau + 1)",
        "small = sizes - (tau + 2)",
        "a block of tau + 1 is assumed to fit a remaining of exactly tau",
    ),
    Mutant(
        "clip-to-remaining",
        "np.minimum(chunk, remaining + 1)",
        "np.minimum(chunk, remaining)",
        "a block larger than the remaining is clipped to a size that fits",
    ),
    Mutant(
        "offset-R",
        "offset = remaining + 1",
        "offset = remaining",
        "a small block's key can equal the bound and be taken for a large fit",
    ),
    Mutant(
        "offset-R-or-1",
        "offset = remaining + 1",
        "offset = remaining | 1",
        "at an odd remaining, a small block with size + S == R is taken for a large fit",
    ),
    Mutant(
        "small-keys-and-max",
        "small &= _INT64_MIN",
        "small &= _INT64_MAX",
        "small blocks' keys are no longer kept above the bound",
    ),
    Mutant(
        "level-end-plus-2",
        'np.searchsorted(small_sums, budget - tau, "right")) + 1))',
        'np.searchsorted(small_sums, budget - tau, "right")) + 2))',
        "a level takes one block past the point where the remaining fell below tau",
    ),
    Mutant(
        "level-end-tau-1",
        'np.searchsorted(small_sums, budget - tau, "right")',
        'np.searchsorted(small_sums, budget - tau + 1, "right")',
        "a level goes on at a remaining of tau - 1",
    ),
    Mutant(
        "large-fit-strict",
        "hits = keys[start:upto] <= bound",
        "hits = keys[start:upto] < bound",
        "a large block that fits to the unit is skipped",
    ),
    Mutant(
        "search-skips-step-edge",
        "start, step = upto, _GROWTH * step",
        "start, step = upto + 1, _GROWTH * step",
        "a fitting block on the first position of a search step is missed",
    ),
    Mutant(
        "large-kept-counted-short",
        "budget -= int(sizes[hit])",
        "budget -= int(sizes[hit]) - 1",
        "each kept large block costs one unit less",
    ),
    Mutant(
        "large-before-hit-kept",
        "np.greater(small[at:hit], 0, out=kept[at:hit])",
        "np.greater(small[at:hit], -1, out=kept[at:hit])",
        "large blocks before a fitting one are marked kept",
    ),
    Mutant(
        "all-small-end-plus-2",
        'np.searchsorted(sums, spent + remaining - tau, "right")) + 1)',
        'np.searchsorted(sums, spent + remaining - tau, "right")) + 2)',
        "all-small levels take one block past their end",
    ),
    Mutant(
        "all-small-tau-1",
        'np.searchsorted(sums, spent + remaining - tau, "right")',
        'np.searchsorted(sums, spent + remaining - tau + 1, "right")',
        "all-small levels go on at a remaining of tau - 1",
    ),
    Mutant(
        "all-small-threshold-plus-1",
        "        tau = remaining // _K\n        if top > tau:",
        "        tau = remaining // _K + 1\n        if top > tau:",
        "a level of unit blocks runs on to a remaining of 0 and stalls there (needs "
        "thousands of unit blocks after a partial fill: verify's drained list)",
    ),
    Mutant(
        "prefix-sums-cut-late",
        "if top * values.shape[0] <= _INT64_MAX:",
        "if top * values.shape[0] <= 2**64:",
        "small prefix sums that wrap past 2**63 are used uncut",
    ),
    Mutant(
        "level-bound-K-1",
        'rounds = next_round("level", rounds, _K + 1)',
        'rounds = next_round("level", rounds, _K - 1)',
        "a level that keeps K - 1 large blocks (K rounds) raises KernelError",
    ),
    Mutant(
        "clip-to-budget",
        "cap = budget + 1",
        "cap = budget",
        "a size past int64 is clipped to the budget, and fits",
        "_engines/sizes.py",
    ),
    # Kinds added with the gate's level-edge probes (issue 12): each reaches a fact the
    # 28 above do not, so that the probes are checked beyond the mutants they were
    # written against.
    Mutant(
        "past-int64-threshold-2**63",
        "if remaining > _INT64_MAX:",
        "if remaining > _INT64_MAX + 1:",
        "a remaining of exactly 2**63 reaches the int64 level scan",
    ),
    Mutant(
        "prefix-sums-cut-at-zero",
        "past = values < 0",
        "past = values <= 0",
        "a chunk opening with large blocks (small sums of 0) is cut to nothing",
    ),
    Mutant(
        "level-end-from-start",
        'np.searchsorted(small_sums, budget - tau, "right")',
        'np.searchsorted(small_sums, remaining - tau, "right")',
        "after a large block is kept, the level ends where the starting remaining falls below tau",
    ),
    Mutant(
        "all-small-forgets-spent",
        'np.searchsorted(sums, spent + remaining - tau, "right")',
        'np.searchsorted(sums, remaining - tau, "right")',
        "the second all-small level of a chunk ends before it starts",
    ),
    Mutant(
        "small-sign-shift-62",
        "small >>= 63",
        "small >>= 62",
        "a block 2**62 above tau reads as neither small nor large",
    ),
    Mutant(
        "offset-R+2",
        "offset = remaining + 1",
        "offset = remaining + 2",
        "at a remaining of exactly 2**63 - 1 the shifted keys leave int64 (OverflowError)",
    ),
    Mutant(
        "clip-to-remaining+2",
        "np.minimum(chunk, remaining + 1)",
        "np.minimum(chunk, remaining + 2)",
        "at a remaining of exactly 2**63 - 2 the clip leaves int64 (OverflowError)",
    ),
    Mutant(
        "level-keeps-small-uncut",
        "sizes, small = sizes[:length], small[:length]",
        "sizes, small = sizes[:length], small",
        "a level whose small sums pass 2**63 mid-chunk masks its keys with a longer array",
    ),
    Mutant(
        "all-small-sums-in-place",
        "sums = _prefix_sums(chunk.copy(), top)",
        "sums = _prefix_sums(chunk, top)",
        "the blocks after an all-small level's end are read back as prefix sums",
    ),
    Mutant(
        "no-small-sums-short",
        "small = small_sums = np.zeros(sizes.shape[0], dtype=np.int64)",
        "small = small_sums = np.zeros(sizes.shape[0] - 1, dtype=np.int64)",
        "a level chunk with no small block in it ends one block short (or raises)",
    ),
    Mutant(
        "search-stops-before-level-end",
        "hit = _first_at_most(keys, at, end, budget - offset)",
        "hit = _first_at_most(keys, at, end - 1, budget - offset)",
        "a fitting large block on the last position a level reaches is missed",
    ),
    # Facts an independent set of mutants found unpinned (issue 20): each is killed by an
    # explicit test and by the gate's "crowded levels" probes.
    Mutant(
        "prefix-sums-cut-one-late",
        "return values[:first] if past[first] else values",
        "return values[: first + 1] if past[first] else values",
        "the first small sum past 2**63 (negative as int64) is kept: a level's end search"
        " can land past it",
    ),
    Mutant(
        "tau-block-large-when-smallest",
        "if int(sizes.min()) > tau:",
        "if int(sizes.min()) >= tau:",
        "a chunk whose smallest block is exactly tau is searched as all large: 17 blocks of"
        " tau in one level pass the level's bound",
    ),
    Mutant(
        "tau-block-large",
        "small = sizes - (tau + 1)",
        "small = sizes - tau",
        "a block of exactly tau is taken for a large one: 17 of them in one level pass the"
        " level's bound",
    ),
    # Paths of packcheck's own packer the tests reached and `verify --seed 1` did not
    # (issue 28): each is killed by the gate's "kernel paths" probes.
    Mutant(
        "int64-tail-never-advances",
        "if misses - fits <= 1:",
        "if misses - fits <= 2:",
        "a two-block tail past int64 that does not fit whole keeps no prefix, and the scan"
        " repeats it until its round bound",
    ),
    Mutant(
        "search-steps-capped",
        "start, step = upto, _GROWTH * step",
        "start, step = upto, min(_GROWTH * step, 4 * _FIRST_STEP)",
        "a level that uses up a small remaining early in a chunk of 65,536 unit blocks"
        " searches the rest of it 4,096 blocks a round, past the search's bound",
    ),
    Mutant(
        "numpy-cut-over-65536",
        "_NUMPY_MIN = 1024",
        "_NUMPY_MIN = 65536",
        "chunks go to Python 4,096 blocks a round: budget 2**17 with [1, 2**18] x 65,537"
        " blocks overruns the round bound",
    ),
]

# The compiled engine's loops (`--compiled`): killed by its tests, not by the gate (whose
# default packer is the NumPy kernel).
COMPILED_MUTANTS = [
    Mutant(
        "loop-strict",
        "        if size <= remaining:",
        "        if size < remaining:",
        "a block that fits to the unit is skipped",
        "_engines/compiled.py",
    ),
    Mutant(
        "loop-costs-one-less",
        "            remaining -= size\n",
        "            remaining -= size - 1\n",
        "each kept block costs one unit less",
        "_engines/compiled.py",
    ),
    Mutant(
        "loop-keeps-the-next",
        "            remaining -= size\n            kept[index] = True",
        "            remaining -= size\n            kept[min(index + 1, kept.shape[0] - 1)] = True",
        "the flag lands on the block after the kept one",
        "_engines/compiled.py",
    ),
    Mutant(
        "batch-strict",
        "            if size <= left:",
        "            if size < left:",
        "in a batch, a block that fits to the unit is skipped",
        "_engines/compiled.py",
    ),
    Mutant(
        "batch-drops-last-block",
        "for index in range(offsets[case], offsets[case + 1]):",
        "for index in range(offsets[case], offsets[case + 1] - 1):",
        "each case's last block is never scanned",
        "_engines/compiled.py",
    ),
    Mutant(
        "batch-remaining-is-budget",
        "        remaining[case] = left",
        "        remaining[case] = budgets[case]",
        "each case reports its budget as its remaining",
        "_engines/compiled.py",
    ),
    Mutant(
        "batch-carries-remaining",
        "        left = budgets[case]",
        "        left = budgets[case] if case == 0 else min(left, budgets[case])",
        "a case starts from the last case's remaining when that is smaller",
        "_engines/compiled.py",
    ),
    Mutant(
        "loop-keeps-going-below-1",
        "            if size < 1:\n                return -1",
        "            if size < 1:\n                return 0",
        "a size below 1 that fits ends the scan with a remaining of 0, not the reference",
        "_engines/compiled.py",
    ),
    Mutant(
        "batch-never-stops-below-1",
        "                if size < 1:\n                    return case",
        "                if size < -(2**62):\n                    return case",
        "a size below 1 that fits raises a case's remaining (past int64: it wraps)",
        "_engines/compiled.py",
    ),
    Mutant(
        "beyond-int64-late",
        "if isinstance(sizes, list) or not 0 <= budget <= _INT64_MAX:",
        "if isinstance(sizes, list) or not 0 <= budget <= 2**64:",
        "a budget from 2**63 to 2**64 is handed to the int64 loop (OverflowError)",
        "_engines/compiled.py",
    ),
]
COMPILED_COMMAND = (
    "python -m pytest -x -q -n 0 -p no:cacheprovider tests/engines/test_compiled.py"
    " properties/test_compiled_properties.py properties/test_scan_properties.py"
    " -k 'numba or compiled'"
)


def run_one(mutant: Mutant, command: list[str], timeout: float) -> tuple[str, float, str]:
    """(outcome, seconds, last line of output) of the command on one mutated copy."""
    source = (PACKAGE / mutant.path).read_text(encoding="utf-8")
    if source.count(mutant.old) != 1:
        return "not applicable", 0.0, f"{mutant.old!r} is not once in {mutant.path}"
    with tempfile.TemporaryDirectory(prefix="packcheck-hand-mutant-") as work:
        copy = Path(work) / "src" / "packcheck"
        shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
        (copy / mutant.path).write_text(source.replace(mutant.old, mutant.new), encoding="utf-8")
        env = dict(os.environ, PYTHONPATH=str(copy.parent), PYTHONDONTWRITEBYTECODE="1")
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
        where = subprocess.run(
            ["python", "-c", "import packcheck; print(packcheck.__file__)"],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        if not where.startswith(str(copy)):
            return "ERROR", 0.0, f"the copy is not what gets imported ({where})"
        started = time.monotonic()
        try:
            done = subprocess.run(
                command,
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=timeout,
                start_new_session=True,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return "TIMEOUT", time.monotonic() - started, ""
        seconds = time.monotonic() - started
        lines = (done.stdout + done.stderr).strip().splitlines()
        last = lines[-1] if lines else ""
        outcome = {0: "SURVIVED", 1: "killed"}.get(done.returncode, f"exit {done.returncode}")
        return outcome, seconds, last


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--command",
        help=f"default: {DEFAULT_COMMAND}; with --compiled: {COMPILED_COMMAND}",
    )
    parser.add_argument(
        "--compiled",
        action="store_true",
        help="the compiled engine's mutants (packcheck.compiled) instead of the NumPy kernel's",
    )
    parser.add_argument(
        "--timeout", type=float, default=300.0, help="seconds per mutant (default: 300)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once (default: 1)")
    parser.add_argument(
        "--only", nargs="*", help="names of the mutants to run (default: all; see --list)"
    )
    parser.add_argument("--list", action="store_true", help="print the mutants and exit")
    args = parser.parse_args(argv)
    if args.command is None:
        args.command = COMPILED_COMMAND if args.compiled else DEFAULT_COMMAND
    chosen = COMPILED_MUTANTS if args.compiled else MUTANTS
    mutants = [m for m in chosen if not args.only or m.name in args.only]
    if args.list:
        for mutant in mutants:
            print(f"{mutant.name}: {mutant.why}\n  - {mutant.old}\n  + {mutant.new}")
        return 0
    command = shlex.split(args.command)
    print(f"command: {args.command}", flush=True)
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = pool.map(lambda m: run_one(m, command, args.timeout), mutants)
        failed = 0
        for mutant, (outcome, seconds, last) in zip(mutants, results, strict=True):
            failed += outcome not in ("killed", "not applicable")
            print(f"{outcome:14} {seconds:6.1f} s  {mutant.name:28} {last[:90]}", flush=True)
    applicable = sum(1 for m in mutants if (PACKAGE / m.path).read_text().count(m.old) == 1)
    print(f"{applicable - failed} of {applicable} applicable mutants killed by: {args.command}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
