"""The manual's terminal sessions, replayed: each ``$ packcheck pack|audit|fixtures|rule``
command shown in README.md or docs/*.md whose inputs are in ``docs/examples/`` (or are
ports in ``tests/packers/``) runs on a copy of them and prints what the page shows
(lines compared as a multiset: stdout and stderr interleave differently in a terminal),
and a following ``$ echo $?`` is its exit status.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from packcheck._cli import main

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "docs" / "examples"
PORTS = Path("tests") / "packers"
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_COMMAND = re.compile(r"packcheck (pack|audit|fixtures|rule)\b")
#: The words that make a session's command a shell's, not one command's.
_SHELL = {"|", ">", "&&", "<", ";"}


def _sessions() -> list[tuple[str, str, list[str], int | None]]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for block in re.findall(r"```console\n(.*?)```", text, re.S):
            entries = re.split(r"^\$ ", block, flags=re.M)[1:]
            for index, entry in enumerate(entries):
                command, _, output = entry.partition("\n")
                if not _COMMAND.match(command) or not _uses_examples(command):
                    continue
                status = None
                if index + 1 < len(entries) and entries[index + 1].startswith("echo $?"):
                    status = int(entries[index + 1].split("\n")[1])
                found.append((page.name, command, output.splitlines(), status))
    return found


def _uses_examples(command: str) -> bool:
    names = re.findall(r"[\w.-]+\.jsonl?|[\w.-]+\.csv|[\w.-]+\.toml", command)
    made = set(re.findall(r">\s*([\w.-]+)", command))
    ports = _ports(command)
    return (
        bool(names or ports)
        and all((EXAMPLES / n).is_file() or n in made for n in names)
        and all((ROOT / port).is_file() for port in ports)
    )


def _ports(command: str) -> list[str]:
    """The ports of ``tests/packers/`` the command names (``PATH.py:FUNCTION``)."""
    return re.findall(rf"{re.escape(PORTS.as_posix())}/[\w.-]+\.py(?=:)", command)


SESSIONS = _sessions()


def test_the_manual_shows_sessions_on_its_example_files() -> None:
    commands = {command for _, command, _, _ in SESSIONS}
    # The README's and the command-line page's first examples at least.
    assert "packcheck pack cases.jsonl" in commands
    assert "packcheck audit bad-run.jsonl" in commands
    assert "packcheck rule show trim-rule.toml" in commands
    assert any(command.startswith("packcheck rule infer --packer tests/") for command in commands)
    assert len(SESSIONS) >= 6


def test_a_session_shown_again_unreplayed_shows_what_the_replayed_one_prints() -> None:
    """A ``text`` block (never run) that shows a replayed command shows its lines."""
    replayed = {command: shown for _, command, shown, _ in SESSIONS}
    again = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for block in re.findall(r"```text\n(.*?)```", text, re.S):
            for entry in re.split(r"^\$ ", block, flags=re.M)[1:]:
                command, _, output = entry.partition("\n")
                if command in replayed:
                    again.append(command)
                    assert output.splitlines() == replayed[command], f"{page.name}: $ {command}"
    assert any(command.startswith("packcheck rule infer") for command in again)


def _in_shell(command: str) -> tuple[int, list[str]]:
    """``command`` run by bash, as a terminal runs it: its exit status and lines."""
    bin_dir = Path(sys.executable).parent
    result = subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={"PATH": f"{bin_dir}:/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
        timeout=120,
        check=False,
    )
    return result.returncode, (result.stdout + result.stderr).splitlines()


@pytest.mark.parametrize(
    ("page", "command", "shown", "status"), SESSIONS, ids=[f"{s[0]}: {s[1]}" for s in SESSIONS]
)
def test_a_session_of_the_manual_prints_what_it_shows(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    page: str,
    command: str,
    shown: list[str],
    status: int | None,
) -> None:
    shutil.copytree(EXAMPLES, tmp_path, dirs_exist_ok=True)
    if _ports(command):  # run, as the page says, from the root where the ports are
        shutil.copytree(ROOT / PORTS, tmp_path / PORTS)
    monkeypatch.chdir(tmp_path)
    argv = shlex.split(command)
    if any(word in _SHELL for word in argv):  # a pipe, a redirection: bash runs it
        returncode, printed = _in_shell(command)
    else:  # one command: its main, in this process (a shell's session runs the script)
        returncode = main(argv[1:])
        out, err = capsys.readouterr()
        printed = (out + err).splitlines()
    assert Counter(printed) == Counter(shown), f"{page}: $ {command}"
    if status is not None:
        assert returncode == status
