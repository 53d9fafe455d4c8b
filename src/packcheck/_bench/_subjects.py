"""What a benchmark times: a *kernel* (``pack_sizes(budget, int64 sizes)``) on a
workload's arrays, a *case* packer on it as a case, a *command* by batches of cases
through its running process."""

from __future__ import annotations

import inspect
import math
import pickle
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .. import reference
from .._engines.pack import pack
from .._packers import CommandPacker, PackerFault, SetupError, encode_case
from .._partition.facts import without_partition
from .._rule.declared import Rule
from .._rule.interpret import REFUSED
from .._rule.recorded import refuses
from ._answers import BenchError, Kernel, read_answer
from ._limit import Limit
from ._timing import Run, repeated, unwatch, watch
from ._workloads import Recorded, Workload, as_case

#: What a cell is measured on: a built-in workload at a size, or the recorded cases.
Load = Workload | Recorded

Kind = Literal["kernel", "case", "command"]
#: The kinds a Python function can be: ``--kind``'s choices.
KINDS: tuple[str, ...] = ("case", "kernel")
_SHAPE = {"kernel": "(flags, int remaining)", "case": "an output object"}
_PROBE_SIZES = [3, 4, 5]


@dataclass(frozen=True)
class Cell:
    """One packer on one input: the timed ``run``, an untimed ``answer()`` in the
    kind's comparable form, whether the input is ``untouched()``, the ``expected()``
    answer and the ``shape`` an answer has."""

    run: Run
    answer: Callable[[], Any]
    untouched: Callable[[], bool]
    expected: Callable[[], Any]
    shape: str


class Subject:
    """A packer to time: its ``name`` (as given), its ``kind``, a :class:`Cell` per input,
    the :class:`Limit` of a case (``None``: none; a command has its own), and the
    declared ``rule`` it packs by (``None``: packcheck's own), which the workloads fit
    and its answers are checked against."""

    name: str
    kind: Kind
    limit: Limit | None = None
    rule: Rule | None = None

    @property
    def family(self) -> str:
        return "kernel" if self.kind == "kernel" else "case"

    def inputs(self, load: Load, n: int, seed: int) -> list[Any]:
        """What this packer packs of ``load`` at ``n`` blocks: cases, or a kernel's arrays."""
        return load.cases(n, seed, self.rule)

    def cell(self, load: Load, n: int, seed: int, inputs: list[Any] | None = None) -> Cell:
        """This packer on ``load``'s input of ``n`` blocks (recorded cases: all, in turn),
        or on ``inputs`` (perhaps another packer's of the same family)."""
        raise NotImplementedError  # pragma: no cover - abstract

    def expected(self, cases: list[Any]) -> Callable[[], Any]:
        if len(cases) == 1:
            return partial(pack, cases[0], rule=self.rule)
        return lambda: [pack(case, rule=self.rule) for case in cases]

    def close(self) -> None:
        """Release the packer."""

    def _limited(self, cell: Cell, where: str) -> Cell:
        limit, what = self.limit, f"{self.name} failed {where}"
        if limit is None:
            return cell

        def run(number: int) -> None:
            with limit.watching(what, number):
                cell.run(number)

        def answer() -> Any:
            with limit.watching(what):
                return cell.answer()

        return replace(cell, run=run, answer=answer)


class _Function(Subject):
    """A Python function, called in this process, its calls watched by ``limit``."""

    def __init__(self, name: str, function: Callable[..., Any], limit: Limit | None = None) -> None:
        self.name = name
        self.function = function
        self.limit = limit


class KernelSubject(_Function):
    """A ``pack_sizes(budget, int64 sizes)`` function, called in this process."""

    kind: Kind = "kernel"

    def inputs(self, load: Load, n: int, seed: int) -> list[Any]:
        return load.arrays(n, seed)

    def cell(self, load: Load, n: int, seed: int, inputs: list[Any] | None = None) -> Cell:
        if inputs is None:
            inputs = self.inputs(load, n, seed)
        if not inputs:
            raise BenchError(f"{self.name}: no recorded case a kernel can pack (valid units)")
        pristine = [sizes.copy() for sizes, _ in inputs]
        calls = [partial(self.function, budget, sizes) for sizes, budget in inputs]
        answers = [partial(_kernel_answer, call) for call in calls]
        expected = [partial(_reference_answer, budget, sizes) for sizes, budget in inputs]
        one = len(calls) == 1
        cell = Cell(
            repeated(calls[0]) if one else _each(calls),
            answers[0] if one else partial(_all, answers),
            lambda: all(np.array_equal(s, p) for (s, _), p in zip(inputs, pristine, strict=True)),
            expected[0] if one else partial(_every, expected),
            _SHAPE["kernel"],
        )
        return self._limited(cell, where_of(load, n))


def _kernel_answer(call: Callable[[], Any]) -> tuple[list[bool], int] | None:
    return read_answer(call())


def _reference_answer(budget: int, sizes: npt.NDArray[np.int64]) -> tuple[list[bool], int]:
    return reference.pack_sizes(budget, sizes.tolist())


def _every(calls: Sequence[Callable[[], Any]]) -> list[Any]:
    return [call() for call in calls]


def _each(calls: Sequence[Callable[[], Any]]) -> Run:

    def run(number: int) -> None:
        for _ in range(number):
            for call in calls:
                call()

    return run


def _all(answers: Sequence[Callable[[], Any]]) -> list[Any] | None:
    listed = [answer() for answer in answers]
    return None if any(answer is None for answer in listed) else listed


def where_of(load: Load, n: int) -> str:
    """Where a message says a cell is: ``on WORKLOAD at n=N``, or on the recorded cases."""
    if isinstance(load, Recorded):
        return f"on the {len(load.recorded):,} recorded case(s)"
    return f"on {load.name} at n={n:,}"


class CaseSubject(_Function):
    """A ``case -> answer`` function, called in this process; where its rule refuses
    some input, a ``ValueError`` it raises is its refusal (``{"error": "refused"}``)."""

    kind: Kind = "case"

    def cell(self, load: Load, n: int, seed: int, inputs: list[Any] | None = None) -> Cell:
        cases = self.inputs(load, n, seed) if inputs is None else inputs
        pristine = pickle.dumps(cases)
        calls = [partial(self.refusing(), case) for case in cases]
        if len(calls) == 1:
            run, answer = repeated(calls[0]), lambda: without_partition(calls[0]())
        else:
            run = _each(calls)
            answer = lambda: [without_partition(call()) for call in calls]  # noqa: E731
        cell = Cell(
            run,
            answer,
            lambda: pickle.dumps(cases) == pristine,
            self.expected(cases),
            _SHAPE["case"],
        )
        return self._limited(cell, where_of(load, n))

    def refusing(self) -> Callable[[Any], Any]:
        """The function, its ``ValueError`` a refusal where the rule refuses some input."""
        if not refuses(self.rule):
            return self.function
        function = self.function

        def refusing(case: Any) -> Any:
            try:
                return function(case)
            except ValueError:
                return dict(REFUSED)

        return refusing


class CommandSubject(Subject):
    """A JSON Lines command, started once; a sample sends a batch of copies of the
    case through it and waits for as many answers, within ``timeout`` seconds a case
    (0: no limit)."""

    kind: Kind = "command"

    def __init__(self, command: str, timeout: float) -> None:
        self.name = command
        self.timeout = timeout or math.inf
        self.packer = CommandPacker(command, self.timeout)
        watch(id(self), lambda: self.packer.pid)  # its work, on the command clock

    def cell(self, load: Load, n: int, seed: int, inputs: list[Any] | None = None) -> Cell:
        cases = self.inputs(load, n, seed) if inputs is None else inputs
        line = "".join(encode_case(case) + "\n" for case in cases).encode("ascii")
        where = where_of(load, n)

        def run(number: int) -> None:
            calls = number * len(cases)
            self.packer.timeout = self.timeout * calls
            try:
                self.packer.stream(line * number, calls)
            except PackerFault as exc:
                failed = f"{self.name} failed {where} (in {calls} case(s))"
                raise BenchError(f"{failed}: {exc}") from None

        def answer() -> object:
            self.packer.timeout = self.timeout
            answers = [without_partition(self.packer.answer(case)) for case in cases]
            return answers[0] if len(answers) == 1 else answers

        return Cell(run, answer, lambda: True, self.expected(cases), _SHAPE["case"])

    def close(self) -> None:
        unwatch(id(self))
        self.packer.close()


def as_subject(name: str, packer: Kernel | Subject) -> Subject:
    return packer if isinstance(packer, Subject) else KernelSubject(name, packer)


def python_subject(
    name: str,
    function: Callable[..., Any],
    kind: str | None = None,
    option: str = "--packer",
    limit: Limit | None = None,
    rule: Rule | None = None,
) -> Subject:
    """``function`` as a kernel or case subject (``kind``, else told by its signature or a
    small case each way), every call watched by ``limit``; :class:`SetupError` (one
    line, naming ``option``) when neither fits."""
    subject = CaseSubject(name, function, limit)
    subject.rule = rule
    if kind is None:
        tried = f"{option} {name!r} failed when tried on a small case"
        with nullcontext() if limit is None else limit.watching(tried):
            # Tried as a case-level packer, its refusal under the rule is an answer.
            kind = _kind(name, function, option, subject.refusing())
    if kind == "kernel":
        return KernelSubject(name, function, limit)
    return subject


def _kind(
    name: str, function: Callable[..., Any], option: str, case_level: Callable[[Any], Any]
) -> str:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # some builtins and extensions have none
        candidates = list(KINDS)
    else:
        arities = (("case", 1), ("kernel", 2))
        candidates = [kind for kind, arity in arities if _binds(signature, arity)]
    if len(candidates) == 1:
        return candidates[0]
    whys = [] if candidates else ["it takes neither one argument nor two"]
    for kind in candidates:
        try:
            if kind == "case":
                fits = isinstance(case_level(as_case(6, _PROBE_SIZES)), dict)
            else:
                fits = read_answer(function(6, np.array(_PROBE_SIZES, dtype=np.int64))) is not None
        except Exception as exc:
            whys.append(f"as a {kind}-level packer it raised {type(exc).__name__}: {exc}")
            continue
        if fits:
            return kind
        whys.append(f"as a {kind}-level packer it did not return {_SHAPE[kind]}")
    raise SetupError(
        f"{option} {name!r} is neither a case-level packer (case -> answer, as verify "
        f"takes) nor a kernel-level one (budget, int64 sizes -> (kept, remaining)): "
        f"{'; '.join(whys)}; say which with --kind"
    )


def _binds(signature: inspect.Signature, arity: int) -> bool:
    try:
        signature.bind(*range(arity))
    except TypeError:
        return False
    return True
