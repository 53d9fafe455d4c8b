"""Recorded runs for the audit tests: a clean run, and the same run with capture
defects planted on known lines (each defect a plausible capture bug)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from packcheck import trace
from packcheck.audit import record_step

Step = dict[str, Any]


def cases(count: int, seed: int = 9) -> list[dict[str, Any]]:
    """Small cases with repeated IDs, every bucket, and a few size errors."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        blocks = [
            {"id": rng.choice("ABCDEFGH"), "size": rng.choice([1, 2, 3, 5, 8, 13, 21])}
            for _ in range(rng.randrange(0, 9))
        ]
        if rng.random() < 0.03:
            blocks.append({"id": "Z", "size": 0})
        required = rng.sample("ABCDEFGHIJ", rng.randrange(0, 4))
        out.append({"budget": rng.randrange(0, 30), "blocks": blocks, "required": required})
    return out


def clean_run(count: int = 300) -> list[Step]:
    """A run as a recording system writes it: its own keys around each step."""
    steps = []
    for number, case in enumerate(cases(count)):
        step = {"step": number, "attempt": 1, "at": f"2026-11-30T04:{number % 60:02d}:00Z"}
        steps.append({**step, **record_step(case)})
    return steps


def _lists(step: Step) -> dict[str, list[str]]:
    return step["partition"]  # type: ignore[no-any-return]


def _only_packed(step: Step) -> None:
    step["partition"] = {"packed": _lists(step)["packed"], "available": [], "dropped": []}


def _swapped(step: Step) -> None:
    p = _lists(step)
    p["available"], p["dropped"] = p["dropped"], p["available"]


def _by_remaining(step: Step) -> None:
    p = _lists(step)
    p["dropped"] = [s.id for s in trace(step).steps if s.bucket != "packed"]
    p["available"] = []


def _deduped(step: Step) -> None:
    for name, ids in _lists(step).items():
        _lists(step)[name] = list(dict.fromkeys(ids))


def _sorted(step: Step) -> None:
    for name, ids in _lists(step).items():
        _lists(step)[name] = sorted(ids)


def _wrong_result(step: Step) -> None:
    step["result"] = {**step["result"], "remaining": step["result"]["remaining"] + 1}


#: Each defect: (expected check, change, does this step show it?).
DEFECTS: dict[str, tuple[str, Callable[[Step], None], Callable[[Step], bool]]] = {
    "absent": ("no-partition", lambda s: s.pop("partition"), lambda s: True),
    "null": ("no-partition", lambda s: s.update(partition=None), lambda s: True),
    "not-an-object": ("shape", lambda s: s.update(partition="A,B"), lambda s: True),
    "numbers": (
        "shape",
        lambda s: _lists(s).update(packed=list(range(len(_lists(s)["packed"])))),
        lambda s: bool(_lists(s)["packed"]),
    ),
    "extra-key": ("shape", lambda s: _lists(s).update(evicted=[]), lambda s: True),
    "only-packed": (
        "merged-by-position",
        _only_packed,
        lambda s: bool(_lists(s)["available"] or _lists(s)["dropped"]),
    ),
    "swapped": (
        "bucket",
        _swapped,
        lambda s: bool(_lists(s)["available"]) and bool(_lists(s)["dropped"]),
    ),
    "by-remaining": ("bucket", _by_remaining, lambda s: bool(_lists(s)["available"])),
    "deduped": (
        "packed-is-kept",
        _deduped,
        lambda s: len(set(_lists(s)["packed"])) < len(_lists(s)["packed"]),
    ),
    "sorted": (
        "packed-is-kept",
        _sorted,
        lambda s: _lists(s)["packed"] != sorted(_lists(s)["packed"]),
    ),
    "size-error-captured": (
        "size-error",
        lambda s: _lists(s).update(dropped=[b["id"] for b in s["blocks"]]),
        lambda s: "error" in s["result"] and bool(s["blocks"]),
    ),
    "wrong-result": ("result", _wrong_result, lambda s: "remaining" in s["result"]),
}


def planted_run(count: int = 300) -> tuple[list[Step], dict[int, str]]:
    """The clean run with each defect planted once; the 1-based lines and their checks."""
    steps = clean_run(count)
    planted: dict[int, str] = {}
    index = 5
    for check, change, applies in DEFECTS.values():
        while not applies(steps[index]):
            index += 1
        change(steps[index])
        planted[index + 1] = check
        index += 17
    assert index < count, "run too short for every defect"
    return steps, planted


def text(steps: list[Step]) -> str:
    return "".join(json.dumps(step) + "\n" for step in steps)
