"""A packer wrong on a rare shape only (three or more blocks kept, 1 left over modulo
17): of seeds 1-8 at 30 generated cases without the long lists, only seed 5 finds it."""

from __future__ import annotations

from typing import Any

from broken import correct


def rare(case: dict[str, Any]) -> Any:
    out = correct(case)
    if "error" not in out and len(out["kept"]) >= 3 and out["remaining"] % 17 == 1:
        return {**out, "remaining": out["remaining"] - 1}
    return out
