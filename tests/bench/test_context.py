"""What a stored timing records about where it came from."""

from __future__ import annotations

import subprocess
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from packcheck import __version__
from packcheck._bench import _context


def test_machine_names_the_hardware_and_the_versions() -> None:
    m = _context.machine()
    assert set(_context.MACHINE_KEYS) | set(_context.VERSION_KEYS) <= set(m)
    assert m["numpy"] == np.__version__
    assert m["packcheck"] == __version__
    assert all(isinstance(value, str) and value for value in m.values())


@pytest.mark.parametrize(
    ("text", "cpu"),
    [
        ("processor\t: 0\nmodel name\t: Some CPU @ 2.00GHz\n", "Some CPU @ 2.00GHz"),
        ("processor : 0\nModel : Raspberry Pi 4\n", "Raspberry Pi 4"),
        ("processor : 0\nflags : fpu\n", None),
    ],
)
def test_the_cpu_model_is_read_from_cpuinfo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, cpu: str | None
) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(text)
    monkeypatch.setattr(_context, "_CPUINFO", cpuinfo)
    assert _context._cpu_model() == cpu


def test_without_cpuinfo_the_processor_or_unknown_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_context, "_CPUINFO", tmp_path / "absent")
    monkeypatch.setattr(_context.platform, "processor", lambda: "")
    assert _context.machine()["cpu"] == "unknown"


def _git(cwd: Path, *argv: str) -> None:
    subprocess.run(["git", *argv], cwd=cwd, check=True, capture_output=True)


def test_the_commit_is_recorded_in_a_checkout_and_marked_dirty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert _context.context()["commit"] is None  # not a checkout
    _git(tmp_path, "init", "-q")
    (tmp_path / "f.txt").write_text("one\n")
    _git(tmp_path, "add", "f.txt")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.strip()
    where = _context.context()
    assert where["commit"] == head
    assert datetime.fromisoformat(where["created"]).tzinfo is not None
    assert where["machine"] == _context.machine()
    (tmp_path / "f.txt").write_text("two\n")
    assert _context.context()["commit"] == head + "-dirty"
    (tmp_path / "untracked.txt").write_text("")  # untracked files do not count
    _git(tmp_path, "checkout", "-q", "f.txt")
    assert _context.context()["commit"] == head


def test_without_git_there_is_no_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no git on it
    assert _context.context()["commit"] is None


def test_mismatches_name_what_differs() -> None:
    before = {"cpu": "A", "cpus": "2", "python": "3.11.7"}
    now = {"cpu": "B", "cpus": "2", "numpy": "2.0"}
    assert _context.mismatches(before, now, ("cpu", "cpus")) == ["cpu A -> B"]
    assert _context.mismatches(before, now, ("python", "numpy")) == [
        "python 3.11.7 -> ?",
        "numpy ? -> 2.0",
    ]
    assert _context.mismatches(before, dict(before), ("cpu", "python")) == []
