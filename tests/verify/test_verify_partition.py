"""``verify --partition`` and ``check(..., partition=True)``: captures are gated too.

The packers in ``tests/packers/capture.py`` were written from docs/rule.md alone: the
correct ones must pass at ``--seed 1``, and each capture bug must fail naming the
fact it breaks.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from packers import capture

from packcheck._cli import main
from packcheck.verify import Counterexample, Fixture, check

PACKERS = Path(__file__).parents[1] / "packers"
LINES = f"{sys.executable} {PACKERS / 'capture_lines.py'}"
# The seed's integration scenario (tests/partition/test_partition.py) as a fixture.
TEN = Fixture(
    case={
        "budget": 60,
        "blocks": [{"id": f"doc-{n}", "size": s} for n, s in enumerate([10] * 6 + [5, 70, 8, 100])],
        "required": ["doc-6", "doc-7"],
    },
    expected={
        "kept": [f"doc-{n}" for n in range(6)],
        "remaining": 0,
        "missing": ["doc-6", "doc-7"],
    },
    origin="fixture seed scenario",
    name="seed-scenario",
)


@pytest.fixture(autouse=True)
def _in_packers_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PACKERS)


def test_a_correct_capture_passes_at_seed_1(capsys: pytest.CaptureFixture[str]) -> None:
    # The long lists whole, 200 generated cases of the default 1,000 (a quarter of the CPU).
    args = ["verify", "--packer", "capture:correct", "--seed", "1", "--max-examples", "200"]
    assert main([*args, "--partition"]) == 0
    out = capsys.readouterr().out
    assert (
        "conformant: 3 fixtures, 200 generated cases, 64 transition-point cases, "
        "50 wide-range cases, 184 long lists, seed 1"
    ) in out


@pytest.mark.parametrize(
    "packer",
    [
        ["--packer", "capture:reordered"],
        ["--packer", "capture:partition_first"],
        ["--packer-cmd", LINES],
    ],
)
def test_key_order_and_a_command_packer_pass_too(packer: list[str]) -> None:
    assert (
        main(
            [
                "verify",
                *packer,
                "--seed",
                "1",
                "--partition",
                "--max-examples",
                "150",
                "--no-long-lists",
            ]
        )
        == 0
    )


@pytest.mark.parametrize(("name", "fact"), sorted(capture.BUGS.items()))
def test_each_capture_bug_fails_naming_the_broken_fact(
    name: str, fact: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", "--packer", f"capture:{name}", "--seed", "1", "--partition"]) == 1
    out = capsys.readouterr().out
    assert f"  check:    invariant partition: {fact}: " in out, out
    assert f"rerun:    packcheck verify --packer capture:{name} --seed 1 --partition\n" in out


def test_a_command_packers_capture_bug_is_caught(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["verify", "--packer-cmd", f"{LINES} swapped", "--seed", "1", "--partition"]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "invariant partition: bucket follows from size, budget and remaining: blocks[2]" in out
    # The table of captured and reference lists is on lines of its own, as written.
    table = [
        "                       captured   reference",
        '            packed:    ["A","B"]  ["A","B"]',
        '            available: []         ["C"]',
        '            dropped:   ["C"]      []',
    ]
    assert "\n".join(table) + "\n" in out, out
    assert "\\n" not in out


@pytest.mark.parametrize("name", ["no_partition", "null_partition", "correct"])
def test_without_the_flag_capture_is_optional(name: str) -> None:
    args = ["verify", "--packer", f"capture:{name}", "--seed", "1", "--max-examples", "100"]
    assert main([*args, "--no-long-lists"]) == 0


def test_without_the_flag_a_present_partition_is_still_checked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["verify", "--packer", "capture:swapped", "--seed", "1"]) == 1
    out = capsys.readouterr().out
    assert "invariant partition: bucket" in out
    assert "extra keys" not in out
    assert "--partition" not in out


def test_the_library_gate_takes_partition_too() -> None:
    summary = check(
        capture.correct, seed=1, max_examples=100, partition=True, fixtures=[TEN], long_lists=False
    )
    assert summary.fixtures == 1
    with pytest.raises(Counterexample) as info:
        check(capture.only_packed, seed=1, partition=True, fixtures=[TEN])
    finding = info.value.finding
    assert finding.origin == "fixture seed scenario"
    (failure,) = finding.failures
    assert failure.startswith('invariant partition: merged by position: blocks[6] (id "doc-6")')
    with pytest.raises(Counterexample, match="no partition captured"):
        check(capture.declared, seed=1, partition=True, fixtures=[TEN])
    check(capture.declared, seed=1, max_examples=10, fixtures=[TEN], long_lists=False)
