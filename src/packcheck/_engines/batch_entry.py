"""``pack_batch``'s one signature, which the NumPy and the compiled engine both offer."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, overload

import numpy as np
import numpy.typing as npt

from .._rule.declared import Rule

if TYPE_CHECKING:
    from .rule_batch import RuleBatch

#: A batch's answer under the seed's rule: one kept flag per block, each case's remaining.
Answers = tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]


class BatchPacker:
    """Pack many cases in one call: case ``i`` is ``sizes[offsets[i]:offsets[i + 1]]``.

    Returns one kept flag per entry of ``sizes`` and each case's remaining (int64), as
    packing each alone gives; budgets and remainings must fit int64.  With ``rule``, a
    :class:`packcheck.scan.RuleBatch` (``ids`` and ``wanted`` as
    :func:`packcheck._engines.rule_batch.pack_rule_batch` takes them).
    """

    __slots__ = ("_compiled", "_plain")

    def __init__(
        self,
        plain: Callable[[npt.ArrayLike, npt.ArrayLike, npt.ArrayLike], Answers],
        *,
        compiled: bool,
    ) -> None:
        self._plain = plain
        self._compiled = compiled

    @overload
    def __call__(
        self, budgets: npt.ArrayLike, sizes: npt.ArrayLike, offsets: npt.ArrayLike
    ) -> Answers: ...

    @overload
    def __call__(
        self,
        budgets: npt.ArrayLike,
        sizes: npt.ArrayLike,
        offsets: npt.ArrayLike,
        *,
        rule: Rule,
        ids: npt.ArrayLike | None = None,
        wanted: npt.ArrayLike | None = None,
    ) -> RuleBatch: ...

    def __call__(
        self,
        budgets: npt.ArrayLike,
        sizes: npt.ArrayLike,
        offsets: npt.ArrayLike,
        *,
        rule: Rule | None = None,
        ids: npt.ArrayLike | None = None,
        wanted: npt.ArrayLike | None = None,
    ) -> Answers | RuleBatch:
        if rule is None:
            return self._plain(budgets, sizes, offsets)
        # Imported here: the rule's kernels build on the engines.
        from .rule_batch import pack_rule_batch

        return pack_rule_batch(rule, budgets, sizes, offsets, ids, wanted, compiled=self._compiled)
