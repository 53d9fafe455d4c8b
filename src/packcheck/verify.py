"""The differential gate: does a packer give the declared output on every case?

:func:`check` runs the fixture corpus (the seed cases shipped with packcheck, plus any
saved regressions), then cases from :func:`packcheck.strategies.cases`.  Each answer
must equal the reference's output exactly (as JSON, with exact types) *and* pass the
invariant checker :func:`check_output`.  The first failure is shrunk by Hypothesis and
raised as a :class:`Counterexample`, ready to save as a fixture.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed

from ._fixtures import Fixture, read_fixtures, seed_fixtures
from ._hypothesis_compat import same_cases_whatever_is_loaded
from ._invariants import InvariantError, check_output, check_trace
from ._jsonio import dumps, same_json
from ._pack import pack
from ._packers import CallablePacker, Packer, PackerFault
from ._partition import require_partition, without_partition
from .strategies import MAX_SAFE_UNITS, cases

__all__ = [
    "DEFAULT_MAX_EXAMPLES",
    "Counterexample",
    "Finding",
    "Fixture",
    "InvariantError",
    "Summary",
    "check",
    "check_output",
    "check_trace",
    "read_fixtures",
    "seed_fixtures",
]

#: Generated cases per run: a default run of a Python or command packer stays well
#: under a minute on two cores (measured: see properties/README.md).
DEFAULT_MAX_EXAMPLES = 1000
#: After the first failure, shrinking gets this long before the best case so far is
#: reported; a packer that hangs on every shrink step must not stall CI.
SHRINK_SECONDS = 30.0

Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class Finding:
    """One case the packer got wrong: what it answered and which checks failed."""

    case: Any
    expected: Any
    answer: Any
    failures: tuple[str, ...]
    origin: str
    name: str | None = None

    def fixture(self) -> dict[str, Any]:
        """The case as a fixture ``{"id", "input", "expected"}``, ready to save."""
        digest = hashlib.sha256(dumps(self.case).encode()).hexdigest()[:12]
        return {
            "id": self.name or f"verify-{digest}",
            "input": self.case,
            "expected": self.expected,
        }

    def report(self) -> str:
        """A few lines for a person: origin, failed checks, answer, fixture."""
        lines = [f"FAIL {self.origin}"]
        lines += [f"  check:    {failure}" for failure in self.failures]
        lines.append(f"  answer:   {show_answer(self.answer)}")
        lines.append(f"  expected: {dumps(self.expected)}")
        lines.append(f"  fixture:  {dumps([self.fixture()])}")
        return "\n".join(lines)


class Counterexample(AssertionError):
    """The packer does not conform; :attr:`finding` holds the (shrunk) case."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.report())
        self.finding = finding


@dataclass(frozen=True, slots=True)
class Summary:
    """A conformant run: how many fixtures and generated cases, the seed, the time."""

    fixtures: int
    generated: int
    seed: int
    seconds: float
    notes: tuple[str, ...] = field(default=())


def show_answer(answer: object) -> str:
    """JSON when the answer is plain JSON data, else ``repr`` (which shows the types)."""
    if isinstance(answer, PackerFault):
        return f"(no answer: {answer})"
    if _plain_json(answer):
        return dumps(answer)
    return repr(answer)


def _plain_json(value: object) -> bool:
    if type(value) is dict:
        return all(type(k) is str and _plain_json(v) for k, v in value.items())
    if type(value) is list:
        return all(map(_plain_json, value))
    # Decimal: a command packer's non-integral number, written back as it was read.
    return type(value) in (str, int, bool, type(None), Decimal)


def _exactly(expected: object, answer: object) -> bool:
    """Equal as JSON, and with the same Python types (``0`` is not ``0.0``)."""
    if type(expected) is not type(answer) and not (
        isinstance(expected, dict) and isinstance(answer, dict)
    ):
        return False
    if isinstance(expected, dict) and isinstance(answer, dict):
        return expected.keys() == answer.keys() and all(
            _exactly(expected[k], answer[k]) for k in expected
        )
    if isinstance(expected, list) and isinstance(answer, list):
        return len(expected) == len(answer) and all(map(_exactly, expected, answer))
    return same_json(expected, answer)


def examine(
    packer: Packer, case: Any, expected: Any, origin: str, *, partition: bool = False
) -> Finding | None:
    """Ask ``packer`` about ``case``; a :class:`Finding` unless it answers ``expected``.

    A ``partition`` the answer carries is checked, never an extra key; with
    ``partition=True`` one must be there (``packcheck._partition``).
    """
    try:
        answer: object = packer.answer(case)
    except PackerFault as exc:
        return Finding(case, expected, exc, (f"packer fault: {exc}",), origin)
    failures: list[str] = []
    if not _exactly(expected, without_partition(answer)):
        failures.append("output: differs from the declared output (exact JSON and types)")
    try:
        check_output(case, answer)
        if partition:
            require_partition(answer)
    except InvariantError as exc:
        failures.append(f"invariant {exc}")
    return Finding(case, expected, answer, tuple(failures), origin) if failures else None


def run_fixtures(
    packer: Packer, fixtures: Iterable[Fixture], *, partition: bool = False
) -> tuple[int, Finding | None]:
    """Check each fixture in turn; the count checked and the first failure, if any."""
    count = 0
    for fixture in fixtures:
        count += 1
        finding = examine(
            packer, fixture.case, fixture.expected, fixture.origin, partition=partition
        )
        if finding is not None:
            return count, Finding(
                finding.case,
                finding.expected,
                finding.answer,
                finding.failures,
                finding.origin,
                fixture.name,
            )
    return count, None


def run_generated(
    packer: Packer,
    *,
    seed: int,
    max_examples: int,
    max_units: int,
    progress: Progress | None = None,
    partition: bool = False,
) -> tuple[int, Finding | None]:
    """Check generated cases; the count run and the shrunk first failure, if any.

    The same ``seed`` gives the same cases.  Failures are remembered by case, so the
    final replay of the shrunk case needs no packer call (a flaky or slow packer
    cannot turn the report into Hypothesis's ``Flaky``); after
    :data:`SHRINK_SECONDS` of shrinking, new cases are no longer tried.
    """
    failures: dict[str, Finding] = {}
    calls = 0
    first_failure: float | None = None

    @hypothesis_seed(seed)
    @settings(
        max_examples=max_examples,
        database=None,
        deadline=None,
        derandomize=False,
        phases=(Phase.generate, Phase.shrink),
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
    )
    @given(cases(max_units=max_units))
    def conforms(case: dict[str, Any]) -> None:
        nonlocal calls, first_failure
        key = dumps(case)
        finding = failures.get(key)
        if finding is None:
            if first_failure is not None and time.monotonic() - first_failure > SHRINK_SECONDS:
                return
            calls += 1
            if progress is not None:
                progress(calls, max_examples)
            origin = f"generated case (seed {seed}, shrunk)"
            finding = examine(packer, case, pack(case), origin, partition=partition)
            if finding is None:
                return
            first_failure = first_failure or time.monotonic()
            failures[key] = finding
        # One raise site: Hypothesis tells failures apart by where they are raised.
        raise Counterexample(finding)

    try:
        with same_cases_whatever_is_loaded():
            conforms()
    except Counterexample as exc:
        return calls, exc.finding
    return calls, None


def check(
    packer: Callable[[dict[str, Any]], object] | Packer,
    *,
    seed: int | None = None,
    max_examples: int = DEFAULT_MAX_EXAMPLES,
    max_units: int = MAX_SAFE_UNITS,
    fixtures: Iterable[Fixture] | None = None,
    partition: bool = False,
) -> Summary:
    """Check ``packer`` against the declared rule; raise :class:`Counterexample` if not.

    ``packer`` is a function ``case -> output`` (called with its own deep copy of each
    case) or a :class:`packcheck._packers.Packer` adapter.  ``fixtures`` default to
    the seed cases.  ``seed=None`` picks a seed, reported in the summary and in any
    counterexample's origin; generated units lie within ``±max_units``.  With
    ``partition=True`` every answer but ``{"error": "size"}`` must capture its
    partition (RULE.md, seed T1.5); a captured one is always checked.
    """
    adapter = packer if isinstance(packer, Packer) else CallablePacker(packer)
    seed = random.SystemRandom().randrange(2**32) if seed is None else seed
    started = time.monotonic()
    checked, finding = run_fixtures(
        adapter, seed_fixtures() if fixtures is None else fixtures, partition=partition
    )
    if finding is None:
        generated, finding = run_generated(
            adapter,
            seed=seed,
            max_examples=max_examples,
            max_units=max_units,
            partition=partition,
        )
    if finding is not None:
        raise Counterexample(finding)
    return Summary(checked, generated, seed, time.monotonic() - started)
