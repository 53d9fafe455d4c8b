"""Cases the test packages share, and a short way to write the blocks of one."""

from __future__ import annotations

from typing import Any


def blocks(*sizes: Any, ids: str) -> list[dict[str, Any]]:
    """A block per size, the ``i``-th named by ``ids[i]`` (one character an ID)."""
    return [{"id": block_id, "size": size} for block_id, size in zip(ids, sizes, strict=True)]


#: The seed fixture distractor-first: a large block first takes the room of the two
#: required after it, which the rule keeps.
DISTRACTOR = {"budget": 7, "blocks": blocks(4, 3, 2, ids="ABC"), "required": ["B", "C"]}
