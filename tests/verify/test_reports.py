"""The gate's reports for machines: JSON, GitHub Actions commands, JUnit XML."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from typing import Any

import pytest
from junit_alike import failed_in_generated
from packers import broken

from packcheck._gate import Outcome, junit_xml, text
from packcheck._gate.outcome import github, json_report
from packcheck._packers import PackerFault
from packcheck.verify import Summary, run
from packcheck.verify._findings import Finding
from packcheck.verify._oracle import VERIFY

CASE = {"budget": 0, "blocks": [], "required": ["A", "A"]}
EXPECTED = {"kept": [], "remaining": 0, "missing": ["A", "A"]}
CHECK = "invariant missing == required - kept"


def _finding(answer: object, failures: tuple[str, ...] = (CHECK,), **more: Any) -> Finding:
    return Finding(CASE, EXPECTED, answer, failures, "generated case (seed 7, shrunk)", **more)


def _outcome(
    finding: Finding | None, long_lists: int = 0, checked_near: int = 0, **more: Any
) -> Outcome:
    seconds = {"fixtures": 0.25, "generated": 1.5}
    if finding is None:
        seconds |= {"wide ranges": 0.5, "long lists": 2.0}
    checked = {
        "fixtures": 3,
        "generated": 40,
        "wide ranges": 0 if finding else 74,
        "long lists": long_lists,
        "shrinking": 12 if finding else 0,
        "transition points": checked_near,
    }
    failing = dict.fromkeys(checked, 0) | ({"generated": 1} if finding else {})
    return Summary(
        command=VERIFY,
        seed=7,
        seconds=4.25,
        checked=checked,
        failing=failing,
        finding=finding,
        phase="generated" if finding else None,
        phase_seconds=seconds,
        subject="p.py:f",
        names={"packer": "p.py:f"},
        rerun="packcheck verify --packer p.py:f --seed 7",
        settings={"max_examples": 40},
        **more,
    )


def test_the_json_report_of_a_conformant_run() -> None:
    report = json.loads(json_report(_outcome(None, long_lists=154)))
    assert report == {
        "format": 1,
        "verdict": "conformant",
        "status": 0,
        "seed": 7,
        "packer": "p.py:f",
        "settings": {"max_examples": 40},
        "cases": 3 + 40 + 74 + 154,
        "seconds": 4.25,
        "phases": [
            {"name": "fixtures", "cases": 3, "seconds": 0.25},
            {"name": "generated", "cases": 40, "seconds": 1.5, "transition_cases": 0},
            {"name": "wide ranges", "cases": 74, "seconds": 0.5},
            {"name": "long lists", "cases": 154, "seconds": 2.0},
        ],
        "shrink_tries": 0,
        "failure": None,
        "rerun": "packcheck verify --packer p.py:f --seed 7",
    }


def test_the_json_report_of_a_counterexample_carries_what_a_person_reads() -> None:
    finding = _finding({"kept": [], "remaining": 0, "missing": ["A"]}, causes=("dedup",))
    outcome = _outcome(finding, saved="failures/x.json (replayed first)")
    report = json.loads(json_report(outcome))
    assert report["verdict"] == "not conformant"
    assert report["status"] == 1
    assert report["shrink_tries"] == 12
    failure = report["failure"]
    assert failure["phase"] == "generated"
    assert failure["check"] == CHECK
    assert failure["checks"] == [CHECK]
    assert failure["case"] == CASE
    assert failure["answer"] == {"kept": [], "remaining": 0, "missing": ["A"]}
    assert failure["answer_text"] == '{"kept":[],"remaining":0,"missing":["A"]}'
    assert failure["expected"] == EXPECTED
    assert failure["cause"] == "dedup"
    assert failure["causes"] == ["dedup"]
    assert failure["departure"] is None
    assert failure["fault"] is None
    assert failure["saved"] == "failures/x.json (replayed first)"
    assert failure["rerun"] == report["rerun"] == "packcheck verify --packer p.py:f --seed 7"
    assert failure["fixture"] == finding.fixture()
    assert failure["report"] == text(outcome)
    assert "saved:    failures/x.json (replayed first)" in failure["report"]


def test_an_answer_that_is_not_json_is_shown_not_sent() -> None:
    failure = json.loads(json_report(_outcome(_finding(([], 0, ["A"])))))["failure"]
    assert failure["answer"] is None
    assert failure["answer_text"] == "([], 0, ['A'])"
    assert failure["cause"] == "no known cause"


def test_a_fault_has_no_answer_and_no_cause() -> None:
    fault = PackerFault("raised RuntimeError: boom")
    failure = json.loads(json_report(_outcome(_finding(fault, ("packer fault: boom",)))))
    assert failure["failure"]["answer"] is None
    assert failure["failure"]["fault"] == "raised RuntimeError: boom"
    assert failure["failure"]["cause"] is None


def test_integers_past_2_to_the_53_keep_their_digits() -> None:
    big = {"budget": 2**70 + 1, "blocks": [], "required": []}
    finding = Finding(big, EXPECTED, {}, (CHECK,), "wide-range case")
    assert f'"budget":{2**70 + 1}' in json_report(_outcome(finding))


def test_github_annotations_are_one_line_each_with_the_rerun_command() -> None:
    outcome = _outcome(_finding({"kept": ["A,B: 100%"]}))
    command, *rest = github(outcome).split("\n")
    assert command.startswith(
        "::error title=packcheck verify%3A generated%3A invariant missing == required - kept::"
    )
    assert "%0Arerun:    packcheck verify --packer p.py:f --seed 7%0A" in command
    assert "100%25" in command  # a '%' in the data is escaped too
    assert "\n".join(rest) == text(outcome)
    notice = github(_outcome(None))
    assert notice.startswith("::notice title=packcheck verify%3A conformant::packcheck verify")
    assert notice.endswith("\n" + text(_outcome(None)))


def test_a_failed_run_says_the_cases_it_ran_alike_in_text_github_and_junit() -> None:
    outcome = _outcome(_finding({"kept": []}), checked_near=9)
    line = (
        "packcheck verify: NOT conformant after 3 fixtures, 40 generated cases, "
        "9 transition-point cases, 0 wide-range cases, 0 long lists, seed 7, 4.2 s (p.py:f)"
    )
    assert text(outcome).splitlines()[-1] == line
    command, *rest = github(outcome).split("\n")
    assert command.endswith("%0A" + line)
    assert rest[-1] == line
    failure = _suite(outcome).findall("testcase")[1].find("failure")
    assert failure is not None
    assert failure.text is not None
    assert failure.text.splitlines()[-1] == line
    one = replace(outcome, checked={**outcome.checked, "fixtures": 1, "generated": 0})
    assert "NOT conformant after 1 fixture, 0 generated cases, " in one.verdict_line()
    passed = _outcome(None, checked_near=1).verdict_line()
    assert passed.startswith("packcheck verify: conformant: 3 fixtures, 40 generated cases, ")
    assert ", 1 transition-point case, 74 wide-range cases, 0 long lists, seed 7, " in passed


def _suite(outcome: Outcome) -> ET.Element:
    root = ET.fromstring(junit_xml(outcome))
    assert root.tag == "testsuites"
    (suite,) = root
    assert suite.tag == "testsuite"
    return suite


def test_junit_has_a_testcase_per_phase_and_the_failure_carries_the_report() -> None:
    outcome = _outcome(_finding({"kept": []}))
    suite = _suite(outcome)
    assert failed_in_generated(suite, outcome).attrib["message"] == CHECK
    properties = {p.attrib["name"]: p.attrib["value"] for p in suite.iter("property")}
    assert properties == {
        "seed": "7",
        "rerun": "packcheck verify --packer p.py:f --seed 7",
        "max_examples": "40",
    }


def test_junit_of_a_conformant_run_without_long_lists() -> None:
    suite = _suite(_outcome(None, long_lists=0))
    assert suite.attrib["failures"] == "0"
    assert suite.attrib["skipped"] == "1"
    last = suite.findall("testcase")[-1]
    skipped = last.find("skipped")
    assert skipped is not None
    assert skipped.attrib["message"] == "no cases: left out"
    assert suite.findall("testcase")[0].findtext("system-out") == "3 cases"


def test_junit_writes_what_xml_cannot_hold_as_escapes() -> None:
    fault = PackerFault("exited with status 1; stderr: \x1b[31mred\x1b[0m \ud800")
    finding = Finding(CASE, EXPECTED, fault, ("packer fault: \x00",), "fixture")
    suite = _suite(_outcome(finding))
    failure = suite.findall("testcase")[1].find("failure")
    assert failure is not None
    assert failure.attrib["message"] == "packer fault: \\x00"
    assert failure.text is not None
    assert "\\x1b[31mred\\x1b[0m \\ud800" in failure.text


@pytest.mark.parametrize(
    ("packer", "examples", "phase"),
    [(broken.missing_dedup, 200, "generated"), (broken.float_arithmetic, 1, "wide ranges")],
)
def test_the_failing_phase_is_the_one_the_gate_stopped_in(
    packer: Any, examples: int, phase: str
) -> None:
    outcome = run(packer, seed=1, max_examples=examples, max_units=2**70, long_lists=False)
    assert outcome.phase == phase
    assert list(outcome.phase_seconds)[-1] == phase
    assert json.loads(json_report(outcome))["failure"]["phase"] == phase
