"""What every packer adapter is (:class:`Packer`), the fault it raises
(:class:`PackerFault`) and a case kept as its parts (:class:`Recipe`)."""

from __future__ import annotations

import math
from abc import abstractmethod
from typing import Any, Protocol, runtime_checkable


class PackerFault(Exception):
    """The packer failed on one case (raised, died, timed out, ...); one line."""


class PackerRefusal(PackerFault):
    """A Python packer raised :class:`ValueError`: its refusal where a declared rule
    refuses the case, anywhere else a fault."""


class Recipe(Protocol):
    """A case the caller keeps as its parts, picklable: each :meth:`build` is a new
    ``dict`` that nothing else refers to."""

    def build(self) -> dict[str, Any]:
        """A new case."""
        ...  # pragma: no cover - protocol

    def holds(self, case: object) -> bool:
        """Whether ``case``, made by :meth:`build`, is still exactly as built."""
        ...  # pragma: no cover - protocol

    def line(self) -> str:
        """The case as :func:`~packcheck._rule.jsonio.dumps` writes :meth:`build`'s, to the byte."""
        ...  # pragma: no cover - protocol


@runtime_checkable
class Packer(Protocol):
    """What the gate needs from a packer under test; a class that derives from it need
    only define :meth:`answer`."""

    #: Whether its answers are JSON text (``4`` may be Python's ``4.0``).
    speaks_json: bool = False
    #: Its seconds a case (``math.inf``: none).
    timeout: float = math.inf

    @abstractmethod
    def answer(self, case: dict[str, Any]) -> object:
        """The packer's output for ``case``; raises :class:`PackerFault`."""
        ...  # pragma: no cover - protocol

    def answer_built(self, recipe: Recipe) -> object:
        """:meth:`answer` for the case ``recipe`` builds, for this call alone."""
        return self.answer(recipe.build())

    def close(self) -> None:
        """Release the packer (end its process, if any)."""
