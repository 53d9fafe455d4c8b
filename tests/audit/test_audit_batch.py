"""The batched audit (``audit._batch``, ``audit._bulk``) at its edges, against the
per-step path; the generated comparison is ``properties/test_audit_batch_properties.py``."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from packcheck._cli import audit as cli_audit
from packcheck._cli import main
from packcheck._partition.facts import InvariantError
from packcheck._rule.jsonio import dumps, write_json
from packcheck.audit import (
    Audit,
    Violation,
    _batch,
    _bulk,
    _canonical,
    _check,
    _twice,
    check_run,
    record_step,
)
from packcheck.audit._batch import check_chunk


def _both(lines: list[bytes], **options: Any) -> tuple[Audit, list[Violation]]:
    numbered = list(enumerate(lines, start=1))
    batched, per_step = Audit(**options), Audit(**options)
    fast = list(check_chunk(batched, numbered, "run.jsonl"))
    slow = [v for number, text in numbered for v in per_step.check_line(text, number, "run.jsonl")]
    assert fast == slow
    assert dumps(batched.summary().to_json()) == dumps(per_step.summary().to_json())
    return batched, fast


def _line(case: dict[str, Any], **extra: Any) -> bytes:
    return write_json({**record_step(case), **extra}).encode()


LOSING = {
    "budget": 3,
    "blocks": [{"id": "A", "size": 2}, {"id": "B", "size": 2}],
    "required": ["B", "C", "C"],
}


def test_losses_past_the_steps_shown_and_the_ids_tracked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_check, "MAX_STEPS_SHOWN", 3)
    lines = [_line(LOSING, step=n) for n in range(5)]
    lines.insert(2, b"not json")  # the per-step path between two runs of good steps
    audit, found = _both(lines, max_tracked=1)
    assert [v.check for v in found] == ["malformed"]
    (loss,) = audit.summary().lost
    assert (loss.id, loss.count, len(loss.steps), audit.untracked) == ("B", 5, 3, 5)


def test_labels_and_steps_without_a_result() -> None:
    long = "x" * 201
    record = record_step(LOSING)
    del record["result"]
    lines = [
        _line(LOSING, step=long),
        _line(LOSING, id=7),
        write_json(record).encode(),
        _line({"budget": 0, "blocks": [], "required": []}),
    ]
    audit, found = _both(lines)
    assert found == []
    assert audit.summary().lost[0].steps[0][1] == dumps(long)[:200]
    wrong = {**record, "partition": {"packed": ["A"], "available": [], "dropped": ["B"]}}
    assert [v.line for v in _both([*lines, write_json(wrong).encode()])[1]] == [5]


def test_many_required_ids_make_the_reasons_table_in_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_bulk, "_TABLE_CELLS", 4)
    case = {
        "budget": 3,
        "blocks": [{"id": i, "size": 2} for i in "ABCD"],
        "required": list("ABCDEFGH"),
    }
    audit, found = _both([_line(case, step=n) for n in range(6)])
    assert found == []
    assert [loss.id for loss in audit.summary().lost] == list("BCDEFGH")


def test_the_cli_leaves_the_collector_as_it_found_it(tmp_path: Any) -> None:
    run = tmp_path / "run.jsonl"
    run.write_bytes(_line(LOSING) + b"\n")
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            with cli_audit._collector_paused():
                assert not gc.isenabled()
            assert gc.isenabled() is enabled
        finally:
            gc.enable()


def test_every_planted_defect_of_the_benchmark_run_is_reported_on_its_line(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # The run the audit is timed on (benchmarks/make_audit_run.py), shorter, denser.
    run, planted = tmp_path / "run.jsonl", tmp_path / "planted.txt"
    script = Path(__file__).parents[2] / "benchmarks" / "make_audit_run.py"
    with run.open("wb") as out:
        subprocess.run(
            [
                sys.executable,
                str(script),
                "--steps",
                "3000",
                "--violating",
                "0.05",
                "--planted",
                str(planted),
            ],
            stdout=out,
            check=True,
        )
    lines = [int(number) for number in planted.read_text().split()]
    assert len(lines) > 100
    assert main(["audit", "--format", "json", str(run)]) == 1
    *found, summary = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted({v["line"] for v in found}) == lines
    per_step = check_run(run.read_bytes().splitlines(keepends=True))
    assert [v.to_json() for v in per_step.violations] == found
    assert per_step.summary.to_json() == summary


def _judged_by_text(lines: list[bytes]) -> list[bool]:
    """Per line, whether the text path (``audit._canonical``) vouches for it."""
    records = [_batch._lean(line) for line in lines]
    assert None not in records
    return _canonical.TextChunk(records).right  # type: ignore[arg-type]


def test_the_recorders_lines_are_judged_by_their_text() -> None:
    long = "i" * 17  # a key of three words
    cases = [
        LOSING,
        {"budget": 0, "blocks": [], "required": []},
        {"budget": 5, "blocks": [], "required": ["Z", "A", "Z"]},
        {
            "budget": 2 * 10**17,
            "blocks": [
                {"id": long, "size": 10**17},
                {"id": "A", "size": 123_456_789},
                {"id": long + "x", "size": 10**17 + 1},
                {"id": long, "size": 999_999_999_999_999_999},
                {"id": "", "size": 1},
            ],
            "required": [long + "x", long, "b", "", "A", "a", long],
        },
    ]
    lines = [_line(case) for case in cases] + [_line(LOSING, step=3), _line(LOSING, id="s")]
    assert _judged_by_text(lines) == [True] * len(lines)
    audit, found = _both(lines)
    assert found == []
    lost = {loss.id: loss.reasons for loss in audit.summary().lost}
    assert lost["Z"] == {"not-retrieved": 1}  # once a step, however often required
    assert lost[long + "x"] == {"evicted": 1}
    assert "" not in lost
    assert long not in lost


@pytest.mark.parametrize(
    "text",
    [
        b'"blocks":12',  # two bytes, no quote: no ``[]``
        b'"blocks":[{"size":2,"id":"A"},{"id":"B","size":2}]',
        b'"blocks":[{"id":"A","size":2}, {"id":"B","size":2}]',
        b'"blocks":[{"id":"A","size":2,"x":1},{"id":"B","size":2}]',
        b'"blocks":[{"id":"A","size":2},{"id":"B","size":2.0}]',
        b'"blocks":[{"id":"A","size":2},{"id":"B","size":1e1}]',
        b'"blocks":[{"id":"A","size":2},{"id":"B","size":0}]',
        b'"blocks":[{"id":"A","size":2},{"id":"B","size":-2}]',
        b'"blocks":[{"id":"A","size":2},{"id":"B","size":1000000000000000000}]',
        b'"blocks":[{"id":"A","size":2},{"id":"B","size":"2"}]',
        b'"blocks":[{"id":"A","size":2},{"id":3,"size":2}]',
        b'"blocks":[{"id":"A","size":2},{"id":"B","sizE":2}]',
        b'"blocks":[{"id":"A","size":2},{"iD":"B","size":2}]',
        b'"blocks":[{"id":"A","size":2},{"id":"B"}]',
        b'"blocks":[{"id":"A","size":2},[{"id":"B","size":2}]]',
        b'"blocks":[[{"id":"A","size":2}],{"id":"B","size":2}]',
        b'"blocks":[{"id":"A","size":2},{"id":"' + b"B" * 33 + b'","size":2}]',
        b'"blocks":{"id":"A","size":2}',
        b'"blocks":[1,{"id":"A","size":2},{"id":"B","size":2}]',
        b'"blocks":[ {"id":"A","size":2},{"id":"B","size":2}]',
    ],
)
def test_other_blocks_are_left_to_the_typed_path(text: bytes) -> None:
    line = _line(LOSING).replace(b'"blocks":[{"id":"A","size":2},{"id":"B","size":2}]', text)
    lines = [_line(LOSING), line, _line(LOSING)]
    assert _judged_by_text(lines) == [True, False, True]
    _both(lines)


def test_a_step_past_the_texts_bounds_is_left_to_the_typed_path() -> None:
    many = {**LOSING, "required": ["A"] * (_canonical.MOST_REQUIRED + 1)}
    long = {**LOSING, "required": ["C" * (_canonical.KEY_BYTES + 1)]}
    lines = [_line(many), _line(long), _line(LOSING), write_json({**LOSING, "x": 1}).encode()]
    assert _judged_by_text(lines[:3]) == [False, False, True]
    _both(lines)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (b'"packed":["A"]', b'"packed":["B"]'),
        (b'"available":["B"]', b'"available":[]'),
        (b'"dropped":[]', b'"dropped":["B"]'),
        (b'"dropped":[]}', b'"dropped":[] }'),
        (b'"kept":["A"]', b'"kept":["A","A"]'),
        (b'"remaining":1', b'"remaining":2'),
        (b'"missing":["B","C","C"]', b'"missing":["C","B","C"]'),
        (b'"missing":["B","C","C"]', b'"missing":["B","C"]'),
        (b',"result":{"kept":["A"],"remaining":1,"missing":["B","C","C"]}', b""),
        (b'"result":{"kept":["A"],"remaining":1,"missing":["B","C","C"]}', b'"result":null'),
    ],
)
def test_a_wrong_text_is_left_to_the_other_paths(old: bytes, new: bytes) -> None:
    right = _line(LOSING)
    assert old in right
    lines = [right, right.replace(old, new), right]
    assert _judged_by_text(lines) == [True, False, True]
    _both(lines)


def test_a_wrong_ID_in_a_keys_later_word_is_seen() -> None:
    case = {"budget": 3, "blocks": [{"id": "x" * 20, "size": 2}], "required": ["x" * 20]}
    right = _line(case)
    wrong = right.replace(b'"packed":["' + b"x" * 20, b'"packed":["' + b"x" * 19 + b"y")
    assert _judged_by_text([right, wrong]) == [True, False]
    assert [v.check for v in _both([right, wrong])[1]] == ["packed-is-kept"]


@pytest.mark.parametrize("wrong", [None, 0, 1, 4])
def test_a_chunks_losses_are_tallied_in_line_order(
    monkeypatch: pytest.MonkeyPatch, wrong: int | None
) -> None:
    monkeypatch.setattr(_check, "MAX_STEPS_SHOWN", 3)
    cases = [
        {
            "budget": budget,
            "blocks": [
                {"id": i, "size": size} for i, size in zip("ABCD", (2, 3, 9, 1), strict=True)
            ],
            "required": list("DCBAEE"[budget % 3 :]),
        }
        for budget in (0, 9, 3, 10)  # C oversized, evicted, oversized, evicted: a tie
    ]
    lines = [_line(case, step=n) for n, case in enumerate(cases * 3)]
    assert all(_judged_by_text(lines))
    if wrong is not None:
        # A violating step among the good ones: its losses are met where it stands.
        record = json.loads(lines[wrong])
        record["partition"]["dropped"].append("Z")
        lines[wrong] = write_json(record).encode()
        assert not _judged_by_text(lines)[wrong]
    audit, found = _both(lines)
    assert [v.line for v in found] == ([] if wrong is None else [wrong + 1])
    lost = {loss.id: loss for loss in audit.summary().lost}
    assert lost["C"].reasons == {"oversized": 6, "evicted": 6}
    assert list(lost["C"].reasons) == ["oversized", "evicted"]  # the tie: first met first
    assert [step[0] for step in lost["E"].steps] == [1, 2, 3]


def test_sizes_no_int64_holds_and_sizes_below_one_are_left_to_the_other_paths() -> None:
    huge = _line({"budget": 5, "blocks": [{"id": "A", "size": 10**19 - 1}], "required": []})
    # Recorded as if a size of 0 were a unit: the per-step path says it is not.
    free = write_json(
        {
            "budget": 3,
            "blocks": [{"id": "A", "size": 0}],
            "required": [],
            "partition": {"packed": ["A"], "available": [], "dropped": []},
            "result": {"kept": ["A"], "remaining": 3, "missing": []},
        }
    ).encode()
    lines = [huge, free, _line(LOSING)]
    assert _judged_by_text(lines) == [False, False, True]
    assert [v.line for v in _both(lines)[1]] == [2, 2]


def _recorded(budget: int, size: str, block_id: str, required: str, packed: bool) -> bytes:
    """A record written by hand: one block, its size's text as given."""
    bucket = {"packed": [block_id] * packed, "available": [], "dropped": [block_id] * (not packed)}
    missing = [] if packed or not required else [required]
    result = {"kept": bucket["packed"], "remaining": budget, "missing": missing}
    record = {
        "budget": budget,
        "blocks": [{"id": block_id, "size": 7}],
        "required": [required] if required else [],
        "partition": bucket,
        "result": result,
    }
    return write_json(record).replace('"size":7', f'"size":{size}').encode()


@pytest.mark.parametrize(
    "wrong",
    [
        # Each is what a reader that skipped a check would compute, and vouch for.
        _recorded(100, "1e1", "A", "", False),  # the digits of 1e1 read as 151
        _recorded(5, str(10**19 - 1), "A", "", True).replace(
            b'"remaining":5', b'"remaining":8446744073709551622'
        ),  # 10**19 - 1 wrapped past int64, a negative size, kept
        _recorded(5, "2", "x" * 40, "x" * 32, False)
        .replace(b'"dropped":["' + b"x" * 40 + b'"]', b'"dropped":[]')
        .replace(b'"packed":[]', b'"packed":["' + b"x" * 40 + b'"]')
        .replace(b'"missing":["' + b"x" * 32 + b'"]', b'"missing":[]')
        .replace(b'"kept":[]', b'"kept":["' + b"x" * 40 + b'"]')
        .replace(b'"remaining":5', b'"remaining":3'),  # an ID past 32 bytes read as its first 32
        _line({**LOSING, "required": ["C"] * 32 + ["A"]}).replace(
            b'"missing":["C"', b'"missing":["A","C"'
        ),  # the 33rd required ID never compared, so missing
    ],
)
def test_a_record_only_a_careless_reader_vouches_for_is_reported(wrong: bytes) -> None:
    lines = [wrong, _line(LOSING)]
    assert _judged_by_text(lines) == [False, True]
    assert [v.line for v in _both(lines)[1]][:1] == [1]


def _recorded_as(case: dict[str, Any], step: int, **recorded: Any) -> bytes:
    """``case`` recorded by a run that answered or captured ``recorded`` (``None``: not
    recorded at all), not what the rule gives."""
    record = {**record_step(case), "step": step, **recorded}
    return write_json({k: v for k, v in record.items() if v is not None}).encode()


OVERSIZED = {
    "budget": 3,
    "blocks": [{"id": "A", "size": 2}, {"id": "B", "size": 2}, {"id": "D", "size": 9}],
    "required": ["D", "B", "C"],
}


def test_lost_is_what_the_record_shows_its_step_kept() -> None:
    kept_b = {"kept": ["B"], "remaining": 1, "missing": ["C", "D"]}
    kept_none = {"kept": [], "remaining": 3, "missing": ["B", "C", "D"]}
    lines = [
        _line(OVERSIZED, step=0),  # the rule's: B evicted, C not-retrieved, D oversized
        _recorded_as(OVERSIZED, 1, result=kept_b),  # B kept: C and D lost, as the case says
        _recorded_as(OVERSIZED, 2, result=kept_none),  # B lost, and why is unknown
        # No result: the partition's packed is what the step kept.
        _recorded_as(
            OVERSIZED, 3, result=None, partition={"packed": [], "available": [], "dropped": []}
        ),
        # A wrong remaining, the rule's kept: the rule's losses.
        _recorded_as(OVERSIZED, 4, result={"kept": ["A"], "remaining": 0, "missing": []}),
        # No list of kept IDs shown: what the step lost is unknown.
        _recorded_as(OVERSIZED, 5, result={"error": "size"}),
        _recorded_as(OVERSIZED, 6, result=None, partition=None),
        _recorded_as(OVERSIZED, 7, result={"kept": [1]}),
    ]
    audit, found = _both(lines)
    assert [v.step for v in found if v.check == "result"] == [1, 2, 4, 5, 7]
    summary = audit.summary()
    lost = {loss.id: (loss.reasons, [at[1] for at in loss.steps]) for loss in summary.lost}
    assert lost == {
        "B": ({"evicted": 2, "unknown": 2}, [0, 2, 3, 4]),
        "C": ({"not-retrieved": 5}, [0, 1, 2, 3, 4]),
        "D": ({"oversized": 5}, [0, 1, 2, 3, 4]),
    }
    assert summary.unknown == 3
    assert summary.to_json()["unknown_steps"] == 3
    merged = Audit()
    for number, line in enumerate(lines, start=1):
        part = Audit(max_tracked=None)
        part.check_line(line, 1, "run.jsonl")
        part.shift(number - 1)
        merged.merge(part)
    assert merged.summary() == summary


def test_the_summary_says_what_the_run_lost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run.jsonl"
    kept_b = {"kept": ["B"], "remaining": 1, "missing": ["C", "D"]}
    run.write_bytes(
        _recorded_as(OVERSIZED, 1, result=kept_b)
        + b"\n"
        + _recorded_as(OVERSIZED, 2, result={"error": "size"})
        + b"\n"
    )
    assert main(["audit", str(run)]) == 1
    summary = capsys.readouterr().out.splitlines()[-3:]
    assert summary == [
        '  lost "C": missing in 1 step (not-retrieved 1): line 1 (step 1)',
        '  lost "D": missing in 1 step (oversized 1): line 1 (step 1)',
        "  lost in 1 step: unknown (no list of kept IDs recorded)",
    ]
    run.write_bytes(_recorded_as(OVERSIZED, 1, partition=None, result=None) + b"\n")
    assert main(["audit", str(run)]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == (
        "  lost in 1 step: unknown (no list of kept IDs recorded)"
    )


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            b',"missing":["C"]}',
            b',"kept":["C"]}',
            "result: keys: key 'kept' given twice, absent keys ['missing']",
        ),
        (
            b',"missing":["C"]}',
            b',"kept":[],"x":1,"remaining":0}',
            "result: keys: keys 'kept', 'remaining' given twice, extra keys ['x'], "
            "absent keys ['missing']",
        ),
        (
            b',"dropped":[]}',
            b',"packed":[]}',
            "shape: key 'packed' given twice, absent keys ['dropped']",
        ),
    ],
)
def test_a_key_given_twice_is_named_where_it_leaves_another_absent(
    old: bytes, new: bytes, message: str
) -> None:
    line = _line(
        {
            "budget": 7,
            "blocks": [{"id": "A", "size": 4}, {"id": "B", "size": 3}, {"id": "C", "size": 2}],
            "required": ["C"],
        }
    )
    assert old in line
    _, found = _both([line.replace(old, new)])
    assert [str(v).removeprefix("run.jsonl: line 1: ") for v in found][-1] == message
    # The key absent, none given twice: as ever.
    _, found = _both([line.replace(old, b"}")])
    absent = message.rpartition(", absent keys ")[2]
    assert str(found[-1]).endswith(f": extra keys [], absent keys {absent}")


def test_a_record_is_read_again_for_its_keys_given_twice_only_where_it_can_be() -> None:
    keyed = _twice.read_keyed('{"result":{"kept":[],"kept":[]}}', "result")
    assert (keyed, keyed.twice if keyed else None) == ({"kept": []}, ("kept",))
    assert _twice.read_keyed('{"result":{"kept":[1.5]}}', "result") is None  # none twice
    assert _twice.read_keyed('{"result":[]}', "result") is None
    assert _twice.read_keyed("[]", "result") is None
    assert _twice.read_keyed('{"x":' + "9" * 5000 + "}", "x") is None  # past int()'s digits
    assert _twice.read_keyed("[" * 100_000 + "]" * 100_000, "x") is None
    assert _twice.read_keyed('{"x":0e999999999999999999999}', "x") is None  # no Decimal
    # A check that passes read so leaves the error as it was.
    error = InvariantError("keys", "as it was")
    assert _twice.keys_twice(error, '{"r":{"a":1,"a":2}}', "r", lambda keyed: None) is error
