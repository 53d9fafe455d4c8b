"""``packcheck diff``'s reports for machines: JSON, GitHub Actions commands, JUnit XML."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np
from junit_alike import failed_in_generated
from test_diff_behaviour import AT, answer_of, fault_of, raise_of

from packcheck._gate import Outcome as DiffOutcome
from packcheck._gate import junit_xml, text
from packcheck._gate.outcome import github, json_report, tallies
from packcheck.diff import COUNTED_PHASES, DiffFinding, DiffSummary
from packcheck.diff._behaviour import Outcome
from packcheck.diff._oracle import DIFF

CASE: dict[str, Any] = {"budget": 1, "blocks": [{"id": "A", "size": 1}], "required": []}
RULE = {"kept": ["A"], "remaining": 0, "missing": []}
DIFFERS = "output: NEW and OLD answer differently (exact JSON and types)"
RERUN = "packcheck diff --packer new.py:f --against old.py:f --seed 7"


_answer = partial(answer_of, case=CASE)
_raise = partial(raise_of, case=CASE)
_fault = partial(fault_of, case=CASE)


def _finding(new: Outcome, old: Outcome, failures: tuple[str, ...] = (DIFFERS,)) -> DiffFinding:
    return DiffFinding(
        CASE,
        old.value,
        new.value,
        failures,
        "generated case (seed 7, shrunk)",
        new=new,
        old=old,
        rule=RULE,
        parts='kept[0]: NEW ends after 0 entries; OLD goes on with "A"',
        under="OLD",
    )


def _outcome(
    finding: DiffFinding | None,
    *,
    counted: bool = False,
    differing: dict[str, int] | None = None,
    long_lists: int = 0,
    **more: Any,
) -> DiffOutcome:
    cases = {"fixtures": 3, "generated": 40, "wide ranges": 50, "long lists": long_lists}
    if finding is not None and not counted:
        cases |= {"wide ranges": 0, "long lists": 0}
    seconds = {"fixtures": 0.25, "generated": 1.5}
    if finding is None or counted:
        seconds |= {"wide ranges": 0.5, "long lists": 2.0}
    default = {"generated": 1} if finding is not None else {}
    failing = {phase: (differing or default).get(phase, 0) for phase in COUNTED_PHASES}
    return DiffSummary(
        command=DIFF,
        follows="OLD",
        seed=7,
        seconds=4.25,
        checked=cases | {"shrinking": 12 if finding else 0},
        failing=failing | {"shrinking": 0},
        finding=finding,
        phase=next((phase for phase in COUNTED_PHASES if failing[phase]), None),
        phase_seconds=seconds,
        counted=counted,
        subject="NEW new.py:f, OLD old.py:f",
        names={"new": "new.py:f", "old": "old.py:f"},
        rerun=RERUN,
        settings={"max_examples": 40, "count": counted},
        **more,
    )


NONE_SEEN = {"answer": 0, "error": 0, "raise": 0, "fault": 0}


def test_the_json_report_of_an_agreeing_run() -> None:
    report = json.loads(json_report(_outcome(None, long_lists=151)))
    for phase in report["phases"]:
        assert phase.pop("old") == NONE_SEEN
    generated = report["phases"][1]
    extra = {key: generated.pop(key) for key in ("set_aside", "transition_cases")}
    assert extra | {"differing": generated.pop("transition_differing")} == dict.fromkeys(
        ("set_aside", "transition_cases", "differing"), 0
    )
    assert report == {
        "format": 1,
        "command": "diff",
        "verdict": "agree",
        "status": 0,
        "seed": 7,
        "new": "new.py:f",
        "old": "old.py:f",
        "settings": {"max_examples": 40, "count": False},
        "counted": False,
        "cases": 3 + 40 + 50 + 151,
        "seconds": 4.25,
        "phases": [
            {"name": "fixtures", "cases": 3, "seconds": 0.25, "differing": 0, "share": None},
            {"name": "generated", "cases": 40, "seconds": 1.5, "differing": 0, "share": None},
            {"name": "wide ranges", "cases": 50, "seconds": 0.5, "differing": 0, "share": None},
            {"name": "long lists", "cases": 151, "seconds": 2.0, "differing": 0, "share": None},
        ],
        "shrink_tries": 0,
        "notes": [],
        "divergence": None,
        "rerun": RERUN,
    }


def test_what_old_did_is_tallied_per_phase_with_the_cases_set_aside_and_the_notes() -> None:
    seen = {
        "fixtures": {"answer": 3},
        "generated": {"raise": 4, "answer": 36},
        "transition points": {"answer": 9, "error": 1},
    }
    notes = ("2 cases where OLD gave no answer within 10 s were not compared",)
    more = {"seen": seen, "notes": notes, "set_aside": 17}
    outcome = _outcome(None, counted=True, **more)
    outcome = replace(
        outcome,
        checked={**outcome.checked, "transition points": 10},
        failing={**outcome.failing, "transition points": 0},
    )
    report = json.loads(json_report(outcome))
    assert [phase["old"] for phase in report["phases"]] == [
        NONE_SEEN | {"answer": 3},
        NONE_SEEN | {"answer": 36, "raise": 4},
        NONE_SEEN,
        NONE_SEEN,
    ]
    generated = report["phases"][1]
    assert (generated["set_aside"], generated["transition_cases"]) == (17, 10)
    assert report["notes"] == list(notes)
    assert report["cases"] == 3 + 40 + 50  # the transition cases are counted apart
    lines = text(outcome).splitlines()
    assert lines[:-1] == [
        "share:    fixtures: 0 of 3 cases differ (0%)",
        "share:    generated: 0 of 40 cases differ (0%)",
        "share:    wide ranges: 0 of 50 cases differ (0%)",
        "share:    long lists: 0 of 0 cases differ (no cases)",
        "share:    transition points: 0 of 10 cases differ (0%)",
        "OLD:      fixtures: answered 100%",
        "OLD:      generated: answered 90%, raised 10% (17 more, failed alike, set aside)",
        "OLD:      transition points: answered 90%, answered an error 10%",
        "note:     2 cases where OLD gave no answer within 10 s were not compared",
    ]
    assert lines[-1].startswith("packcheck diff: agree: 3 fixtures, 40 generated cases, ")
    # Not counted: the notes alone, before the verdict.
    lines = text(_outcome(None, **more)).splitlines()
    assert lines[:-1] == [f"note:     {notes[0]}"]


def test_the_json_report_of_a_divergence_carries_what_a_person_reads() -> None:
    new, old = _answer({"kept": [], "remaining": 1}), _answer({"kept": ["A"], "remaining": 0})
    finding = _finding(new, old)
    outcome = _outcome(finding, saved="divergences/x.json (replayed first)")
    report = json.loads(json_report(outcome))
    assert report["verdict"] == "diverge"
    assert report["status"] == 1
    assert report["shrink_tries"] == 12
    assert [p["differing"] for p in report["phases"]] == [0, 1, 0, 0]
    assert [p["cases"] for p in report["phases"]] == [3, 40, 0, 0]
    assert report["divergence"] == {
        "phase": "generated",
        "origin": "generated case (seed 7, shrunk)",
        "name": None,
        "differs": [DIFFERS],
        "case": CASE,
        "new": {
            "kind": "answer",
            "answer": {"kept": [], "remaining": 1},
            "text": '{"kept":[],"remaining":1}',
            "raised": None,
            "fault": None,
        },
        "old": {
            "kind": "answer",
            "answer": {"kept": ["A"], "remaining": 0},
            "text": '{"kept":["A"],"remaining":0}',
            "raised": None,
            "fault": None,
        },
        "rule": RULE,
        "parts": 'kept[0]: NEW ends after 0 entries; OLD goes on with "A"',
        "fixture": finding.fixture(),
        "saved": "divergences/x.json (replayed first)",
        "rerun": RERUN,
        "report": text(outcome),
    }
    assert "saved:    divergences/x.json (replayed first)" in report["divergence"]["report"]


def test_an_exception_and_an_answer_that_is_not_json() -> None:
    new = _raise(ValueError("budget must be positive"))
    old = _answer({"remaining": np.int64(0)})
    report = json.loads(json_report(_outcome(_finding(new, old, ("exception: ...",)))))
    assert report["verdict"] == "diverge"
    divergence = report["divergence"]
    assert divergence["new"] == {
        "kind": "raise",
        "answer": None,
        "text": f"(raised ValueError: budget must be positive{AT})",
        "raised": "ValueError",
        "fault": None,
    }
    assert divergence["old"]["kind"] == "answer"
    assert divergence["old"]["answer"] is None  # no JSON: shown, not sent
    assert divergence["old"]["text"] == "{'remaining': np.int64(0)}"


def test_a_side_that_could_not_answer_is_an_error() -> None:
    new = _fault("no answer within 1 s (timeout); packer stopped")
    finding = _finding(new, _answer(RULE), ("NEW's fault: no answer within 1 s (timeout)",))
    report = json.loads(json_report(_outcome(finding)))
    assert report["verdict"] == "error"
    assert report["status"] == 1
    assert report["divergence"]["new"] == {
        "kind": "fault",
        "answer": None,
        "text": "(no answer: no answer within 1 s (timeout); packer stopped)",
        "raised": None,
        "fault": "no answer within 1 s (timeout); packer stopped",
    }
    old_fault = _finding(_answer(RULE), new, ("OLD's fault: ...",))
    assert json.loads(json_report(_outcome(old_fault)))["verdict"] == "error"


def test_count_gives_each_phase_its_share() -> None:
    finding = _finding(_answer([]), _answer([1]))
    outcome = _outcome(
        finding, counted=True, differing={"generated": 10, "wide ranges": 3}, long_lists=0
    )
    report = json.loads(json_report(outcome))
    assert report["counted"] is True
    assert [(p["differing"], p["share"]) for p in report["phases"]] == [
        (0, 0.0),
        (10, 0.25),
        (3, 0.06),
        (0, None),  # no cases: no share
    ]
    assert report["divergence"]["phase"] == "generated"
    lines = text(outcome).splitlines()
    assert lines[-7:-2] == [
        '  fixture:  [{"id":"diff-398c74443aa4","rule":"OLD","input":{"budget":1,"blocks":'
        '[{"id":"A","size":1}],"required":[]},"expected":[1]}]',
        "share:    fixtures: 0 of 3 cases differ (0%)",
        "share:    generated: 10 of 40 cases differ (25%)",
        "share:    wide ranges: 3 of 50 cases differ (6%)",
        "share:    long lists: 0 of 0 cases differ (no cases)",
    ]
    agreeing = text(_outcome(None, counted=True, long_lists=5)).splitlines()
    assert agreeing[0] == "share:    fixtures: 0 of 3 cases differ (0%)"
    assert agreeing[-1].startswith("packcheck diff: agree: 3 fixtures, 40 generated cases, ")


def test_integers_past_2_to_the_53_keep_their_digits() -> None:
    big = _answer({"remaining": 2**70 + 1})
    assert f'"remaining":{2**70 + 1}' in json_report(_outcome(_finding(big, _answer({}))))


def test_github_annotations_are_one_line_each_with_the_rerun_command() -> None:
    outcome = _outcome(_finding(_answer({"kept": ["A,B: 100%"]}), _answer({"kept": []})))
    command, *rest = github(outcome).split("\n")
    assert command.startswith(
        "::error title=packcheck diff%3A generated%3A output%3A NEW and OLD answer differently "
        "(exact JSON and types)::DIFFERS generated case (seed 7, shrunk)%0A"
    )
    assert f"%0Arerun:    {RERUN}%0Apackcheck diff: DIFFERENT after " in command
    assert "100%25" in command  # a '%' in the data is escaped too
    assert "\n".join(rest) == text(outcome)
    notice = github(_outcome(None))
    assert notice.startswith("::notice title=packcheck diff%3A agree::packcheck diff: agree: ")
    assert notice.endswith("\n" + text(_outcome(None)))


def _suite(outcome: DiffOutcome) -> ET.Element:
    root = ET.fromstring(junit_xml(outcome))
    assert root.tag == "testsuites"
    assert root.attrib["name"] == "packcheck diff"
    (suite,) = root
    assert suite.attrib["name"] == "packcheck diff (NEW new.py:f, OLD old.py:f)"
    return suite


def test_junit_has_a_testcase_per_phase_and_the_failure_carries_the_report() -> None:
    outcome = _outcome(_finding(_answer([]), _answer([1])))
    suite = _suite(outcome)
    failure = failed_in_generated(suite, outcome)
    assert failure.attrib == {"message": DIFFERS, "type": "Divergence"}
    cases = suite.findall("testcase")
    assert {c.attrib["classname"] for c in cases} == {"packcheck.diff"}
    assert cases[0].findtext("system-out") == "3 cases"
    properties = {p.attrib["name"]: p.attrib["value"] for p in suite.iter("property")}
    assert properties == {"seed": "7", "rerun": RERUN, "max_examples": "40", "count": "false"}


def test_junit_of_a_counted_run_fails_every_phase_with_divergences() -> None:
    outcome = _outcome(
        _finding(_answer([]), _answer([1])),
        counted=True,
        differing={"generated": 10, "wide ranges": 3},
    )
    suite = _suite(outcome)
    assert (suite.attrib["failures"], suite.attrib["skipped"]) == ("2", "1")
    fixtures, generated, wide, long_lists = suite.findall("testcase")
    assert fixtures.findtext("system-out") == "3 cases"
    assert generated.findtext("failure") == text(outcome)
    failure = wide.find("failure")
    assert failure is not None
    assert failure.attrib == {"message": "3 of 50 cases differ", "type": "Divergence"}
    assert failure.text == (
        "3 of 50 cases differ; the first divergence, shrunk, is reported under generated"
    )
    skipped = long_lists.find("skipped")
    assert skipped is not None
    assert skipped.attrib["message"] == "no cases: left out"


def test_junit_of_an_agreeing_run() -> None:
    suite = _suite(_outcome(None, long_lists=151))
    assert (suite.attrib["failures"], suite.attrib["skipped"]) == ("0", "0")
    assert [c.findtext("system-out") for c in suite.findall("testcase")] == [
        "3 cases",
        "40 cases",
        "50 cases",
        "151 cases",
    ]


def test_the_tallies_of_several_seeds_are_summed_and_their_notes_kept_by_seed() -> None:
    one = replace(_outcome(None), seen={"generated": {"answer": 3, "raise": 1}}, set_aside=2)
    two = replace(
        _outcome(None),
        seed=8,
        seen={"generated": {"answer": 4}, "long lists": {"fault": 1}},
        notes=("1 case where OLD gave no answer within 10 s was not compared",),
        set_aside=5,
    )
    assert tallies([one, two]) == {
        "seen": {"generated": {"answer": 7, "raise": 1}, "long lists": {"fault": 1}},
        "notes": ("seed 8: 1 case where OLD gave no answer within 10 s was not compared",),
        "set_aside": 7,
    }
