"""A packer that is any program speaking JSON Lines: one case in, one output object out."""

from __future__ import annotations

import shlex
from typing import Any

from .._rule.jsonio import JSONError, dumps, loads
from ._load import SetupError
from ._packer import PackerFault, Recipe
from ._process import PackerDied, Process, cut_line


class CommandPacker(Process):
    """Any program speaking JSON Lines: one case in, one output object out."""

    #: Its answers are JSON text: a whole number may come as 4 where Python has 4.0.
    speaks_json = True

    def __init__(
        self, command: str, timeout: float, *, any_json: bool = False, cwd: str | None = None
    ) -> None:
        """``any_json``: any JSON value is an answer (``diff``), not only an object;
        ``cwd``: the directory the command runs in (default: this process's)."""
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise SetupError(f"--packer-cmd {command!r}: {exc}") from None
        if not argv:
            raise SetupError("--packer-cmd is empty")
        super().__init__(argv, timeout, cwd=cwd)
        self.command = command
        self.answered = False
        self.any_json = any_json

    def answer(self, case: dict[str, Any]) -> object:
        """The parsed object the command printed for ``case``; :class:`SetupError` if it
        never answered a case, not even the empty case when started again."""
        return self._answer(dumps(case))

    def answer_built(self, recipe: Recipe) -> object:
        """:meth:`answer` for the case ``recipe`` builds, sent as the line it writes."""
        return self._answer(recipe.line())

    def _answer(self, line: str) -> object:
        # One answer per case, strictly: a line no case asked for would otherwise be
        # taken as the next case's answer, and every answer after it misattributed.
        early = self.pending()
        if early:
            self.stop()
            raise PackerFault(
                f"printed {_clip(early)} after its answer to the case before: " + _ONE_LINE
            )
        try:
            raw = self._send(line)
        except PackerDied as exc:
            if self.answered or self._answers(_EMPTY_CASE):
                raise
            raise SetupError(
                f"--packer-cmd {self.command!r} ended before answering any case, and "
                f"again when given the empty case: {exc}"
            ) from None
        self.answered = True
        extra = self.pending()
        if extra:
            self.stop()
            raise PackerFault(f"answered {_clip(raw)}, then printed {_clip(extra)}: {_ONE_LINE}")
        try:
            output = loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, JSONError) as exc:
            self.stop()
            raise PackerFault(f"answered {_clip(raw)}, which is not JSON ({exc})") from None
        if not isinstance(output, dict) and not self.any_json:
            self.stop()
            raise PackerFault(f"answered {_clip(raw)}, which is not a JSON object")
        return output

    def leftover(self) -> str | None:
        """After the last case: what the command printed that no case asked for, or
        ``None``; the command is stopped either way."""
        extra = self.drained()
        if not extra:
            return None
        return f"printed {_clip(extra)} after its last answer: {_ONE_LINE}"

    def _send(self, line: str) -> bytes:
        return self.exchange((line + "\n").encode("ascii"), cut_line)

    def _answers(self, case: dict[str, Any]) -> bool:
        """Whether the command, started again if need be, answers ``case`` at all."""
        try:
            self._send(dumps(case))
        except PackerFault:
            return False
        self.answered = True
        return True


_ONE_LINE = "a packer answers each case with one line"
_EMPTY_CASE: dict[str, Any] = {"budget": 0, "blocks": [], "required": []}


def _clip(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace")
    return repr(text if len(text) <= 80 else text[:77] + "...")
