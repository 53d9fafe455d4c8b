"""What the faces of ``verify`` and ``diff`` share: ``check`` and a phase's count."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar, overload

from .outcome import Outcome

__all__ = ["PhaseCases", "raising"]

_P = ParamSpec("_P")
_O = TypeVar("_O", bound=Outcome)


def raising(run: Callable[_P, _O]) -> Callable[[Callable[[_O], None]], Callable[_P, _O]]:
    """``run`` then ``fail(outcome)``, returning the outcome: ``fail``'s name and
    docstring, ``run``'s signature."""

    def decorate(fail: Callable[[_O], None]) -> Callable[_P, _O]:
        def check(*args: _P.args, **kwargs: _P.kwargs) -> _O:
            outcome = run(*args, **kwargs)
            fail(outcome)
            return outcome

        functools.update_wrapper(
            check, fail, assigned=("__module__", "__name__", "__qualname__", "__doc__")
        )
        # Last, so that __wrapped__ (the signature inspect shows) is run's.
        return functools.update_wrapper(check, run, assigned=("__annotations__",), updated=())

    return decorate


class PhaseCases:
    """A summary's attribute: the cases checked in one phase (read only)."""

    def __init__(self, phase: str) -> None:
        self.phase = phase

    @overload
    def __get__(self, outcome: None, owner: type[Outcome]) -> PhaseCases: ...
    @overload
    def __get__(self, outcome: Outcome, owner: type[Outcome] | None = None) -> int: ...
    def __get__(
        self, outcome: Outcome | None, owner: type[Outcome] | None = None
    ) -> PhaseCases | int:
        return self if outcome is None else outcome.checked[self.phase]
