"""Side-by-side ratios at the sizes agents pack (issue 10), in one run.

Usage (from the repository root)::

    .venv/bin/python benchmarks/agent_sizes.py [--repeat 5] [--cases 10000]

Prints, each from calls timed back to back (interleaved, best of ``--repeat``):

* ``pack(case, engine="numpy")`` speed over ``engine="reference"`` at 10, 100 and
  1,000 blocks (1.0 = as fast; above 1 numpy is faster);
* ``pack(case)`` time over the bare ``reference.pack_sizes`` loop on the same sizes,
  on 10-200-block cases built in Python and read from JSON, sizes 1-100 and 1-1000;
* ``pack_many(cases, engine="numpy")`` speed over the reference engine;
* ``scan.pack_batch`` speed over calling the reference once per case.

Answers are checked identical first.  Not a test: ratios move with the machine's
load, so they are reported, never asserted.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

import packcheck
from packcheck import reference
from packcheck._engines import numpy_entry as scan


def cases_of(seed: int, count: int, top: int, fewest: int = 10, most: int = 200) -> list[Any]:
    """``count`` cases of ``fewest``-``most`` blocks, sizes 1-``top``, budget 0-total."""
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        n = rng.randint(fewest, most)
        sizes = [rng.randint(1, top) for _ in range(n)]
        blocks = [{"id": f"b{i}", "size": size} for i, size in enumerate(sizes)]
        required = [f"b{rng.randrange(n)}" for _ in range(3)] + ["absent"]
        cases.append({"budget": rng.randint(0, sum(sizes)), "blocks": blocks, "required": required})
    return cases


def pack_each(cases: list[Any], engine: Any) -> object:
    return [packcheck.pack(case, engine=engine) for case in cases]


def loop_each(pairs: list[tuple[int, list[int]]]) -> object:
    return [reference.pack_sizes(budget, sizes) for budget, sizes in pairs]


def side_by_side(calls: list[Callable[[], object]], repeat: int) -> list[float]:
    """Best time of each call, the calls interleaved round after round."""
    best = [float("inf")] * len(calls)
    for _ in range(repeat):
        for at, call in enumerate(calls):
            gc.collect()
            start = time.perf_counter()
            call()
            best[at] = min(best[at], time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cases", type=int, default=10_000)
    args = parser.parse_args()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average {load}; best of {args.repeat}, interleaved")

    for n in (10, 100, 1000):
        cases = cases_of(2, max(20, 200_000 // n), 1000, n, n)
        assert [packcheck.pack(c) for c in cases] == [
            packcheck.pack(c, engine="numpy") for c in cases
        ]
        ref, fast = side_by_side(
            [partial(pack_each, cases, "reference"), partial(pack_each, cases, "numpy")],
            args.repeat,
        )
        print(f"pack numpy speed / reference speed, {n:5,} blocks: {ref / fast:.2f}")

    for built in ("python", "json"):
        for top in (100, 1000):
            cases = cases_of(1, args.cases, top)
            if built == "json":
                cases = json.loads(json.dumps(cases))
            pairs = [(c["budget"], [b["size"] for b in c["blocks"]]) for c in cases]
            bare, whole = side_by_side(
                [partial(loop_each, pairs), partial(pack_each, cases, "reference")], args.repeat
            )
            print(
                f"pack(case) / bare loop, built in {built:6s}, sizes 1-{top:<4}: "
                f"{whole / bare:.2f}x ({bare * 1e3:.0f} ms loop)"
            )

    cases = cases_of(1, args.cases, 100)
    assert packcheck.pack_many(cases) == packcheck.pack_many(cases, engine="numpy")
    ref, fast = side_by_side(
        [lambda: packcheck.pack_many(cases), lambda: packcheck.pack_many(cases, engine="numpy")],
        args.repeat,
    )
    print(f"pack_many numpy speed / reference speed: {ref / fast:.2f}")

    for top in (100, 1000):
        cases = cases_of(3, args.cases, top)
        pairs = [(c["budget"], [b["size"] for b in c["blocks"]]) for c in cases]
        budgets = np.array([budget for budget, _ in pairs], dtype=np.int64)
        sizes = np.array([s for _, case in pairs for s in case], dtype=np.int64)
        offsets = np.cumsum([0] + [len(case) for _, case in pairs])
        kept, remaining = scan.pack_batch(budgets, sizes, offsets)
        for at, (budget, case) in enumerate(pairs):
            expected = reference.pack_sizes(budget, case)
            assert (kept[offsets[at] : offsets[at + 1]].tolist(), int(remaining[at])) == expected
        ref, batch = side_by_side(
            [partial(loop_each, pairs), partial(scan.pack_batch, budgets, sizes, offsets)],
            args.repeat,
        )
        print(
            f"pack_batch speed / reference per case, sizes 1-{top:<4}: {ref / batch:.1f}x "
            f"({ref * 1e3:.0f} ms reference)"
        )


if __name__ == "__main__":
    main()
