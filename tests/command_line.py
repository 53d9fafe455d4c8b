"""For the CLI tests: one call of the ``packcheck`` command line in this process, and a
packer command written for a test."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from packcheck._cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], list[str]]:
    """``packcheck ARGV``: its exit status and the lines it printed, out and err."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out.splitlines(), err.splitlines()


def packer_command(folder: Path, name: str, each_line: str, *, imports: str = "sys") -> str:
    """The command line of ``folder/name``, a JSON Lines packer written there that runs
    ``each_line`` (Python statements) for each ``line`` it reads on stdin."""
    script = folder / name
    script.write_text(
        f"import {imports}\nfor line in sys.stdin:\n{textwrap.indent(each_line, '    ')}"
    )
    return f"{sys.executable} {script}"
