"""Known facts of the rule (docs/rule.md), pinned as examples, not asserted away.

More budget does not mean a superset is kept, and a larger budget can evict a required
block that a smaller budget packed.  Each fact is pinned with the exact cases.
"""

from __future__ import annotations

from typing import Any

from packcheck import pack, trace


def _case(budget: int, sizes: list[int], required: list[str]) -> dict[str, Any]:
    ids = "ABCDEF"
    return {
        "budget": budget,
        "blocks": [{"id": ids[i], "size": s} for i, s in enumerate(sizes)],
        "required": required,
    }


def test_more_budget_can_keep_fewer_blocks() -> None:
    sizes = [5, 1, 1, 1, 1, 1]
    assert pack(_case(4, sizes, []))["kept"] == ["B", "C", "D", "E"]
    assert pack(_case(5, sizes, []))["kept"] == ["A"]


def test_a_larger_budget_can_evict_a_required_block_a_smaller_one_packed() -> None:
    assert pack(_case(6, [4, 3, 2], ["C"])) == {"kept": ["A", "C"], "remaining": 0, "missing": []}
    seven = _case(7, [4, 3, 2], ["C"])
    assert pack(seven) == {"kept": ["A", "B"], "remaining": 0, "missing": ["C"]}
    assert trace(seven).reasons == {"C": "evicted"}
