"""Where a Python packer raised, as its fault says: the innermost frame of the packer's
own code (never packcheck's), in this process and in a worker alike."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from packcheck._packers import CallablePacker, PackerFault, PackerRefusal, WorkerPacker
from packcheck._packers._load import load

CASE: dict[str, Any] = {"budget": 1, "blocks": [], "required": []}
#: A packer whose error is raised in a helper it calls (line 2), and one that calls
#: packcheck's own pack on a case it breaks (line 9: packcheck raises, below it).
TRIMMER = """def helper(blocks):
    return blocks[len(blocks)]


def trim(case):
    return helper(case["blocks"])


def repacks(case):
    return __import__("packcheck").pack({"budget": 1})
"""


def _fault(packer: CallablePacker | WorkerPacker) -> str:
    with pytest.raises(PackerFault) as raised:
        packer.answer(CASE)
    return str(raised.value)


@pytest.fixture
def trimmer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "trimmer.py").write_text(TRIMMER)
    monkeypatch.chdir(tmp_path)
    return tmp_path / "trimmer.py"


def test_the_innermost_frame_of_the_packer_s_code_is_named(trimmer: Path) -> None:
    fault = _fault(CallablePacker(load("trimmer.py:trim")))
    assert fault == "raised IndexError: list index out of range (at trimmer.py:2)"


def test_a_worker_names_it_as_this_process_does(trimmer: Path) -> None:
    worker = WorkerPacker("trimmer.py:trim", 5.0)
    worker.start()
    try:
        assert _fault(worker) == "raised IndexError: list index out of range (at trimmer.py:2)"
    finally:
        worker.close()


def test_a_raise_inside_packcheck_names_the_packer_s_line_that_called_it(trimmer: Path) -> None:
    fault = _fault(CallablePacker(load("trimmer.py:repacks")))
    assert fault.startswith("raised MalformedCase: ")
    assert fault.endswith(" (at trimmer.py:10)")


def test_a_file_outside_the_working_directory_is_named_whole(
    trimmer: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    function = load("trimmer.py:trim")
    monkeypatch.chdir(tmp_path_factory.mktemp("elsewhere"))
    where = os.path.realpath(trimmer)
    assert _fault(CallablePacker(function)).endswith(f" (at {where}:2)")


def test_no_frame_of_the_packer_s_own_names_no_place() -> None:
    # int() raises in C, called from packcheck: no frame but packcheck's.
    fault = _fault(CallablePacker(int))  # type: ignore[arg-type]
    assert fault.startswith("raised TypeError: int() argument must be ")
    assert "(at " not in fault


def test_code_from_no_file_is_named_as_python_names_it() -> None:
    scope: dict[str, Any] = {}
    exec(compile("def refuse(case):\n    raise ValueError('no')\n", "<string>", "exec"), scope)
    with pytest.raises(PackerRefusal, match=r"^raised ValueError: no \(at <string>:2\)$"):
        CallablePacker(scope["refuse"]).answer(CASE)
