"""Every probe builds the case it always built: builds checked against recorded digests.

A probe is a recipe (``packcheck._gate.probes``): a failure is reported and shrunk by
rebuilding it, and ``--seed`` reruns a run, so how a probe is built may get faster but
must never change what it builds.  ``probe_builds.json`` holds, for seed 1 and four
unit ranges, a digest of every probe's case per family (the full lengths, and the
shorter lengths the shrinker asks for), and the same for seed 2 in one range, recorded
when the probes took their draws from ``packcheck._gate.probe_random``.
Regenerate it only for a deliberate change of the probes:
``python tests/gate/test_probe_builds.py``.
"""

from __future__ import annotations

import hashlib
import io
import json
import pickle
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from packcheck._gate.edge_probes import _Layout
from packcheck._gate.probe_random import ProbeRandom
from packcheck._gate.probes import Probe, long_probes, unit_probes, wide_probes

RECORDED = Path(__file__).with_name("probe_builds.json")
UNITS = {"2**53-1": 2**53 - 1, "2**70": 2**70, "100": 100, "2**63-1": 2**63 - 1}
#: Seed 1 builds every probe in every way but one: the int64 run whose whole chunk fits
#: (a quarter of its draws), which seed 2 builds in ``2**70``.  Seeds 2 and 3 at each
#: range took 20 s more of CI for that one branch; seed 3 in ``100`` (a run as long as
#: the others) reached no branch they do not, measured run by run, and was left out.
OTHER_SEEDS = {2: "2**70"}
# The shrinker's lengths (short ones and the ladder's first), checked at seed 1.
SHORTER = (1, 2, 3, 15, 16, 1000)


def _bytes(case: Any) -> bytes:
    """The case's exact value (types, key order, digits), not which objects hold it:
    pickled without the memo, so equal strings pickle alike whoever made them."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=4)
    pickler.fast = True
    pickler.dump(case)
    return buffer.getvalue()


def _probes(seed: int, max_units: int, shorter: bool) -> Iterator[tuple[str, Probe]]:
    for probe in (*unit_probes(seed), *wide_probes(seed, max_units)):
        yield probe.family.split(":")[0], probe
    for probe in long_probes(seed, max_units):
        if not shorter:
            yield probe.family, probe
            continue
        for length in SHORTER:
            if length < probe.length:
                yield f"{probe.family} shorter", probe.shorter(length)


def digests(seed: int, max_units: int, shorter: bool = False) -> dict[str, str]:
    """A digest per family of the cases its probes build, in order."""
    hashes: dict[str, Any] = {}
    for family, probe in _probes(seed, max_units, shorter):
        digest = hashes.setdefault(family, hashlib.sha256())
        try:
            digest.update(_bytes(probe.build()))
        except ValueError as exc:
            # Some recipes cannot be built in a narrow unit range (a run of 4,096 equal
            # blocks summing to 2**20 needs sizes of 256): they must still fail alike.
            digest.update(f"raises {type(exc).__name__}".encode())
    return {family: digest.hexdigest() for family, digest in hashes.items()}


def _runs() -> Iterator[tuple[str, int, int, bool]]:
    for name, units in UNITS.items():
        yield f"seed 1, max_units {name}", 1, units, False
        yield f"seed 1, max_units {name}, shorter", 1, units, True
    for seed, name in OTHER_SEEDS.items():
        yield f"seed {seed}, max_units {name}", seed, UNITS[name], False


@pytest.mark.parametrize(("key", "seed", "max_units", "shorter"), list(_runs()))
def test_every_probe_builds_the_case_it_always_built(
    key: str, seed: int, max_units: int, shorter: bool
) -> None:
    recorded = json.loads(RECORDED.read_text())[key]
    assert digests(seed, max_units, shorter) == recorded


if __name__ == "__main__":  # pragma: no cover - records the digests
    table = {key: digests(seed, units, shorter) for key, seed, units, shorter in _runs()}
    RECORDED.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"{RECORDED}: {len(table)} runs", file=sys.stderr)


def test_a_layout_clips_each_size_and_keeps_what_fits_as_one_at_a_time() -> None:
    """The layout's bulk steps do what laying out one block at a time did."""
    for budget, sizes in ((10, [0, -5, 2**70, 2**63, 3, 7, 1, 1]), (5, [5, 1, 0]), (0, [1, 1])):
        lay = _Layout(budget, 2**64, ProbeRandom(0))
        lay.extend(sizes)
        for size in sizes:
            lay.add(size)
        lay.ones(3)
        lay.ones(0)
        lay.ones(-2)
        left, laid = budget, []
        for size in [*sizes, *sizes, 1, 1, 1]:
            size = max(1, min(size, 2**63 - 1))
            laid.append(size)
            left -= size if size <= left else 0
        assert (lay.sizes, lay.left) == (laid, left)
