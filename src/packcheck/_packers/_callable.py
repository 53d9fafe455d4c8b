"""A Python function called in this process: its own copy of each case, a change located."""

from __future__ import annotations

import os
import pickle
import traceback
from collections.abc import Callable
from operator import countOf
from pathlib import Path
from typing import Any

from .._rule.model import plain_columns
from .._stop import check
from ._packer import Packer, PackerFault, PackerRefusal, Recipe

#: packcheck's own package: its frames are never the place a packer raised.
_OWN = os.path.join(str(Path(__file__).resolve().parents[1]), "")


def _raised_at(exc: BaseException) -> str:
    """Where ``exc`` was raised in the packer's own code, `` (at FILE:LINE)``: the
    innermost frame of its traceback outside packcheck, its file relative to the
    working directory when under it; empty when every frame is packcheck's."""
    frames = [
        (frame.f_code.co_filename, line)
        for frame, line in traceback.walk_tb(exc.__traceback__)
        if not os.path.realpath(frame.f_code.co_filename).startswith(_OWN)
    ]
    if not frames:
        return ""
    name, line = frames[-1]
    if not name.startswith("<"):  # "<string>": code compiled from no file
        name = os.path.realpath(name)
        under = os.path.join(os.path.realpath(os.getcwd()), "")
        name = name.removeprefix(under) if name.startswith(under) else name
    return f" (at {name}:{line})"


def _difference(before: object, after: object, where: str) -> str | None:
    """Where ``after`` first differs from ``before``, comparing types exactly."""
    if type(before) is not type(after):
        return f"{where} changed type"
    if isinstance(before, dict) and isinstance(after, dict):
        if list(before) != list(after):
            return f"{where} keys changed"
        for key in before:
            found = _difference(before[key], after[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(before, list) and isinstance(after, list):
        if len(before) != len(after):
            return f"{where} length changed from {len(before)} to {len(after)}"
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            found = _difference(old, new, f"{where}[{index}]")
            if found:
                return found
        return None
    return None if before == after else f"{where} changed"


# Immutable values that ``==`` tells apart exactly once their types are the same (no
# float: a NaN is not equal to itself).
_SCALARS = frozenset({str, int, bool, type(None)})


def _plain_copy(case: object) -> dict[str, Any] | None:
    """A copy of a plain ``case`` (``str`` keys; values ``str``, ``int``, ``bool``,
    ``None``, lists of ``str`` or of plain blocks) sharing nothing mutable, else ``None``."""
    if type(case) is not dict:
        return None
    work: dict[str, Any] = {}
    for key, value in case.items():
        kind = type(value)
        if type(key) is not str:
            return None
        if kind in _SCALARS:
            work[key] = value
        elif kind is not list:
            return None
        elif value and type(value[0]) is dict:
            if plain_columns(value) is None:
                return None
            work[key] = list(map(dict.copy, value))
        elif countOf(map(type, value), str) == len(value):
            work[key] = value.copy()
        else:
            return None
    return work


def _unchanged(case: dict[str, Any], work: dict[str, Any]) -> bool:
    """Whether ``work``, a :func:`_plain_copy` of ``case`` the packer had, is still
    exactly ``case``, key order and exact types included."""
    if list(work) != list(case):
        return False
    for key, value in case.items():
        after = work[key]
        if type(after) is not type(value):
            return False
        if type(after) is not list:
            continue
        if not (value and type(value[0]) is dict):
            if countOf(map(type, after), str) != len(after):
                return False
        elif plain_columns(after) is None:
            return False
    return work == case


def _located(case: object, work: object) -> None:
    """Raise a :class:`PackerFault` saying where ``work`` first differs from ``case``."""
    changed = _difference(case, work, "case")
    if changed:
        raise PackerFault(f"modified its input ({changed})")


class CallablePacker(Packer):
    """A Python function called in this process with its own deep copy of each case."""

    def __init__(self, function: Callable[[dict[str, Any]], object]) -> None:
        self.function = function

    def answer(self, case: dict[str, Any]) -> object:
        """Call the function; an exception or a modified input is a :class:`PackerFault`."""
        work = _plain_copy(case)
        if work is None:
            return self._pickled(case)
        result = self._call(work)
        if not _unchanged(case, work):
            _located(case, work)
        return result

    def answer_built(self, recipe: Recipe) -> object:
        """:meth:`answer` for a case built for this call alone: nothing to copy."""
        work = recipe.build()
        result = self._call(work)
        if not recipe.holds(work):
            _located(recipe.build(), work)
        return result

    def answer_unpickled(self, case: dict[str, Any], pickled: bytes) -> object:
        """:meth:`answer` for a case read from ``pickled`` that nothing else holds (a
        worker's): uncopied, and an equal pickle afterwards proves it unchanged."""
        result = self._call(case)
        if pickle.dumps(case) != pickled:
            _located(pickle.loads(pickled), case)
        return result

    def _call(self, work: dict[str, Any]) -> object:
        check()
        try:
            return self.function(work)
        except (Exception, SystemExit) as exc:
            fault = PackerRefusal if isinstance(exc, ValueError) else PackerFault
            raise fault(f"raised {type(exc).__name__}: {exc}{_raised_at(exc)}") from exc

    def _pickled(self, case: object) -> object:
        # A pickle round trip is a deep copy at C speed (JSON data: dicts, lists, str,
        # int, float, bool, None, Decimal), and equal pickles prove an unchanged input.
        before = pickle.dumps(case, protocol=pickle.HIGHEST_PROTOCOL)
        work = pickle.loads(before)
        result = self._call(work)
        if pickle.dumps(work, protocol=pickle.HIGHEST_PROTOCOL) != before:
            # Different pickles may still be equal data (shared objects replaced by
            # equal ones): the exact comparison decides.
            _located(case, work)
        return result

    def close(self) -> None:
        """Nothing to release."""


def adapter(packer: Callable[[dict[str, Any]], object] | Packer) -> Packer:
    """``packer`` itself if it is a :class:`Packer`, else a :class:`CallablePacker` of the
    function; :class:`TypeError` for anything else."""
    if isinstance(packer, Packer):
        return packer
    if not callable(packer):
        raise TypeError(
            f"packer: expected a function case -> output or a Packer, got {type(packer).__name__}"
        )
    return CallablePacker(packer)
