"""``--explain``: a trace rendered for a person."""

from __future__ import annotations

from typing import Any

import pytest

from packcheck import Trace, trace
from packcheck._cli import explain as explain_cli
from packcheck._cli.explain import SHOWN_AHEAD, explain_lines, show_id
from packcheck._rule.jsonio import dumps


def explain(trace: Trace, where: str) -> str:
    return "\n".join(explain_lines(trace, where))


def case(budget: Any, blocks: list[tuple[str, Any]], required: list[str]) -> dict[str, Any]:
    return {
        "budget": budget,
        "blocks": [{"id": i, "size": s} for i, s in blocks],
        "required": required,
    }


def test_distractor_first_says_a_and_b_used_the_seven_units() -> None:
    text = explain(trace(case(7, [("A", 4), ("B", 3), ("C", 2)], ["B", "C"])), "case 1")
    assert text.splitlines() == [
        "case 1:",
        "  index  id  size  remaining before  bucket",
        "      0  A      4                 7  packed",
        "      1  B      3                 3  packed",
        "      2  C      2                 0  available",
        "  packed:    A, B",
        "  available: C",
        "  dropped:   -",
        '  result: {"kept":["A","B"],"remaining":0,"missing":["C"]}',
        "  missing C: evicted - kept ahead of it: A (4), B (3); they used 7 of 7 units,"
        " leaving 0 when C (size 2) was reached",
    ]


def test_every_reason_is_explained() -> None:
    value = case(1, [("A", 1), ("B", 1), ("C", 2)], ["B", "C", "Z"])
    lines = explain(trace(value), "line 4").splitlines()
    assert lines[-3:] == [
        "  missing B: evicted - kept ahead of it: A (1); they used 1 of 1 unit,"
        " leaving 0 when B (size 1) was reached",
        "  missing C: oversized - every block with this ID is larger than the whole budget",
        "  missing Z: not-retrieved - no block has this ID",
    ]
    assert "  dropped:   C" in lines


def test_no_blocks() -> None:
    lines = explain(trace(case(3, [], [])), "x").splitlines()
    assert lines[1:3] == ["  index  id  size  remaining before  bucket", "  (no blocks)"]
    assert "  packed:    -" in lines


def test_a_size_error_names_the_field_and_scans_nothing() -> None:
    text = explain(trace(case(3, [("C", -1)], ["C"])), "case 3 (invalid-size)")
    assert text.splitlines() == [
        "case 3 (invalid-size):",
        '  result: {"error":"size"}',
        "  no packing: blocks[0].size: -1 (number) is not an integer >= 1",
    ]


@pytest.mark.parametrize(
    ("block_id", "shown"),
    [
        ("A", "A"),
        ("caf\u00e9", "caf\u00e9"),
        ("\U0001f600", "\U0001f600"),
        ("", '""'),
        (" A", '" A"'),
        ("A\n", '"A\\n"'),
        ("a\x00b", '"a\\u0000b"'),
        ("\ud800", '"\\ud800"'),
    ],
)
def test_ids_are_shown_as_typed_or_escaped(block_id: str, shown: str) -> None:
    assert show_id(block_id) == shown


def test_an_escaped_id_in_the_table_and_the_reasons() -> None:
    value = case(1, [("\ud83d", 9), ("", 1), ("\ud800", 1)], ["\ud83d", "\ud800"])
    text = explain(trace(value), "c")
    assert '"\\ud83d"     9                 1  dropped' in text
    assert '  missing "\\ud800": evicted - kept ahead of it: "" (1);' in text


def test_a_long_run_of_kept_blocks_is_named_up_to_a_limit_then_counted() -> None:
    ids = [f"k{i}" for i in range(SHOWN_AHEAD + 1)]
    exactly = case(len(ids), [(i, 1) for i in [*ids, "X"]], ["X"])
    (line,) = [ln for ln in explain_lines(trace(exactly), "c") if ln.startswith("  missing")]
    assert ", ".join(f"{i} (1)" for i in ids) + "; they used 9 of 9 units" in line
    longer = case(len(ids) + 1, [(i, 1) for i in [*ids, "k9", "X"]], ["X"])
    (line,) = [ln for ln in explain_lines(trace(longer), "c") if ln.startswith("  missing")]
    named = ", ".join(f"k{i} (1)" for i in range(SHOWN_AHEAD))
    assert line == (
        f"  missing X: evicted - kept ahead of it: {named}, and 2 more; they used 10 of 10 units,"
        " leaving 0 when X (size 1) was reached"
    )


def test_only_the_first_available_copy_of_an_evicted_id_is_explained() -> None:
    value = case(2, [("A", 2), ("X", 1), ("B", 5), ("X", 1)], ["X"])
    (line,) = [ln for ln in explain_lines(trace(value), "c") if ln.startswith("  missing")]
    assert line.endswith(
        "kept ahead of it: A (2); they used 2 of 2 units, leaving 0 when X (size 1) was reached"
    )


def test_the_lines_are_produced_one_at_a_time() -> None:
    lines = explain_lines(trace(case(1, [("A", 1)], [])), "c")
    assert next(lines) == "c:"
    assert next(lines).startswith("  index")


def test_numbers_past_the_str_int_guard_are_written_in_full() -> None:
    # str() refuses an int of more than 4,300 digits; the explanation shows them all.
    big, digits, plus_one = 10**5000, "1" + "0" * 5000, "1" + "0" * 4999 + "1"
    text = explain(trace(case(big + 1, [("A", big), ("B", 2)], ["B"])), "case 1")
    rows = [line.split() for line in text.splitlines()]
    assert ["0", "A", digits, plus_one, "packed"] in rows
    assert f"they used {digits} of {plus_one} units, leaving 1 when B (size 2)" in text
    assert f"A ({digits})" in text


def test_numbers_are_written_as_json_writes_them_at_any_length() -> None:
    for value in (0, 7, -3, 2**64, 10**5000 + 1):
        assert explain_cli._number(value) == dumps(value)
    assert explain_cli._number(True) == "true"  # type: ignore[arg-type]
