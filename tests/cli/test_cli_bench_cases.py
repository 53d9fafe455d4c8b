"""``packcheck bench --cases FILE...`` and ``--rule FILE``: the user's own cases, read as
``pack`` reads them, and the workloads by the user's rule.

Real clocks on tiny inputs: no assertion reads a time.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

from packcheck._bench._workloads import WORKLOADS
from packcheck._cli import bench_cases, main

PACKERS = Path(__file__).resolve().parent.parent / "packers"
CASE = f"{PACKERS / 'capture.py'}:declared"
LINES = f"{sys.executable} {PACKERS / 'lines_packer.py'}"
TINY = ["bench", "--sizes", "10", "--min-time", "0", "--repeat", "1", "--quiet"]
AB = [*TINY, "--max-regression", "99%", "--quick"]
CHAT_RULE = """name = "chat trimmer"
order = "reversed"
on_misfit = "stop"
per_item = 4
pin = "first"
pin_overflow = "refuse"
"""
TRIMMER = """
from packcheck import Rule, pack

RULE = Rule(order="reversed", on_misfit="stop", per_item=4, pin="first",
            pin_overflow="refuse")


def trim(case):
    answer = pack(case, rule=RULE)
    if answer == {"error": "refused"}:
        raise ValueError("the system message alone does not fit")
    return answer
"""


@pytest.fixture(autouse=True)
def _restore_sys_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))


def _step(budget: int, sizes: list[int], **extra: object) -> str:
    blocks = [{"id": f"m{i}", "size": size} for i, size in enumerate(sizes)]
    return json.dumps({"budget": budget, "blocks": blocks, "required": ["m0"], **extra})


def _rows(out: str) -> dict[str, list[str]]:
    """The first table's lines by their first word (later tables repeat the names)."""
    rows: dict[str, list[str]] = {}
    for line in out.splitlines():
        if line[:1].islower():
            rows.setdefault(line.split()[0], line.split())
    return rows


def test_recorded_cases_are_timed_first_as_a_workload_of_their_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with gzip.open(tmp_path / "run-1.jsonl.gz", "wt") as run:
        run.write("\n".join(_step(10, [4, 3, 9], step=i) for i in range(5)) + "\n")
    (tmp_path / "run-2.jsonl").write_text(_step(7, [1, 2]) + "\nnot json\n[1]\n")
    argv = [*TINY, "--workload", "pareto", "--packer", CASE, "--cases"]
    assert main([*argv, str(tmp_path / "run-*")]) == 0
    out = capsys.readouterr().out
    rows = _rows(out)
    assert rows["recorded"][:3] == ["recorded", "recorded", "6"]
    assert rows["pareto"][:3] == ["pareto", "typical", "10"]
    assert "\nnote: --cases: 2 line(s) not a case, left out (the first: " in out
    assert "run-2.jsonl: line 2: invalid JSON" in out
    assert main([*AB, "--workload", "pareto", "--packer", CASE, "--against", CASE,
                 "--cases", str(tmp_path / "run-1.jsonl.gz"), "--format", "json"]) == 0  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    cells = [(c["workload"], c["family"], c["n"]) for c in data["comparisons"]]
    assert cells == [("recorded", "recorded", 5), ("pareto", "typical", 10)]


def test_a_command_packs_every_recorded_case_and_answers_are_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text("\n".join(_step(b, [4, 3, 9]) for b in range(8)) + "\n")
    argv = [*TINY, "--workload", "pareto", "--packer-cmd", LINES, "--clock", "wall"]
    assert main([*argv, "--cases", str(cases)]) == 0
    assert _rows(capsys.readouterr().out)["recorded"][2] == "8"


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (["absent-*.jsonl"], "--cases absent-*.jsonl: no file matches"),
        (["missing.jsonl"], "--cases missing.jsonl: cannot read: No such file or directory"),
        (["truncated.jsonl.gz"], "--cases truncated.jsonl.gz: cannot read: Compressed file ended"),
        (["empty.jsonl"], "--cases empty.jsonl: no cases in input (it is empty)"),
        (["junk.jsonl"], "--cases junk.jsonl: no case in it to time"),
    ],
)
def test_unreadable_cases_are_one_line_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    files: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    whole = gzip.compress((_step(3, [1]) + "\n").encode() * 50)
    (tmp_path / "truncated.jsonl.gz").write_bytes(whole[: len(whole) // 2])
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "junk.jsonl").write_text("[1]\n{\n")
    assert main([*TINY, "--packer", CASE, "--cases", *files]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"packcheck bench: error: {message}")
    assert err.count("\n") == 1


def test_workloads_follow_the_declared_rule_so_no_cell_times_a_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "trimmer.py").write_text(TRIMMER)
    (tmp_path / "chat-rule.toml").write_text(CHAT_RULE)
    trim = f"{tmp_path / 'trimmer.py'}:trim"
    refused = ["--workload", "nothing-fits", "--workload", "uniform-1%"]
    # By packcheck's own rule the trimmer refuses these (a raise): a wrong answer.
    assert main([*TINY, *refused, "--packer", trim]) == 1
    assert "raised ValueError: the system message alone does not fit" in capsys.readouterr().err
    rule = ["--rule", str(tmp_path / "chat-rule.toml")]
    assert main([*TINY, *refused, "--packer", trim, *rule]) == 0
    out = capsys.readouterr().out
    assert "errors or refusals" not in out
    assert main([*AB, *refused, "--packer", trim, "--against", trim, *rule]) == 0
    assert "errors or refusals" not in capsys.readouterr().out
    # packcheck's own packers, by the rule, where none is given.
    assert main([*TINY, *refused, *rule, "--no-steps"]) == 0
    assert _rows(capsys.readouterr().out)["workload"][3:5] == ["reference", "numpy"]


def test_a_packer_that_could_be_either_kind_is_told_apart_by_its_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # trim(case, debug=False) takes one argument or two: a trial case tells the kind,
    # and the chat rule refuses it (its pinned 3 units cost 7 of a budget of 6).
    (tmp_path / "kw.py").write_text(
        TRIMMER.replace("def trim(case):", "def trim(case, debug=False):")
    )
    (tmp_path / "chat-rule.toml").write_text(CHAT_RULE)
    trim = f"{tmp_path / 'kw.py'}:trim"
    rule = ["--rule", str(tmp_path / "chat-rule.toml")]
    assert main([*AB, "--workload", "pareto", "--packer", trim, "--against", trim, *rule]) == 0
    assert capsys.readouterr().out.startswith(f"NEW {trim} (case-level)\n")
    # Without the rule its raise is no answer: each kind's failure is said.
    assert main([*TINY, "--packer", trim]) == 2
    assert capsys.readouterr().err == (
        f"packcheck bench: error: --packer {trim!r} is neither a case-level packer (case -> "
        "answer, as verify takes) nor a kernel-level one (budget, int64 sizes -> (kept, "
        "remaining)): as a case-level packer it raised ValueError: the system message alone "
        "does not fit; as a kernel-level packer it raised MalformedCase: case: expected an "
        "object, got number; say which with --kind\n"
    )


def test_a_cell_of_mostly_refusals_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "trimmer.py").write_text(TRIMMER)
    (tmp_path / "chat-rule.toml").write_text(CHAT_RULE)
    (tmp_path / "run.jsonl").write_text("\n".join(_step(3, [5, 1]) for _ in range(3)) + "\n")
    trim = f"{tmp_path / 'trimmer.py'}:trim"
    argv = [*AB, "--workload", "pareto", "--packer", trim, "--against", trim]
    argv += ["--rule", str(tmp_path / "chat-rule.toml"), "--cases", str(tmp_path / "run.jsonl")]
    assert main(argv) == 0
    assert (
        "\nnote: on the 3 recorded case(s): 3 of 3 answer(s) are errors or refusals: this "
        "cell times mostly their path, not packing\n"
    ) in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--packer", "packcheck.scan:pack_sizes", "--rule", "RULE"],
            "--rule times case-level packers and commands; a kernel-level packer "
            "(pack_sizes) packs by packcheck's own rule only",
        ),
        (["--history", ".", "--cases", "x.jsonl"], "--history reads stored results"),
        (["--packer", CASE, "--rule", "absent.toml"], "absent.toml: "),
        (["--packer", CASE, "--rule", "BAD"], "BAD: order: "),
    ],
)
def test_rule_and_cases_usage_errors_are_one_line_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "RULE").write_text(CHAT_RULE)
    (tmp_path / "BAD").write_text('order = "sideways"\n')
    assert main([*TINY, *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"packcheck bench: error: {message}"), err
    assert err.count("\n") == 1


def test_a_workload_budget_under_the_rule_is_in_the_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "chat-rule.toml").write_text(CHAT_RULE)
    argv = [*TINY, "--workload", "nothing-fits", "--packer", CASE, "--no-steps", "--json"]
    # CASE answers by packcheck's own rule: under the chat rule, a wrong answer.
    assert main([*argv, "--rule", str(tmp_path / "chat-rule.toml")]) == 1
    assert "gave a wrong answer on nothing-fits at n=10" in capsys.readouterr().err
    assert main(argv) == 0
    (result, *_) = json.loads(capsys.readouterr().out)["results"]
    assert result["budget"] == WORKLOADS["nothing-fits"].generate(10, 0)[1]


def test_cases_past_the_most_are_left_out_and_said_to_be(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench_cases, "MAX_CASES", 3)
    (tmp_path / "a.jsonl").write_text("\n".join(_step(5, [2, 9]) for _ in range(2)) + "\n")
    (tmp_path / "b.jsonl").write_text("\n".join(_step(5, [2, 9]) for _ in range(4)) + "\n")
    argv = [*TINY, "--workload", "pareto", "--packer", CASE, "--reference-limit", "5"]
    assert main([*argv, "--cases", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]) == 0
    out = capsys.readouterr().out
    assert _rows(out)["recorded"][2] == "3"
    assert "\nnote: --cases: the first 3 cases timed; the rest left out" in out
    # The reference ran on the 3 recorded cases only (pareto's 10 blocks are past 5).
    assert f"\n{CASE}: recorded (n=3) " in out
