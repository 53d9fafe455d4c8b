"""Write a recorded run for timing ``packcheck audit``: run records, one step per line.

Usage::

    python benchmarks/make_audit_run.py [--steps 100000] [--violating 0.01] > run.jsonl

Each step is a case of 5-40 blocks (``make_big_inputs.py``'s cases, its fixed seed)
made into a run record by packcheck's own recorder, :func:`packcheck.audit.record_step`,
and written as ``packcheck pack --record`` writes it.  With ``--violating F`` a fraction
F of the steps, drawn with a fixed seed, carry a planted defect instead, in turn: a
packed ID moved to ``available``, a ``null`` partition, no partition at all, a recorded
``remaining`` one unit off, and the ``available`` bucket emptied into ``dropped``.  The
lines that carry one are listed on standard error (``--planted FILE`` writes them to
FILE), so that a test can check every one is reported where it is.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from make_big_inputs import case_lines

from packcheck._rule.jsonio import loads, write_json
from packcheck.audit import record_step

#: The seed of the draw of the violating steps (the cases have make_big_inputs' own).
SEED = 20_261_206
Step = dict[str, Any]


def _moved(step: Step) -> bool:
    packed = step["partition"]["packed"]
    if not packed:
        return False
    step["partition"]["available"].insert(0, packed.pop())
    return True


def _null(step: Step) -> bool:
    step["partition"] = None
    return True


def _absent(step: Step) -> bool:
    del step["partition"]
    return True


def _remaining(step: Step) -> bool:
    if "remaining" not in step["result"]:
        return False
    step["result"]["remaining"] += 1
    return True


def _all_dropped(step: Step) -> bool:
    partition = step["partition"]
    if not partition["available"]:
        return False
    partition["dropped"] = partition["available"] + partition["dropped"]
    partition["available"] = []
    return True


#: The planted defects, used in turn (a step a defect cannot apply to gets the next).
DEFECTS: tuple[Callable[[Step], bool], ...] = (_moved, _null, _absent, _remaining, _all_dropped)


def run_lines(
    steps: int, violating: float = 0.0, planted: list[int] | None = None
) -> Iterator[str]:
    """The run's lines; the 1-based numbers of the lines given a defect are appended
    to ``planted``."""
    rng = random.Random(SEED)
    turn = 0
    for number, line in enumerate(case_lines(steps, blocks=5, most=40), start=1):
        step = record_step(loads(line))
        if violating and rng.random() < violating:
            for tried in range(len(DEFECTS)):
                if DEFECTS[(turn + tried) % len(DEFECTS)](step):
                    turn += tried + 1
                    if planted is not None:
                        planted.append(number)
                    break
        yield write_json(step) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument(
        "--violating",
        type=float,
        default=0.0,
        metavar="F",
        help="the fraction of steps given a defect",
    )
    parser.add_argument("--planted", metavar="FILE", help="write the planted lines' numbers here")
    args = parser.parse_args(argv)
    planted: list[int] = []
    sys.stdout.writelines(run_lines(args.steps, args.violating, planted))
    shown = "".join(f"{number}\n" for number in planted)
    if args.planted:
        Path(args.planted).write_text(shown)
    else:
        sys.stderr.write(shown)


if __name__ == "__main__":
    main()
