"""What a recorded step lost: the required IDs that its record does not show kept.

A record shows what its step kept in its recorded result's ``kept`` or, with no result
recorded, its partition's ``packed``.  Where that is what the rule keeps, the step lost
what the rule loses, for the rule's reasons.  Where it is not, the step lost the
required IDs it did not keep; a reason is named only where the case alone gives it
(``not-retrieved``: no block has the ID; under packcheck's own rule ``oversized``: every
block with it is larger than the budget), else it is ``unknown``.  A record that shows
no list of kept IDs leaves what its step lost unknown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from .._partition.ruled import RuledExpected
from .._partition.trace import Expected, Reason
from .._rule.order import all_same_utf16, missing_ids

#: Why a step that kept other than the rule keeps lost an ID the case does not explain.
UNKNOWN: Literal["unknown"] = "unknown"
#: A lost ID's reason: one of the rule's, or :data:`UNKNOWN`.
Lost = Reason | Literal["unknown"]
#: A reason's words under a declared rule, for a step that kept other than the rule.
_WORDS: dict[str, str] = {
    "not-retrieved": "no block has it",
    UNKNOWN: "the step kept other than the rule keeps, so why is unknown",
}


def shown_kept(
    record: Mapping[str, Any], result_right: bool, partition_right: bool
) -> list[str] | Literal[True] | None:
    """What the record shows its step kept: ``True`` for what the rule keeps (its
    result, or with none its partition, is the rule's: ``result_right``,
    ``partition_right``), else the list of IDs it shows, else ``None``."""
    if "result" in record:
        if result_right:
            return True
        shown, key = record["result"], "kept"
    else:
        if partition_right:
            return True
        shown, key = record.get("partition"), "packed"
    kept = shown.get(key) if isinstance(shown, dict) else None
    if isinstance(kept, list) and all(type(block_id) is str for block_id in kept):
        return kept
    return None


def losses(
    record: Mapping[str, Any], kept: list[str], reference: Expected | RuledExpected, own: bool
) -> dict[str, Lost]:
    """The distinct required IDs not among ``kept``, the IDs the record shows its step
    kept (other than the rule keeps), in the order ``missing`` lists them, each with
    the reason the case gives (``own``: under packcheck's own rule), else
    :data:`UNKNOWN`.  O(n + r log r) in blocks and required IDs."""
    ids = set(all_same_utf16([block["id"] for block in record["blocks"]]))
    # Under packcheck's own rule, dropped is larger than the budget: the case says so.
    oversized = set(reference.dropped).difference(
        reference.available, reference.result.get("kept") or ()
    )
    found: dict[str, Lost] = {}
    for block_id in missing_ids(all_same_utf16(record["required"]), all_same_utf16(kept)):
        if block_id not in ids:
            found[block_id] = "not-retrieved"
        elif own and block_id in oversized:
            found[block_id] = "oversized"
        else:
            found[block_id] = UNKNOWN
    return found


def words(block_id: str, reason: Lost) -> str:
    """Under a declared rule, why ``block_id`` is missing from a step that kept other
    than the rule keeps."""
    return _WORDS[reason]
