"""Asking the packer whose rule is inferred: each case once, its answer made comparable
(a refusal as ``{"error": "refused"}``, a fault as no rule's answer)."""

from __future__ import annotations

import time
from collections.abc import Hashable
from typing import Any

from .._gate import SHOWN_WHOLE
from .._packers import Packer, PackerFault, PackerRefusal
from .._rule.declared import Rule
from .._rule.interpret import REFUSED, interpret_case
from .._rule.jsonio import dumps
from .._rule.model import Case, read_case

__all__ = ["FAULT", "Asker", "comparable", "rule_says"]

#: What a packer's fault compares as: equal to no rule's answer.
FAULT = ("fault",)


def comparable(answer: object, *, json: bool = False) -> Hashable:
    """``answer`` as a value that equals a rule's :func:`rule_says` exactly when the two
    are the same answer (``json``: a whole float ``remaining`` is its ``int``)."""
    if not isinstance(answer, dict):
        return FAULT
    if "error" in answer:
        return ("error", repr(answer["error"]))
    kept, left, missing = answer.get("kept"), answer.get("remaining"), answer.get("missing")
    if not isinstance(kept, list) or not isinstance(missing, list):
        return FAULT
    if json and isinstance(left, float) and left.is_integer():
        left = int(left)
    if isinstance(left, bool) or not isinstance(left, int):
        left = ("not an integer", repr(left))
    return (tuple(map(repr, kept)), left, tuple(map(repr, missing)))


def rule_says(rule: Rule, case: Case) -> Hashable:
    """The rule's answer to a case already read, comparable with :func:`comparable`."""
    return comparable(interpret_case(rule, case, result_only=True).result)


class Asker:
    """The packer's answers, each case asked once; ``cut``: the length of a list it took
    over a quarter of its timeout on, past which :meth:`too_long` says no."""

    def __init__(self, packer: Packer) -> None:
        self.packer = packer
        self.json = packer.speaks_json
        self.limit: float = packer.timeout
        self.answers: dict[str, Hashable] = {}
        self.raw: dict[str, object] = {}
        self.calls = 0
        self.faults = 0
        self.cut: int | None = None
        self.why_cut = ""

    def __call__(self, case: dict[str, Any]) -> Hashable:
        key = dumps(case)
        if key not in self.answers:
            self.calls += 1
            began = time.monotonic()
            try:
                raw: object = self.packer.answer(case)
            except PackerRefusal:
                raw = dict(REFUSED)
            except PackerFault as exc:
                raw = exc
            took = time.monotonic() - began
            length = len(case.get("blocks", ()))
            slow = took > self.limit / 4 and length > SHOWN_WHOLE
            if slow and not isinstance(raw, Exception) and (self.cut is None or length < self.cut):
                self.cut = length
                self.why_cut = f"took {took:.1f} s, more than a quarter of the timeout, on"
            self.raw[key] = raw
            self.answers[key] = comparable(raw, json=self.json)
            self.faults += self.answers[key] == FAULT
        return self.answers[key]

    def said(self, case: dict[str, Any]) -> object:
        """What the packer answered to ``case`` (asked before)."""
        return self.raw[dumps(case)]

    def too_long(self, length: int) -> bool:
        """Whether a list of ``length`` blocks is past the one the packer was slow on."""
        return self.cut is not None and length > self.cut

    def note(self) -> str | None:
        """Where the lists stopped lengthening, and why; ``None`` if they never did."""
        if self.cut is None:
            return None
        return (
            f"long lists cut at {self.cut:,} blocks: the packer {self.why_cut} a list of "
            f"{self.cut:,} blocks; a longer timeout raises the limit"
        )


def readable(case: dict[str, Any]) -> Case:
    """A case built here, read (its units are valid by construction)."""
    read = read_case(case)
    assert isinstance(read, Case), read  # Invariant: built with valid units.
    return read
