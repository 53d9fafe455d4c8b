"""Write the big inputs of issue #5: many cases as JSON Lines, or one case of many blocks.

Usage::

    python benchmarks/make_big_inputs.py lines 1000000 > cases.jsonl
    python benchmarks/make_big_inputs.py lines 100000 --blocks 10-200 > varied.jsonl
    python benchmarks/make_big_inputs.py blocks 1000000 > case.json

Deterministic (a fixed seed), streamed (memory stays small whatever the count), and
stdlib-only so it runs anywhere the tool does.  Sizes are 1-9 units; the budget admits
about half of the blocks, so every case has packed, available and dropped blocks.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Iterator
from typing import TextIO

SEED = 20_251_129


def _block(rng: random.Random, index: int) -> str:
    return f'{{"id":"b{index}","size":{rng.randint(1, 9)}}}'


def case_lines(count: int, *, blocks: int = 8, most: int | None = None) -> Iterator[str]:
    """``count`` JSON Lines cases of ``blocks`` blocks each (``blocks`` to ``most``,
    drawn per case, when ``most`` is given); one string per line."""
    rng = random.Random(SEED)
    least = blocks
    for _ in range(count):
        if most is not None:
            blocks = rng.randint(least, most)
        body = ",".join(_block(rng, i) for i in range(blocks))
        required = ",".join(f'"b{rng.randrange(blocks + 2)}"' for _ in range(3))
        yield f'{{"budget":{blocks * 5 // 2},"blocks":[{body}],"required":[{required}]}}\n'


def write_one_case(out: TextIO, blocks: int) -> None:
    """One case of ``blocks`` blocks on one line, written in pieces."""
    rng = random.Random(SEED)
    out.write(f'{{"budget":{blocks * 5 // 2},"blocks":[')
    for start in range(0, blocks, 10_000):
        stop = min(start + 10_000, blocks)
        out.write(("," if start else "") + ",".join(_block(rng, i) for i in range(start, stop)))
    required = ",".join(f'"b{rng.randrange(blocks)}"' for _ in range(100))
    out.write(f'],"required":[{required},"absent"]}}\n')


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shape", choices=["lines", "blocks"])
    parser.add_argument("count", type=int)
    parser.add_argument(
        "--blocks",
        default="8",
        metavar="N|MIN-MAX",
        help="blocks per case for 'lines' (default 8; MIN-MAX draws a count per case)",
    )
    args = parser.parse_args(argv)
    if args.shape == "lines":
        least, _, most = args.blocks.partition("-")
        top = int(most) if most else None
        sys.stdout.writelines(case_lines(args.count, blocks=int(least), most=top))
    else:
        write_one_case(sys.stdout, args.count)


if __name__ == "__main__":
    main()
