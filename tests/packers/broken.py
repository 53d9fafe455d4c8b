"""Packers for testing the gate: one correct re-implementation, and mutants of it.

Written from docs/rule.md without packcheck's code, so the gate is tested against an
independent implementation.  Each mutant differs from :func:`correct` in exactly one
way, named after a bug real packers have.
"""

from __future__ import annotations

import functools
import itertools
import time
import unicodedata
from typing import Any

import numpy as np


def _utf16(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


def _same(text: str) -> str:
    return text


def _is_unit(
    value: object, least: int, *, bool_is_int: bool = False, digit_strings: bool = False
) -> bool:
    if isinstance(value, bool) and not bool_is_int:
        return False
    if digit_strings and isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return False
    if isinstance(value, float):
        return value.is_integer() and value >= least
    return isinstance(value, int) and value >= least


def make(
    *,
    fits: Any = lambda size, left: size <= left,
    sort_key: Any = _utf16,
    dedup: bool = False,
    number: Any = int,
    bool_is_int: bool = False,
    stop_early: bool = False,
    validate_when_exhausted: bool = True,
    zero_as_float: bool = False,
    id_key: Any = _same,
    digit_strings: bool = False,
    dedup_kept: bool = False,
    skip_repeated: bool = False,
) -> Any:
    """A packer with one knob turned; the defaults give the declared rule."""

    def packer(case: dict[str, Any]) -> dict[str, Any]:
        budget = case.get("budget")
        if not _is_unit(budget, 0, bool_is_int=bool_is_int, digit_strings=digit_strings):
            return {"error": "size"}
        left = number(float(budget) if isinstance(budget, str) else budget)
        kept: list[str] = []
        for block in case["blocks"]:
            size = block.get("size")
            if not validate_when_exhausted and left == 0:
                break
            if not _is_unit(size, 1, bool_is_int=bool_is_int, digit_strings=digit_strings):
                return {"error": "size"}
        for block in case["blocks"]:
            size = block["size"]
            size = number(float(size) if isinstance(size, str) else size)
            if skip_repeated and block["id"] in kept:
                continue
            if fits(size, left):
                if not (dedup_kept and block["id"] in kept):
                    kept.append(block["id"])
                left = number(left - size)
            elif stop_early:
                break
        seen = {id_key(k) for k in kept}
        wanted = [w for w in case["required"] if id_key(w) not in seen]
        missing = sorted(set(wanted) if dedup else wanted, key=sort_key)
        remaining = int(left)
        return {
            "kept": kept,
            "remaining": 0.0 if zero_as_float and not remaining else remaining,
            "missing": missing,
        }

    return packer


def _wrap64(value: float | int) -> int:
    return (int(value) + 2**63) % 2**64 - 2**63


correct = make()
stop_at_first_misfit = make(stop_early=True)
python_sorted_missing = make(sort_key=None)
float_arithmetic = make(number=float)
int64_wrap = make(number=_wrap64)
missing_dedup = make(dedup=True)
less_than = make(fits=lambda size, left: size < left)
skip_validation_when_exhausted = make(validate_when_exhausted=False)
zero_remaining_as_float = make(zero_as_float=True)
true_is_one = make(bool_is_int=True)
digit_string_units = make(digit_strings=True)
kept_dedup = make(dedup_kept=True)
skip_repeated_ids = make(skip_repeated=True)
# IDs compared loosely: "a" is "A", " A" is "A", "e\u0301" is "\u00e9".
casefold_ids = make(id_key=str.casefold)
lower_ids = make(id_key=str.lower)
stripped_ids = make(id_key=str.strip)
nfc_ids = make(id_key=functools.partial(unicodedata.normalize, "NFC"))


def functional(case: dict[str, Any]) -> dict[str, Any]:
    """The rule again, folded with ``functools.reduce`` (a different style)."""
    sizes = [block.get("size", None) for block in case["blocks"]]
    units = [case.get("budget"), *sizes]
    floors = itertools.chain([0], itertools.repeat(1))
    if not all(
        type(u) in (int, float) and float(u).is_integer() and u >= floor
        for u, floor in zip(units, floors, strict=False)
    ):
        return {"error": "size"}

    def step(state: tuple[int, tuple[str, ...]], block: dict[str, Any]) -> Any:
        left, kept = state
        size = int(block["size"])
        return (left - size, (*kept, block["id"])) if size <= left else state

    left, kept = functools.reduce(step, case["blocks"], (int(case["budget"]), ()))
    missing = sorted((w for w in case["required"] if w not in kept), key=_utf16)
    return {"kept": list(kept), "remaining": left, "missing": missing}


# Faults: answers that are not the declared output, and packers that misbehave.


def tuple_kept(case: dict[str, Any]) -> Any:
    out = correct(case)
    return out if "error" in out else {**out, "kept": tuple(out["kept"])}


def numpy_remaining(case: dict[str, Any]) -> Any:
    out = correct(case)
    return out if "error" in out else {**out, "remaining": np.int64(out["remaining"])}


def float_remaining(case: dict[str, Any]) -> Any:
    out = correct(case)
    return out if "error" in out else {**out, "remaining": float(out["remaining"])}


def extra_key(case: dict[str, Any]) -> Any:
    return {**correct(case), "engine": "mine"}


def mutates_input(case: dict[str, Any]) -> Any:
    out = correct(case)
    case["blocks"].reverse()
    return out


def raises(case: dict[str, Any]) -> Any:
    if len(case["blocks"]) > 1:
        raise RuntimeError("packer exploded")
    return correct(case)


def exits(case: dict[str, Any]) -> Any:
    raise SystemExit(3)


def hangs(case: dict[str, Any]) -> Any:
    if len(case["blocks"]) > 1:
        time.sleep(3600)
    return correct(case)


def hangs_on_long_lists(case: dict[str, Any]) -> Any:
    if len(case["blocks"]) > 12:  # longer than any generated case
        time.sleep(3600)
    return correct(case)


def hangs_past_two_blocks(case: dict[str, Any]) -> Any:
    if len(case["blocks"]) > 2:
        time.sleep(3600)
    return correct(case)


def unpicklable(case: dict[str, Any]) -> Any:
    return {**correct(case), "kept": (lambda: None)} if case["blocks"] else correct(case)


def prints(case: dict[str, Any]) -> Any:
    print("debug output the gate must not mistake for an answer")
    return correct(case)
