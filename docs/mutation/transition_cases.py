"""Prototype for issue 27: do OLD's transition points find the regressions diff misses?

Usage (from the repository root)::

    .venv/bin/python docs/mutation/transition_cases.py              # every regression
    .venv/bin/python docs/mutation/transition_cases.py --only pack_ge --gate

Not wired into the CLI: a loop of its own over the corpus of
``docs/mutation/diff_power.py`` (its packers run in this process).  For each one-line
regression (NEW) of a packer (OLD) and each seed (1-3; 1-10 for
``message_overhead:pack_ge``):

1. ``--cases`` short cases are drawn as ``diff``'s generated phase draws them
   (:func:`packcheck.strategies.cases`, 12 blocks at most, the seed given to
   Hypothesis); only those OLD answers (no raise, no ``{"error": ...}``) are kept:
   generation following OLD;
2. for each, :func:`packcheck._gate.transitions.case_candidates` walks the budget and
   each block's size, asking OLD alone, and gives the cases at each point where OLD's
   answer changes and one unit either side;
3. NEW and OLD answer each candidate: ``found`` when they differ on one, with its block
   count; the OLD calls spent and the candidates compared are counted, and so are the
   drawn cases themselves on which NEW and OLD differ (``drawn differing``: what the
   drawn cases find without the candidates).

With ``--gate``, the candidates of a seed also go to today's ``packcheck.diff.run`` as
fixtures (after the seed fixtures, long lists left out), so that its shrinking and
report are those of the gate: the shrunk counterexample's block count is shown.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "mutation"))
sys.path.insert(0, str(ROOT.parent / "tests"))

from diff_power import TEN_SEEDS, corpus  # noqa: E402

from packcheck import diff  # noqa: E402
from packcheck._gate.fixtures import Fixture  # noqa: E402
from packcheck._gate.transitions import case_candidates, shape  # noqa: E402
from packcheck.strategies import MAX_SAFE_UNITS, cases  # noqa: E402
from packcheck.verify import seed_fixtures  # noqa: E402

Packer = Callable[[dict[str, Any]], object]


def drawn(seed: int, count: int) -> list[dict[str, Any]]:
    """``count`` cases as the generated phase draws them with ``seed``."""
    found: list[dict[str, Any]] = []

    @hypothesis_seed(seed)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=(Phase.generate,),
        suppress_health_check=list(HealthCheck),
    )
    @given(cases(max_units=MAX_SAFE_UNITS, max_blocks=12))
    def collect(case: dict[str, Any]) -> None:
        found.append(case)

    collect()
    return found


def outcome(packer: Packer, case: dict[str, Any]) -> tuple[str, object]:
    try:
        return "answer", packer(case)
    except Exception as exc:
        return "raise", type(exc).__name__


def answered(packer: Packer, case: dict[str, Any]) -> bool:
    kind, value = outcome(packer, case)
    return kind == "answer" and not (isinstance(value, dict) and "error" in value)


def trial(
    new: Packer, old: Packer, seed: int, count: int, blocks: int, calls: int | None
) -> dict[str, Any]:
    asked = 0

    def old_shape(case: dict[str, Any]) -> Hashable:
        nonlocal asked
        asked += 1
        kind, value = outcome(old, case)
        return kind, shape(value) if kind == "answer" else value

    base = drawn(seed, count)
    bases = [case for case in base if answered(old, case)]
    plain = sum(outcome(new, case) != outcome(old, case) for case in base)
    tried: list[dict[str, Any]] = []
    first: dict[str, Any] | None = None
    for case in bases:
        near = case_candidates(
            old_shape, case, max_units=MAX_SAFE_UNITS, sizes=range(blocks), calls=calls
        )
        for candidate in near:
            tried.append(candidate)
            if first is None and outcome(new, candidate) != outcome(old, candidate):
                first = candidate
    return {
        "drawn": len(base),
        "plain": plain,
        "bases": len(bases),
        "candidates": tried,
        "old_calls": asked,
        "first": first,
    }


def through_gate(new: Packer, old: Packer, seed: int, tried: list[dict[str, Any]]) -> str:
    extra = [Fixture(f"t{i}", case, None, "transition case") for i, case in enumerate(tried)]
    summary = diff.run(new, old, seed=seed, fixtures=[*seed_fixtures(), *extra], long_lists=False)
    if summary.finding is None:
        return "gate: agree"
    blocks = summary.finding.case.get("blocks")
    return f"gate: {summary.phase}, {len(blocks) if isinstance(blocks, list) else '-'} blocks"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100, help="cases drawn per seed")
    parser.add_argument("--only", help="only regressions whose MODULE:NEW contains this")
    parser.add_argument("--gate", action="store_true", help="also diff.run with them")
    parser.add_argument("--blocks", type=int, default=12, help="sizes walked: first N blocks")
    parser.add_argument("--calls", type=int, help="OLD calls per side of a walk (default: scale)")
    args = parser.parse_args(argv)
    missed = 0
    for (module_name, base), regressions in corpus().items():
        module = importlib.import_module(f"packers.{module_name}")
        old = getattr(module, base)
        for regression in regressions:
            if args.only and args.only not in f"{module_name}:{regression}":
                continue
            new = getattr(module, regression)
            ten = (module_name, regression) in TEN_SEEDS
            for seed in range(1, 11 if ten else 4):
                began = time.monotonic()
                result = trial(new, old, seed, args.cases, args.blocks, args.calls)
                first = result["first"]
                missed += first is None
                verdict = "missed" if first is None else f"found ({len(first['blocks'])} blocks)"
                line = (
                    f"{module_name}:{regression:28} seed {seed:2}  {verdict:18} "
                    f"drawn differing {result['plain']:3}  "
                    f"bases {result['bases']:3}/{result['drawn']:3}  "
                    f"candidates {len(result['candidates']):5}  OLD calls {result['old_calls']:6}  "
                    f"{time.monotonic() - began:5.1f} s"
                )
                if args.gate:
                    line += "  " + through_gate(new, old, seed, result["candidates"])
                print(line, flush=True)
    print(f"missed: {missed}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
