"""Packers that capture their partition (docs/rule.md): correct ones, and bugs.

Written from docs/rule.md without packcheck's code.  Each bug is a plausible capture
mistake on top of a correct result, so only the partition checks can catch it;
``BUGS`` maps each to the fact ``verify --partition`` must name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Lists = dict[str, list[Any]]


def _unit(value: object, least: int) -> bool:
    if isinstance(value, float):
        return value.is_integer() and value >= least
    return type(value) is int and value >= least


def declared(case: dict[str, Any]) -> dict[str, Any]:
    """The declared output, written again (integral floats are units)."""
    blocks = case["blocks"]
    if not _unit(case.get("budget"), 0) or not all(_unit(b.get("size"), 1) for b in blocks):
        return {"error": "size"}
    left = int(case["budget"])
    kept = []
    for block in blocks:
        if int(block["size"]) <= left:
            kept.append(block["id"])
            left -= int(block["size"])
    missing = [wanted for wanted in case["required"] if wanted not in kept]
    missing.sort(key=lambda text: text.encode("utf-16-be", "surrogatepass"))
    return {"kept": kept, "remaining": left, "missing": missing}


def _capture(case: dict[str, Any], result: dict[str, Any]) -> Lists:
    budget = int(case["budget"])
    left = budget
    lists: Lists = {"packed": [], "available": [], "dropped": []}
    for block in case["blocks"]:
        size = int(block["size"])
        if size <= left:
            lists["packed"].append(block["id"])
            left -= size
        elif size <= budget:
            lists["available"].append(block["id"])
        else:
            lists["dropped"].append(block["id"])
    assert lists["packed"] == result["kept"]
    return lists


def capturing(
    change: Callable[[dict[str, Any], Lists], Any] = lambda case, lists: lists,
    *,
    on_error: bool = False,
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A packer returning its result plus ``change(case, correct lists)`` as partition."""

    def packer(case: dict[str, Any]) -> dict[str, Any]:
        result = declared(case)
        if "error" in result:
            return (
                {**result, "partition": {"packed": [], "available": [], "dropped": []}}
                if on_error
                else result
            )
        return {**result, "partition": change(case, _capture(case, result))}

    return packer


def _dedup(ids: list[Any]) -> list[Any]:
    return list(dict.fromkeys(ids))


correct = capturing()
# Keys in another order, and the partition first: order inside an object is free.
reordered = capturing(
    lambda case, p: {"dropped": p["dropped"], "packed": p["packed"], "available": p["available"]}
)


def partition_first(case: dict[str, Any]) -> dict[str, Any]:
    out = correct(case)
    return {"partition": out.pop("partition"), **out} if "partition" in out else out


# Capture bugs, each on a correct result.
only_packed = capturing(lambda case, p: {"packed": p["packed"], "available": [], "dropped": []})
only_packed_key = capturing(lambda case, p: {"packed": p["packed"]})
swapped = capturing(lambda case, p: {**p, "available": p["dropped"], "dropped": p["available"]})


def _by_remaining(case: dict[str, Any], p: Lists) -> Lists:
    # "Dropped" decided against what is left, not the budget: every skip is dropped.
    skipped = [b["id"] for b in case["blocks"]]
    for kept in p["packed"]:
        skipped.remove(kept)
    return {"packed": p["packed"], "available": [], "dropped": skipped}


dropped_by_remaining = capturing(_by_remaining)
deduped = capturing(lambda case, p: {name: _dedup(ids) for name, ids in p.items()})
sorted_lists = capturing(lambda case, p: {name: sorted(ids) for name, ids in p.items()})
on_error = capturing(on_error=True)
null_partition = capturing(lambda case, p: None)
available_with_kept = capturing(
    lambda case, p: {
        **p,
        "available": [b["id"] for b in case["blocks"] if b["size"] <= case["budget"]],
    }
)
block_text = capturing(
    lambda case, p: {name: [b for b in case["blocks"] if b["id"] in ids] for name, ids in p.items()}
)
last_block_lost = capturing(
    lambda case, p: {
        name: [i for i in ids if i != case["blocks"][-1]["id"]] for name, ids in p.items()
    }
)
tuples = capturing(lambda case, p: {name: tuple(ids) for name, ids in p.items()})
no_partition = declared  # passes without --partition, fails with it

#: Each bug and the fact ``verify --partition`` names first.
BUGS = {
    "only_packed": "merged by position",
    "only_packed_key": "shape",
    "swapped": "bucket follows from size, budget and remaining",
    "dropped_by_remaining": "bucket follows from size, budget and remaining",
    "deduped": "merged by position",
    "sorted_lists": "merged by position",
    "on_error": "none on a size error",
    "null_partition": "present",
    "available_with_kept": "merged by position",
    "block_text": "shape",
    "last_block_lost": "merged by position",
    "tuples": "shape",
    "no_partition": "present",
}
