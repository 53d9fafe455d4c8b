"""What a packer did on one case (an answer, a raise, a fault), and whether two did the
same (docs/diff.md, "What is compared")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from .._gate.plain_case import PlainCase
from .._packers import Packer, PackerFault
from .._rule.jsonio import show
from .._rule.same import same

__all__ = [
    "Outcome",
    "alike",
    "differences",
    "outcome",
    "parting",
    "parting_block",
]

_RAISED = re.compile(r"raised ([\w.]+): ")
# An exception's name at the start of a stderr line: "TypeError: ...", "Uncaught
# RangeError: ...", 'Exception in thread "main" java.lang.IllegalStateException: ...'.
_EXCEPTION = re.compile(
    r"^(?:Uncaught |Exception in thread \"[^\"]*\" )?"
    r"((?:[A-Za-z_$][\w$]*\.)*[\w$]*(?:Error|Exception))(?::|$)"
)


@dataclass(frozen=True, slots=True)
class Outcome:
    """One side's behaviour on one case: the answer or the fault; ``raised`` names a
    raise's type (raised, or named on a process's stderr)."""

    kind: Literal["answer", "raise", "fault"]
    value: Any
    raised: str | None = None
    detail: str | None = None

    def describe(self) -> str:
        """``raised ValueError: budget 0`` or the fault's first line."""
        if self.detail is not None:
            return self.detail
        return str(self.value).splitlines()[0].removesuffix("; stderr:")


def _exception_named(fault: PackerFault) -> tuple[str, str | None] | None:
    """The exception type a fault says was raised, and the words to say it in."""
    text = str(fault)
    found = _RAISED.match(text)
    if found:
        return found.group(1), None
    if not text.startswith("exited with status"):
        return None
    stderr = text.partition("; stderr:")[2]
    lines = [line.removeprefix("  | ").strip() for line in stderr.splitlines()]
    named = [(match.group(1), line) for line in lines if (match := _EXCEPTION.match(line))]
    if not named:
        return None
    name, line = named[-1]
    status = text.split(";")[0]
    return name, f"raised {line if len(line) <= 200 else line[:197] + '...'} ({status})"


def outcome(packer: Packer, case: dict[str, Any] | PlainCase) -> Outcome:
    """What ``packer`` did on ``case``."""
    try:
        if isinstance(case, PlainCase):
            return Outcome("answer", packer.answer_built(case))
        return Outcome("answer", packer.answer(case))
    except PackerFault as fault:
        named = _exception_named(fault)
        if named is None:
            return Outcome("fault", fault)
        return Outcome("raise", fault, *named)


def differences(new: Outcome, old: Outcome, *, json_numbers: bool = False) -> tuple[str, ...]:
    """Why NEW's and OLD's outcomes differ, one line each: a fault agrees with nothing,
    answers must be equal as JSON with exact types, raises of the same type."""
    faults = tuple(
        f"{side}'s fault: {one.describe()}"
        for side, one in (("NEW", new), ("OLD", old))
        if one.kind == "fault"
    )
    if faults:
        return faults
    if new.kind == "answer" and old.kind == "answer":
        if same(new.value, old.value, json=json_numbers):
            return ()
        return ("output: NEW and OLD answer differently (exact JSON and types)",)
    if new.kind == "raise" and old.kind == "raise":
        if new.raised == old.raised:
            return ()
        return (f"exception: NEW {new.describe()}; OLD {old.describe()}",)
    side, one = ("NEW", new) if new.kind == "raise" else ("OLD", old)
    other = "OLD" if side == "NEW" else "NEW"
    return (f"exception: {side} {one.describe()}, where {other} answers",)


def alike(new: Outcome, old: Outcome) -> bool:
    """Both sides faulted the same way, said in the same first line."""
    return (
        new.kind == old.kind == "fault"
        and type(new.value) is type(old.value)
        and new.describe() == old.describe()
    )


def _parting(new: Outcome, old: Outcome) -> tuple[int, Any, Any] | None:
    """The first position at which NEW's and OLD's ``kept`` lists differ (an entry, or
    one ending first), and the two lists; ``None`` unless both answer with a list."""
    if new.kind != "answer" or old.kind != "answer":
        return None
    ours, theirs = (o.value.get("kept") if isinstance(o.value, dict) else None for o in (new, old))
    if not isinstance(ours, list | tuple) or not isinstance(theirs, list | tuple):
        return None
    for position, (one, other) in enumerate(zip(ours, theirs, strict=False)):
        if not same(one, other):
            return position, ours, theirs
    if len(ours) == len(theirs):
        return None
    return min(len(ours), len(theirs)), ours, theirs


def parting(new: Outcome, old: Outcome) -> str | None:
    """Where NEW's and OLD's ``kept`` lists first part, in words."""
    found = _parting(new, old)
    if found is None:
        return None
    position, ours, theirs = found
    if position < min(len(ours), len(theirs)):
        one, other = ours[position], theirs[position]
        return f"kept[{position}]: NEW has {show(one, 40)}, OLD has {show(other, 40)}"
    longer, shorter = ("NEW", "OLD") if len(ours) > len(theirs) else ("OLD", "NEW")
    extra = (ours if longer == "NEW" else theirs)[position]
    entries = f"entr{'y' if position == 1 else 'ies'}"
    return (
        f"kept[{position}]: {shorter} ends after {position} {entries}; {longer} goes on "
        f"with {show(extra, 40)}"
    )


def parting_block(case: Any, new: Outcome, old: Outcome) -> int | None:
    """The index of the last block named where the ``kept`` lists part, if every entry
    named there is the ID of exactly one block."""
    found = _parting(new, old)
    blocks = case.get("blocks") if isinstance(case, dict) else None
    if found is None or not isinstance(blocks, list):
        return None
    position, *lists = found
    named = [kept[position] for kept in lists if position < len(kept)]
    where: dict[str, int] = {}
    repeated: set[str] = set()
    for index, block in enumerate(blocks):
        block_id = block.get("id") if isinstance(block, dict) else None
        if isinstance(block_id, str):
            if block_id in where:
                repeated.add(block_id)
            where[block_id] = index
    if not all(type(entry) is str and entry in where and entry not in repeated for entry in named):
        return None
    return max(where[entry] for entry in named)
