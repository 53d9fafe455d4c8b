"""``pack --record`` and ``audit`` under a declared rule, from the command line: the
record names its rule, ``audit --rule`` (or ``[tool.packcheck.rule]``) checks every
step against it, and a run recorded under another rule is one line, exit 2."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from command_line import run
from test_cli_pack_rule import RULE

from packcheck._cli.pack import NO_PARTITION

CASES = (
    '{"step":1,"budget":30,"required":["q1"],"blocks":[{"id":"system","size":6},'
    '{"id":"q1","size":9},{"id":"a1","size":5},{"id":"q2","size":3}]}\n'
    '{"step":2,"budget":9,"required":["q2"],"blocks":[{"id":"system","size":6},'
    '{"id":"q2","size":3}]}\n'
)
NAMED = (
    '"rule":{"name":"chat trimmer","order":"reversed","on_misfit":"stop","per_item":4,'
    '"pin":"first","pin_overflow":"refuse"}'
)
DESCRIBED = (
    'chat trimmer (order = "reversed", on_misfit = "stop", per_item = 4, pin = "first", '
    'pin_overflow = "refuse")'
)
#: A chat trimmer as a new user writes one: newest first, 4 units a message, the first
#: pinned, ``ValueError`` when it alone does not fit.
TRIMMER = """
def trim(case):
    budget, blocks = case["budget"], case["blocks"]
    if not blocks:
        return {"kept": [], "remaining": budget, "missing": sorted(case["required"])}
    left = budget - blocks[0]["size"] - 4
    if left < 0:
        raise ValueError("the system message alone does not fit")
    kept = [0]
    for index in range(len(blocks) - 1, 0, -1):
        cost = blocks[index]["size"] + 4
        if cost > left:
            break
        left -= cost
        kept.append(index)
    ids = [blocks[i]["id"] for i in sorted(kept)]
    return {"kept": ids, "remaining": left, "missing": sorted(set(case["required"]) - set(ids))}


def broken(case):
    raise ValueError("always")
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rule.toml").write_text(RULE)
    (tmp_path / "cases.jsonl").write_text(CASES)
    (tmp_path / "trimmer.py").write_text(TRIMMER)
    return tmp_path


def _record(
    here: Path, capsys: pytest.CaptureFixture[str], *argv: str, noted: bool = False
) -> list[str]:
    # ``noted``: the packer's answers hold no partition, which pack says once.
    status, out, err = run(capsys, "pack", "--record", *argv, "cases.jsonl")
    assert (status, err) == (0, [f"packcheck pack: note: line 1: {NO_PARTITION}"] if noted else [])
    (here / "run.jsonl").write_text("".join(line + "\n" for line in out))
    return out


def test_a_record_names_its_rule_and_audits_clean_under_it(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _record(here, capsys, "--rule", "rule.toml")
    assert all(f",{NAMED}," in line for line in out)
    assert json.loads(out[1])["result"] == {"error": "refused"}
    assert json.loads(out[1])["partition"] == {
        "packed": [],
        "available": [],
        "dropped": ["system", "q2"],
    }
    assert run(capsys, "audit", "--rule", "rule.toml", "run.jsonl") == (
        0,
        [
            "packcheck audit: 2 steps, 2 with a correct partition, 0 violations (run.jsonl)",
            f"  rule: {DESCRIBED}",
            '  lost "q1": missing in 1 step (stopped 1): line 1 (step 1)',
            "    stopped: the scan stopped at it: it did not fit the 4 unit(s) left",
            '  lost "q2": missing in 1 step (refused 1): line 2 (step 2)',
            "    refused: the rule refused the input",
        ],
        [],
    )
    status, out, _ = run(capsys, "audit", "--json", "--rule", "rule.toml", "run.jsonl")
    assert (status, json.loads(out[-1])["rule"]) == (0, DESCRIBED)


def test_without_a_rule_given_a_run_is_audited_under_the_rule_it_records(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _record(here, capsys, "--rule", "rule.toml")
    given = run(capsys, "audit", "--rule", "rule.toml", "run.jsonl")
    status, out, err = run(capsys, "audit", "run.jsonl")
    assert (status, err) == (0, [])
    assert out[1] == f"  rule: {DESCRIBED} (as the run records it)"
    assert [out[0], *out[2:]] == [given[1][0], *given[1][2:]]
    assert (
        run(capsys, "audit", "--json", "run.jsonl")[1][-1]
        == (run(capsys, "audit", "--json", "--rule", "rule.toml", "run.jsonl")[1][-1])
    )
    # One run, one rule: a step of packcheck's own rule first, then one of the rule's.
    recorded = (here / "run.jsonl").read_text().splitlines(keepends=True)
    plain = _record(here, capsys)
    (here / "run.jsonl").write_text(plain[0] + "\n" + recorded[1])
    assert run(capsys, "audit", "run.jsonl") == (
        2,
        [],
        [
            f"packcheck audit: error: run.jsonl: line 2: recorded under the rule {DESCRIBED}, "
            "audited under packcheck's own rule (a run is audited under one rule: its first "
            "record's)"
        ],
    )


def test_a_default_rule_records_and_audits_byte_for_byte_as_without_one(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = _record(here, capsys)
    (here / "default.toml").write_text('name = "mine"\n')
    assert _record(here, capsys, "--rule", "default.toml") == plain
    audited = run(capsys, "audit", "run.jsonl")
    assert run(capsys, "audit", "--rule", "default.toml", "run.jsonl") == audited
    assert audited[0] == 0
    assert "rule" not in "".join(audited[1])


def test_the_table_is_the_rule_when_rule_is_not_given(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _record(here, capsys, "--rule", "rule.toml")
    (here / "pyproject.toml").write_text("[tool.packcheck.rule]\n" + RULE)
    status, out, _ = run(capsys, "audit", "run.jsonl")
    assert (status, out[1]) == (0, f"  rule: {DESCRIBED}")


def test_a_run_recorded_without_the_rule_is_judged_in_its_terms(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _record(here, capsys)
    status, out, _ = run(capsys, "audit", "--rule", "rule.toml", "run.jsonl")
    assert status == 1
    assert out[:4] == [
        'line 1 (step 1): bucket: blocks[1] (id "q1", size 9) is in packed, but belongs in '
        "available: the scan stopped at it: it did not fit the 4 unit(s) left",
        'line 1 (step 1): result: kept is the rule\'s: got ["system","q1","a1","q2"], the '
        'rule keeps ["system","a1","q2"]',
        'line 2 (step 2): bucket: blocks[0] (id "system", size 6) is in packed, but belongs '
        "in dropped: the rule refused the input",
        "line 2 (step 2): result: refusal: the rule refuses this input; got "
        '{"kept":["system","q2"],"remaining":0,"missing":[]}',
    ]


@pytest.mark.parametrize(
    ("other", "audited"),
    [('order = "reversed"\n', 'the rule order = "reversed"'), ("", "packcheck's own rule")],
)
def test_a_run_audited_under_another_rule_than_its_own_is_one_line_and_exit_2(
    here: Path, capsys: pytest.CaptureFixture[str], other: str, audited: str
) -> None:
    # (A rule that cannot be used at all: test_cli_pack_rule.py, for pack and audit.)
    _record(here, capsys, "--rule", "rule.toml")
    (here / "pyproject.toml").write_text("[tool.packcheck.rule]\n" + RULE)  # --rule wins
    (here / "other.toml").write_text(other)
    status, out, err = run(capsys, "audit", "--rule", "other.toml", "run.jsonl")
    assert (status, out) == (2, [])
    assert err == [
        f"packcheck audit: error: run.jsonl: line 1: recorded under the rule {DESCRIBED}, "
        f"audited under {audited} (audit a run under the rule it was recorded under: --rule FILE)"
    ]


def test_a_packers_run_under_a_rule_names_it_and_a_valueerror_is_its_refusal(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _record(here, capsys, "--rule", "rule.toml", "--packer", "trimmer.py:trim", noted=True)
    assert all(f",{NAMED}," in line for line in out)
    refused = json.loads(out[1])
    assert (refused["result"], refused["partition"]["dropped"]) == (
        {"error": "refused"},
        ["system", "q2"],
    )
    # The trimmer captures no partition: the audit says so, and nothing else is wrong.
    status, audited, _ = run(capsys, "audit", "--rule", "rule.toml", "run.jsonl")
    assert status == 1
    assert audited[0].startswith("line 1 (step 1): no-partition: ")
    assert audited[1].startswith("packcheck audit: 2 steps, 1 with a correct partition, 1 ")
    # Where the rule refuses nothing, a raise stays the fault it is.
    (here / "plain.toml").write_text('order = "reversed"\n')
    status, out, err = run(
        capsys,
        "pack",
        "--record",
        "--rule",
        "plain.toml",
        "--packer",
        "trimmer.py:broken",
        "cases.jsonl",
    )
    assert status == 1
    at = TRIMMER.splitlines().index('    raise ValueError("always")') + 1
    assert err[0].endswith(f"the packer failed: raised ValueError: always (at trimmer.py:{at})")


def test_a_command_packers_run_under_a_rule_names_it(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    packers = Path(__file__).resolve().parents[1] / "packers"
    command = f"{sys.executable} {packers / 'capture_lines.py'}"
    out = _record(here, capsys, "--rule", "rule.toml", "--packer-cmd", command)
    assert all(f",{NAMED}," in line for line in out)
    # It packs by packcheck's own rule: the audit under the declared one says where.
    status, audited, _ = run(capsys, "audit", "--rule", "rule.toml", "run.jsonl")
    assert status == 1
    assert audited[0].startswith('line 1 (step 1): bucket: blocks[1] (id "q1", size 9)')


def test_audit_on_a_local_cluster_carries_the_rule(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    _record(here, capsys)
    alone = run(capsys, "audit", "--rule", "rule.toml", "run.jsonl")
    assert alone[0] == 1
    assert run(capsys, "audit", "--rule", "rule.toml", "--workers", "1", "run.jsonl") == alone
