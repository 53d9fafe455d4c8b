"""Do the rule's transition points help ``verify``'s generated phase? (issue 27)

Usage (from the repository root)::

    .venv/bin/python docs/mutation/verify_transitions.py              # seeds 1-5
    .venv/bin/python docs/mutation/verify_transitions.py --seeds 1-3 --bases 0,25,100

Off-by-one packers of the declared rule, each wrong only at an exact fit or one unit
from one, some only past a magnitude (the kind a transition point is where it shows),
run through ``packcheck.verify.run`` in this process with no fixtures and no long
lists, at each number of transition bases
(``packcheck.verify._oracle.ReferenceOracle.transition_bases``; 0: no transition points), with
``--max-examples`` generated cases (fewer: a weaker generated phase, where the points
have more to add).  Per packer and setting: on how many seeds the generated phase found
it (the later phases find the rest), and on how many of those by a transition point.
Exit status 0.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "packers"))

from broken import make

from packcheck import verify
from packcheck.verify._oracle import ReferenceOracle

Fits = Callable[[int, int], bool]
#: name -> (fits(size, left), what is wrong)
MUTANTS: dict[str, tuple[Fits, str]] = {
    "lt": (lambda s, left: s < left, "< for <= (every exact fit skipped)"),
    "lt_past_1000": (
        lambda s, left: s < left if s > 1000 else s <= left,
        "< for <= on blocks of more than 1,000 units",
    ),
    "lt_past_2_32": (
        lambda s, left: s < left if left >= 2**32 else s <= left,
        "< for <= once 2**32 units or more are left",
    ),
    "overshoot_by_1": (
        lambda s, left: s <= left + 1 if s > 1000 else s <= left,
        "a block of more than 1,000 units one unit too large is kept",
    ),
    "cost_1_past_100": (
        lambda s, left: s + 1 <= left if s > 100 else s <= left,
        "a cost of 1 unit for blocks of more than 100 units",
    ),
    "reserve_1_past_2_20": (
        lambda s, left: s <= left - 1 if left > 2**20 else s <= left,
        "1 unit held back while more than 2**20 units are left",
    ),
}


def _seeds(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def trial(fits: Fits, seeds: list[int], bases: int, examples: int) -> tuple[list[int], int]:
    ReferenceOracle.transition_bases = bases
    packer = make(fits=fits)
    found, by_transition = [], 0
    for seed in seeds:
        summary = verify.run(
            packer, seed=seed, fixtures=(), long_lists=False, max_examples=examples
        )
        if summary.finding is not None and summary.phase == "generated":
            found.append(seed)
            by_transition += "transition point" in summary.finding.origin
    return found, by_transition


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-5", help="A-B (default 1-5)")
    parser.add_argument("--bases", default="0,12", help="transition bases, e.g. 0,12,100")
    parser.add_argument("--max-examples", type=int, default=1000, help="generated cases")
    args = parser.parse_args(argv)
    seeds = _seeds(args.seeds)
    settings = [int(b) for b in args.bases.split(",")]
    print(f"{'mutant':22} " + " ".join(f"{f'bases {b}':>22}" for b in settings))
    totals: dict[int, list[int]] = {b: [0, 0] for b in settings}
    for name, (fits, _why) in MUTANTS.items():
        cells = []
        for bases in settings:
            found, near = trial(fits, seeds, bases, args.max_examples)
            totals[bases][0] += len(found)
            totals[bases][1] += near
            cells.append(f"{len(found)}/{len(seeds)} ({near} by a point)")
        print(f"{name:22} " + " ".join(f"{c:>22}" for c in cells), flush=True)
    runs = len(MUTANTS) * len(seeds)
    for bases, (found, near) in totals.items():
        print(
            f"bases {bases}: the generated phase found {found} of {runs} runs, {near} of them "
            "by a transition point"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
