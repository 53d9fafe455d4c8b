"""``pack --trace`` and ``pack --record`` write in large pieces, in the order they always
wrote in: a problem on stderr still comes after the lines of the cases before it."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from packcheck._cli._gather import GATHER_CHARS, Gathered

CASE = {"budget": 3, "blocks": [{"id": "a", "size": 2}, {"id": "b", "size": 2}], "required": ["b"]}


class _Counted(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.writes = 0
        self.flushes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)

    def flush(self) -> None:
        self.flushes += 1


def test_text_is_held_until_a_piece_is_large_then_written_at_once() -> None:
    out = _Counted()
    gathered = Gathered(out)
    line = "x" * 99 + "\n"
    for _ in range(GATHER_CHARS // len(line)):
        gathered.write(line)
    assert (out.writes, out.getvalue()) == (0, "")
    gathered.write(line)  # the one that makes the piece large enough
    assert out.writes == 1
    gathered.write("tail\n")
    gathered.flush()
    gathered.flush()  # nothing held: no empty write
    assert (out.writes, out.flushes) == (2, 2)
    assert out.getvalue() == line * (GATHER_CHARS // len(line) + 1) + "tail\n"


@pytest.mark.parametrize("mode", ["--trace", "--record"])
def test_a_malformed_line_is_named_after_the_lines_before_it(tmp_path: Path, mode: str) -> None:
    cases = tmp_path / "cases.jsonl"
    good = json.dumps(CASE)
    cases.write_text(f'{good}\n{good}\n{{"budget": 1}}\n{good}\n', encoding="utf-8")
    # stdout and stderr into one pipe, as a terminal or `2>&1` shows them; unbuffered,
    # as on a terminal, or stdout's own buffer would hold the lines back.
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "packcheck", "pack", mode, str(cases)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        check=False,
        env=env,
    )
    lines = done.stdout.decode().splitlines()
    assert done.returncode == 2
    assert [line.startswith("packcheck pack: error: ") for line in lines] == [
        False,
        False,
        True,
        False,
        False,
    ]
    assert lines[2].startswith(f"packcheck pack: error: {cases}: line 3: ")
    assert json.loads(lines[3])["error"] == "input"
