"""What a packer did on a case, and when two packers did the same (packcheck.diff)."""

from __future__ import annotations

from typing import Any, NoReturn

import pytest

from packcheck._packers import CallablePacker, Packer, PackerFault
from packcheck.diff._behaviour import (
    Outcome,
    differences,
    outcome,
    parting,
    parting_block,
)

CASE: dict[str, Any] = {"budget": 0, "blocks": [], "required": []}


def fault_of(message: str, case: dict[str, Any] = CASE) -> Outcome:
    """What a packer adapter that fails with ``message`` did on ``case``."""

    class Faulty(Packer):
        def answer(self, case: dict[str, Any]) -> object:
            raise PackerFault(message)

    return outcome(Faulty(), case)


def answer_of(value: object, case: dict[str, Any] = CASE) -> Outcome:
    """What a function answering ``value`` did on ``case``."""
    return outcome(CallablePacker(lambda case: value), case)


def _raising(exception: Exception) -> NoReturn:
    raise exception


#: Where :func:`raise_of`'s functions raise, as a raise's words name it.
AT = f" (at tests/diff/test_diff_behaviour.py:{_raising.__code__.co_firstlineno + 1})"


def raise_of(exception: Exception, case: dict[str, Any] = CASE) -> Outcome:
    """What a function raising ``exception`` did on ``case``."""

    def packer(case: dict[str, Any]) -> object:
        _raising(exception)

    return outcome(CallablePacker(packer), case)


def test_an_answer_a_raise_and_a_fault_are_told_apart() -> None:
    assert answer_of({"kept": []}) == Outcome("answer", {"kept": []})
    raised = raise_of(ValueError("budget 0"))
    assert (raised.kind, raised.raised) == ("raise", "ValueError")
    assert raised.describe() == f"raised ValueError: budget 0{AT}"
    timeout = fault_of("no answer within 1 s (timeout); packer stopped")
    assert (timeout.kind, timeout.raised) == ("fault", None)
    assert timeout.describe() == "no answer within 1 s (timeout); packer stopped"


NODE_STDERR = (
    "exited with status 1; stderr:\n  | /work/wild.js:33\n"
    '  |     if (c.budget === 0) throw new RangeError("budget must be positive");\n'
    "  |                         ^\n  | RangeError: budget must be positive\n"
    "  |     at pack (/work/wild.js:33:31)\n  | Node.js v18.19.0"
)


@pytest.mark.parametrize(
    ("message", "name", "words"),
    [
        (NODE_STDERR, "RangeError", "raised RangeError: budget must be positive"),
        (
            "exited with status 1; stderr:\n  | Traceback (most recent call last):\n"
            "  |   File \"p.py\", line 3, in <module>\n  | KeyError: 'size'",
            "KeyError",
            "raised KeyError: 'size'",
        ),
        (
            'exited with status 1; stderr: Exception in thread "main" '
            "java.lang.IllegalStateException: empty",
            "java.lang.IllegalStateException",
            'raised Exception in thread "main" java.lang.IllegalStateException: empty',
        ),
        (
            'exited with status 1; stderr:\n  | Exception in thread "main" '
            "java.lang.IllegalStateException: empty\n  |   at Pack.main(Pack.java:9)",
            "java.lang.IllegalStateException",
            'raised Exception in thread "main" java.lang.IllegalStateException: empty',
        ),
        ("exited with status 1; stderr:\n  | out of memory\n  | bye", None, None),
        ("killed by signal 9; stderr:\n  | TypeError: x", None, None),
    ],
)
def test_a_process_that_ends_on_an_exception_raised_it(
    message: str, name: str | None, words: str | None
) -> None:
    found = fault_of(message)
    assert found.raised == name
    assert found.kind == ("fault" if name is None else "raise")
    if words is not None:
        assert found.describe() == f"{words} (exited with status 1)"


def test_a_long_exception_line_is_cut() -> None:
    found = fault_of("exited with status 1; stderr:\n  | Error: " + "x" * 300 + "\n  | more")
    assert found.raised == "Error"
    assert found.describe().endswith("... (exited with status 1)")
    assert len(found.describe()) < 240


def test_agreement_of_outcomes() -> None:
    answer, other = answer_of({"kept": ["A"]}), answer_of({"kept": ["B"]})
    value_error, type_error = raise_of(ValueError("a")), raise_of(ValueError("b"))
    assert differences(answer, answer_of({"kept": ["A"]})) == ()
    assert differences(value_error, type_error) == ()  # same type, other message: alike
    assert differences(answer, other) == (
        "output: NEW and OLD answer differently (exact JSON and types)",
    )
    assert differences(value_error, raise_of(TypeError("c"))) == (
        f"exception: NEW raised ValueError: a{AT}; OLD raised TypeError: c{AT}",
    )
    assert differences(value_error, answer) == (
        f"exception: NEW raised ValueError: a{AT}, where OLD answers",
    )
    assert differences(answer, value_error) == (
        f"exception: OLD raised ValueError: a{AT}, where NEW answers",
    )


def test_a_fault_is_that_sides_even_when_both_fail_alike() -> None:
    timeout = fault_of("no answer within 1 s (timeout); packer stopped")
    answer = answer_of({"kept": []})
    assert differences(timeout, answer) == (
        "NEW's fault: no answer within 1 s (timeout); packer stopped",
    )
    assert differences(answer, timeout) == (
        "OLD's fault: no answer within 1 s (timeout); packer stopped",
    )
    assert differences(timeout, timeout) == (
        "NEW's fault: no answer within 1 s (timeout); packer stopped",
        "OLD's fault: no answer within 1 s (timeout); packer stopped",
    )


@pytest.mark.parametrize(
    ("new", "old", "where"),
    [
        (["A", "B"], ["A", "C"], 'kept[1]: NEW has "B", OLD has "C"'),
        (["A"], ["A", "C"], 'kept[1]: NEW ends after 1 entry; OLD goes on with "C"'),
        (["A", "B", "C"], ["A", "B"], 'kept[2]: OLD ends after 2 entries; NEW goes on with "C"'),
        ([], ["A"], 'kept[0]: NEW ends after 0 entries; OLD goes on with "A"'),
        (["A"], ["A"], None),
        (("A",), ["A"], None),
        ("A", ["A"], None),
    ],
)
def test_where_the_kept_lists_part(new: Any, old: Any, where: str | None) -> None:
    assert parting(answer_of({"kept": new}), answer_of({"kept": old})) == where


def test_no_parting_without_two_kept_lists() -> None:
    kept = answer_of({"kept": ["A"]})
    assert parting(raise_of(ValueError("x")), kept) is None
    assert parting(kept, answer_of({"error": "size"})) is None
    assert parting(answer_of([1]), kept) is None


def _blocks(*ids: str) -> dict[str, Any]:
    return {"budget": 9, "blocks": [{"id": i, "size": 1} for i in ids], "required": []}


@pytest.mark.parametrize(
    ("case", "new", "old", "block"),
    [
        # Both entries named where the lists part are kept: cut past the later block.
        (_blocks("0", "1", "2", "3"), ["0", "2"], ["0", "1"], 2),
        (_blocks("0", "1", "2", "3"), ["1", "2"], ["0", "1", "2"], 1),
        # One list ends: the other's next entry is the only one named.
        (_blocks("0", "1", "2", "3"), ["0"], ["0", "3"], 3),
        (_blocks("0", "1", "2", "3"), ["0", "1"], ["0", "1"], None),
        # An entry no block has, or one two blocks have: no cut.
        (_blocks("0", "1", "2"), ["0", "9"], ["0", "1"], None),
        (_blocks("0", "1", "1"), ["0", "1"], ["0", "2"], None),
        (_blocks("0", "1"), [0], ["0"], None),
        ({"budget": 1, "blocks": "x"}, ["0"], ["1"], None),
        ({"budget": 1, "blocks": [7, {"id": 3}, {"id": "0"}]}, ["0"], [], 2),
        ([], ["0"], ["1"], None),
    ],
)
def test_where_the_kept_lists_part_by_block(
    case: Any, new: list[Any], old: list[Any], block: int | None
) -> None:
    assert parting_block(case, answer_of({"kept": new}), answer_of({"kept": old})) == block


def test_the_oracle_compares_numbers_by_value_when_a_side_speaks_json() -> None:
    from packcheck.diff._oracle import DiffOracle

    class Floats(Packer):
        def answer(self, case: dict[str, Any]) -> object:
            return {"remaining": float(case["budget"])}

    class Ints(Floats):
        speaks_json = True

        def answer(self, case: dict[str, Any]) -> object:
            return {"remaining": int(case["budget"])}

    case = {"budget": 4.0, "blocks": [], "required": []}
    assert DiffOracle(Floats(), Ints()).judge(case, "x") is None
    plain_ints = type("PlainInts", (Floats,), {"answer": Ints.answer})
    assert DiffOracle(Floats(), plain_ints()).judge(case, "x") is not None
