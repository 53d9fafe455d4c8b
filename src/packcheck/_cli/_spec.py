"""The run of ``verify`` or ``diff``, resolved: what the command line, ``[tool.packcheck]``
and the pytest plugin all come to (:func:`packcheck._cli.gate.spec`), and all that a
run in this process or on a cluster's worker reads (:func:`packcheck._cli._seeds.run`).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._gate import Settings, seeds_text
from .._rule.declared import Rule
from ._options import OPTIONS
from .config import attributed

__all__ = ["Spec"]


@dataclass(frozen=True, slots=True)
class Spec:
    """One run of the gate: the ``command`` (``verify``, ``diff``), its packers
    (``packer``/``packer_cmd``; ``diff``'s OLD: ``against``/``against_cmd``), the
    seconds a packer gets per case (``timeout``; ``None``: none), the gate's
    ``settings`` (its seed that of the one run, ``None`` with ``seeds``), the cluster
    (``workers``, ``scheduler``, ``connect_timeout``), the declared ``rule`` (``None``:
    the seed's; for ``diff``, none given), the report options (``format``,
    ``junit_xml``, ``quiet``) and the directory its packers start in (``cwd``;
    ``None``: this process's).  ``origins`` names the table's key of a setting it gave;
    ``shown`` is what the reports list of the settings; ``rerun_words`` the ``rerun:``
    line's words before and after its seed.
    """

    command: str
    settings: Settings
    packer: str | None = None
    packer_cmd: str | None = None
    against: str | None = None
    against_cmd: str | None = None
    timeout: float | None = None
    partition: bool = False
    count: bool = False
    seeds: tuple[int, ...] | None = None
    workers: int | None = None
    scheduler: str | None = None
    connect_timeout: float | None = None
    rule: Rule | None = None
    format: str = "text"
    junit_xml: Path | None = None
    quiet: bool = False
    cwd: str | None = None
    origins: Mapping[str, str] = field(default_factory=dict)
    shown: Mapping[str, Any] = field(default_factory=dict)
    rerun_words: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())

    def rerun(self, seed: int | None) -> str:
        """The command that repeats the run of ``seed`` (``--seed``); ``None``: of
        every seed (``--seeds``)."""
        chosen = (
            ["--seed", str(seed)] if seed is not None else ["--seeds", seeds_text(self.seeds or ())]
        )
        return shlex.join([*self.rerun_words[0], *chosen, *self.rerun_words[1]])

    def said(self, message: str) -> str:
        """A library's one-line error in the command's words: the setting it starts with
        (``save_failures``) as its flag, or as the table's key that set it."""
        first = message.split(" ", 1)[0]
        option = next((o for o in OPTIONS if "_" in o.dest and o.dest == first), None)
        flagged = message if option is None else option.flag + message[len(first) :]
        return attributed(flagged, self.origins)
