"""docs/diff.md's example, replayed: its release-1.4 trimmer checked out beside the
working tree, the one comparison the page changes, and the report the page shows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from packcheck._cli import main

PAGE = Path(__file__).parents[2] / "docs" / "diff.md"
_TIME = re.compile(r", \d+\.\d s \(")


def test_the_page_shows_the_report_diff_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = PAGE.read_text(encoding="utf-8")
    (released,) = re.findall(r"```python\n# trim.py \(release 1.4\)\n(.*?)```", text, re.S)
    session = re.findall(r"```console\n\$ (packcheck diff [^\n]*)\n(.*?)```", text, re.S)[0]
    command, shown = session
    old = tmp_path / "packer-v1.4"
    work = tmp_path / "work"
    old.mkdir()
    work.mkdir()
    (old / "trim.py").write_text(released)
    changed = released.replace(
        'if used + block["size"] > budget:', 'if used + block["size"] >= budget:'
    )
    assert changed != released
    (work / "trim.py").write_text(changed)
    monkeypatch.chdir(work)
    lines = shown.splitlines()
    status = int(lines[lines.index("$ echo $?") + 1])
    expected = lines[: lines.index("$ echo $?")]
    assert main(command.split()[1:]) == status == 1
    printed = capsys.readouterr().out.splitlines()
    assert [_TIME.sub(", T s (", line) for line in printed] == [
        _TIME.sub(", T s (", line) for line in expected
    ]
