"""The batched audit gives the per-step audit's report, byte for byte.

:func:`packcheck.audit._batch.check_chunk` judges a chunk of lines by their text
(``_canonical``), else decodes them into typed records; either way the rule's answer
for all of them comes from the batch kernel and their partitions and results are
compared in bulk; any line neither can vouch for goes to :meth:`Audit.check_line`.
Here random run records, with random defects planted (wrong partitions and results,
other shapes, other keys, labels of every type, units past int64, non-ASCII IDs,
escapes, spaces, lines that are not JSON), are audited both ways:
every violation, as text and as JSON, and the summary must be the same.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_audit_properties import _wrong
from test_partition_properties import step_texts

from packcheck._rule.jsonio import dumps, write_json
from packcheck.audit import Audit, record_step
from packcheck.audit import _batch as batch
from packcheck.audit import _bulk as bulk
from packcheck.audit import _words as words
from packcheck.strategies import cases

#: Changes of a record's shape or label, past the defects of ``_wrong``.
_LABELS: list[Any] = [None, 7, "s-1", "x" * 300, True, None, [1], 2**70]


def _shaped(record: dict[str, Any], how: int, label: Any) -> dict[str, Any]:
    record = dict(record)
    if label is not None:
        record["step" if how % 2 else "id"] = label
    if how == 13:
        record["attempt"] = 1  # a recording system's own key
    elif how == 14 and record["blocks"]:
        record["blocks"] = [{**record["blocks"][0], "id": "é"}, *record["blocks"][1:]]
    elif how == 15 and record["blocks"]:
        record["blocks"] = [{**record["blocks"][0], "size": 2**63}, *record["blocks"][1:]]
    elif how == 16:
        record["rule"] = {"name": "seed"}
    return record


#: Cases the batch takes: ASCII IDs (repeated, required or not), valid small units.
_IDS = st.sampled_from("ABCDE")
_PLAIN = st.fixed_dictionaries(
    {
        "budget": st.integers(0, 30),
        "blocks": st.lists(
            st.fixed_dictionaries({"id": _IDS, "size": st.integers(1, 12)}), max_size=8
        ),
        "required": st.lists(_IDS | st.just("Z"), max_size=4),
    }
)


def _lines(draw: st.DrawFn) -> bytes:
    record = record_step(draw(_PLAIN if draw(st.integers(0, 3)) else cases(max_units=2**70)))
    how = draw(st.integers(0, 16))
    record = _shaped(_wrong(record, how), how, draw(st.sampled_from(_LABELS)))
    line = write_json(record)
    style = draw(st.integers(0, 5))
    if style == 1:
        line = line.replace(',"', ', "')
    elif style == 2:
        line = dumps(record).replace('"A"', '"\\u0041"')
    elif style == 3:
        line += "\r"
    return line.encode()


lines = st.composite(_lines)


def _both(texts: list[bytes]) -> None:
    numbered = list(enumerate(texts, start=1))
    batched, per_step = Audit(), Audit()
    fast = list(batch.check_chunk(batched, numbered, "run.jsonl"))
    slow = [v for number, text in numbered for v in per_step.check_line(text, number, "run.jsonl")]
    assert [str(v) for v in fast] == [str(v) for v in slow]
    assert [dumps(v.to_json()) for v in fast] == [dumps(v.to_json()) for v in slow]
    assert dumps(batched.summary().to_json()) == dumps(per_step.summary().to_json())
    assert batched.summary() == per_step.summary()


# A quarter of the profile's examples: each audits up to 8 lines twice, one in full.
@settings(max_examples=max(50, settings.default.max_examples // 4))
@given(st.lists(lines() | step_texts(), max_size=8))
@example(
    [
        b'{"budget":1,"blocks":[{"id":"A","size":2}],"required":["A"],"partition":'
        b'{"packed":[],"available":[],"dropped":["A"]}}'
    ]
)
@example(
    [
        b'{"budget":0,"blocks":[],"required":[],"partition":'
        b'{"packed":[],"available":[],"dropped":[]},"budget":1}'
    ]
)
@example(
    [
        b'{"budget":1,"blocks":[{"id":"A","size":2}],"required":[],"partition":'
        b'{"packed":[],"available":[],"dropped":["A"]},"result":null}'
    ]
)
# Spaced (so the typed path judges them): one step records its result, the next none.
@example(
    [
        b'{"budget":3, "blocks":[{"id":"A", "size":2},{"id":"B", "size":2}], "required":["B"],'
        b' "partition":{"packed":["A"], "available":["B"], "dropped":[]},'
        b' "result":{"kept":["A"], "remaining":1, "missing":["B"]}}',
        b'{"budget":3, "blocks":[{"id":"A", "size":2},{"id":"B", "size":2}], "required":["B"],'
        b' "partition":{"packed":["A"], "available":["B"], "dropped":[]}}',
    ]
)
def test_batched_steps_report_as_step_by_step(texts: list[bytes]) -> None:
    _both(texts)


def test_a_broken_batch_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # A checker of the checker: a partition with a block it does not have.
    record = record_step({"budget": 1, "blocks": [{"id": "A", "size": 2}], "required": []})
    record["partition"]["dropped"] = ["B"]
    # Spaced: not the recorder's text, so the typed path judges it.
    text = write_json(record).replace(',"', ', "').encode()
    _both([text])
    # A batch that never compares the partition.
    monkeypatch.setattr(bulk, "_same_texts", lambda recorded, _: np.ones(len(recorded), np.bool_))
    with pytest.raises(AssertionError):
        _both([text])


def test_a_broken_text_path_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # The text path (audit/_canonical.py) made blind: it never sees a wrong byte.
    record = record_step({"budget": 1, "blocks": [{"id": "A", "size": 2}], "required": []})
    record["partition"]["dropped"] = ["B"]
    text = write_json(record).encode()
    _both([text])
    monkeypatch.setattr(words, "differ", lambda *args: np.zeros(len(args[1]), np.bool_))
    with pytest.raises(AssertionError):
        _both([text])
