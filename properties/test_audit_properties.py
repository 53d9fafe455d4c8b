"""The audit's shortcuts give what the full checkers give, line for line.

``Audit`` compares each step with the reference's answer and partition, and runs the
full checkers (and their messages) only where a check may fail; it skips the second
read and write of the round trip when the record is written as the very line it came
from.  Here it is compared with the audit as first written: a whole trace per step,
every checker on every step, the round trip always in full.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st
from test_partition_properties import step_texts

from packcheck import trace
from packcheck._partition.facts import PartitionError, check_partition
from packcheck._partition.invariants import InvariantError, check_output
from packcheck._partition.keys import Keyed
from packcheck._rule.jsonio import JSONError, dumps, loads
from packcheck._rule.order import same_utf16
from packcheck.audit import Audit, Violation, record_step
from packcheck.audit._check import _label
from packcheck.strategies import cases


class _FullAudit(Audit):
    """Every check in full on every step, from a whole trace."""

    def _check_step(
        self, record: dict[str, Any], at: tuple[int, str | None], reference: Any, text: str
    ) -> list[Violation]:
        full = trace(record)
        self.steps += 1
        label = _label(record)
        found: list[tuple[str, str]] = []
        written = dumps(record)
        try:
            again = dumps(loads(written))
        except JSONError as exc:
            again = f"unreadable ({exc})"
        if again != written:
            found.append(
                ("round-trip", f"written back as {written[:60]}, read again as {again[:60]}")
            )
        kept = None
        right = True
        if "result" in record:
            try:
                check_output(record, _twice(text, "result") or record["result"])
            except InvariantError as exc:
                found.append(("result", f"{exc.invariant}: {exc.detail}"))
                right = False
            else:
                result = record["result"]
                kept = [same_utf16(i) for i in result["kept"]] if "kept" in result else None
        try:
            if record.get("partition") is None:
                why = "it is null" if "partition" in record else "the step has no 'partition'"
                raise PartitionError("no-partition", f"no partition captured: {why}")
            partition = _twice(text, "partition") or record["partition"]
            check_partition(record, partition, kept=kept, reference=full.partition)
        except PartitionError as exc:
            found.insert(0, (exc.check, exc.detail))
            # Without a result, the partition shows what the step kept.
            right = right and "result" in record
        else:
            self.correct += 1
        left_out = bool(full.partition.available or full.partition.dropped)
        self._tally(left_out, _lost(record, full, right, self), at, label)
        self.violations += len(found)
        return [Violation(at[0], check, message, label, at[1]) for check, message in found]


def _twice(text: str, key: str) -> Keyed | None:
    """The object at ``key`` of the record ``text``, read with the keys it gives more
    than once, if it gives any."""

    def keyed(pairs: list[tuple[str, Any]]) -> Keyed:
        out = Keyed(pairs)
        keys = [key for key, _ in pairs]
        out.twice = tuple(k for k in dict.fromkeys(keys) if keys.count(k) > 1)
        return out

    try:
        found = json.loads(text, object_pairs_hook=keyed, parse_float=Decimal)[key]
    except Exception:  # not so read: it was read before
        return None
    return found if isinstance(found, Keyed) and found.twice else None


def _lost(record: dict[str, Any], full: Any, right: bool, audit: Audit) -> dict[str, Any]:
    """What the step lost, as its record shows it: the rule's losses where the record
    is right or keeps what the rule keeps; else each required ID it did not keep, for
    the reason the case alone gives, or "unknown"; nothing (the step counted as
    unknown) where the record shows no list of kept IDs."""
    if right:
        return full.reasons
    if "result" in record:
        shown = record["result"].get("kept") if isinstance(record["result"], dict) else None
    else:
        partition = record.get("partition")
        shown = partition.get("packed") if isinstance(partition, dict) else None
    if not isinstance(shown, list) or not all(isinstance(i, str) for i in shown):
        audit.unknown += 1
        return {}
    kept = [same_utf16(i) for i in shown]
    if kept == full.result.get("kept"):
        return full.reasons
    lost: dict[str, Any] = {}
    missing = [same_utf16(i) for i in record["required"] if same_utf16(i) not in kept]
    ids = [same_utf16(block["id"]) for block in record["blocks"]]
    for block_id in sorted(missing, key=lambda i: i.encode("utf-16-be", "surrogatepass")):
        sizes = [s.size for s in full.steps if s.id == block_id]
        if block_id not in ids:
            lost[block_id] = "not-retrieved"
        elif not full.size_error and all(size > record["budget"] for size in sizes):
            lost[block_id] = "oversized"
        else:
            lost[block_id] = "unknown"
    return lost


def _both(lines: Iterable[bytes | str]) -> None:
    fast, full = Audit(), _FullAudit()
    for number, line in enumerate(lines, start=1):
        assert fast.check_line(line, number) == full.check_line(line, number)
    assert fast.summary() == full.summary()


def _wrong(record: dict[str, Any], how: int) -> dict[str, Any]:
    """``record`` with its result or partition changed one way of several."""
    record = dict(record)
    result, partition = record["result"], record["partition"]
    if how == 1 and "remaining" in result:
        record["result"] = {**result, "remaining": result["remaining"] + 1}
    elif how == 2 and "remaining" in result:
        record["result"] = {**result, "remaining": result["remaining"] == 1 or result["remaining"]}
    elif how == 3 and "kept" in result:
        record["result"] = {**result, "kept": result["kept"][::-1]}
    elif how == 4 and "missing" in result:
        record["result"] = {**result, "missing": [*result["missing"], "absent"]}
    elif how == 5:
        record["result"] = {"error": "size"}
    elif how == 6:
        record["partition"] = {**partition, "packed": partition["available"]}
    elif how == 7:
        record["partition"] = {**partition, "dropped": [*partition["dropped"], "x"]}
    elif how == 8:
        record["partition"] = {k: partition[k] for k in ("dropped", "packed", "available")}
    elif how == 9:
        record["partition"] = None
    elif how == 10:
        del record["result"]
    elif how == 11 and "kept" in result:
        record["result"] = {**result, "partition": partition}
    return record


@given(cases(max_units=2**70), st.integers(0, 12), st.booleans())
@example({"budget": 3, "blocks": [{"id": "A", "size": 4}], "required": ["A", "B"]}, 0, False)
def test_recorded_steps_audit_as_in_full(case: dict[str, Any], how: int, spaced: bool) -> None:
    line = dumps(_wrong(record_step(case), how))
    # Written by packcheck, or with spaces after commas: not the line written back.
    _both([line.replace(',"', ', "') if spaced else line])


@given(st.lists(step_texts(), max_size=4))
def test_any_steps_audit_as_in_full(lines: list[bytes]) -> None:
    _both(lines)


def test_the_comparison_can_fail() -> None:
    # A checker of the checker: an audit that counts a wrong result as correct.
    class Lenient(Audit):
        def _check_step(self, record: dict[str, Any], *args: Any) -> list[Violation]:
            record.pop("result", None)
            return super()._check_step(record, *args)

    line = dumps(_wrong(record_step({"budget": 1, "blocks": [], "required": []}), 1))
    fast, full = Lenient(), _FullAudit()
    assert fast.check_line(line, 1) != full.check_line(line, 1)


def test_records_nested_near_the_recursion_limit_audit_as_in_full() -> None:
    # Read at one depth of the stack, read again one call deeper by the round trip: at
    # the edge the second read fails, and the audit must say so as the full one does.
    lines = [
        '{"budget":1,"blocks":[],"required":[],"x":' + "[" * depth + "]" * depth + "}"
        for depth in range(900, 1000)
    ]
    _both(lines)
    full = _FullAudit()
    checks = {v.check for n, line in enumerate(lines, 1) for v in full.check_line(line, n)}
    assert "round-trip" in checks  # the edge is inside the range
