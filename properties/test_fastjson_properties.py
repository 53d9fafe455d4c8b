"""msgspec's fast path reads and writes exactly as packcheck's exact JSON code.

``loads`` tries msgspec first and falls back, line by line, to the exact reader (the
standard library's scanner with packcheck's hooks); ``write_json`` keeps msgspec's
text only where it equals :func:`dumps`.  Here both are compared with the exact code
alone, byte for byte: the same Python values (types, digits, key order) or the same
one-line error, and the same written text, on hostile lines and on generated JSON.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any
from unittest import mock

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from packcheck._rule import jsonio
from packcheck._rule.jsonio import FAST_NESTING, JSONError, dumps, loads, write_json


@contextmanager
def _exact_only() -> Iterator[None]:
    with mock.patch.object(jsonio, "shallow", return_value=False):
        yield


def _shape(value: Any) -> list[tuple[str, object]]:
    """``value`` token by token: each item's exact type and text (digits of any
    length, a ``Decimal``'s own digits and exponent), dict keys in order.  Iterative:
    values come nested hundreds deep."""
    out: list[tuple[str, object]] = []
    todo = [value]
    while todo:
        item = todo.pop()
        kind = type(item).__name__
        if isinstance(item, dict):
            out.append((kind, len(item)))
            for key, member in reversed(item.items()):
                todo += [member, key]
        elif isinstance(item, list):
            out.append((kind, len(item)))
            todo += reversed(item)
        elif type(item) is int:
            out.append((kind, hex(item)))
        else:
            out.append((kind, str(item) if isinstance(item, Decimal) else repr(item)))
    return out


def _outcome(text: str) -> tuple[str, Any, bool]:
    """What ``loads`` gives: the value token by token (:func:`_shape`), or the error's
    message and ``truncated`` flag."""
    try:
        return ("value", _shape(loads(text)), False)
    except JSONError as exc:
        return ("error", str(exc), exc.truncated)


def _exact_outcome(text: str) -> tuple[str, Any, bool]:
    with _exact_only():
        return _outcome(text)


def _same_reading(text: str) -> None:
    assert _outcome(text) == _exact_outcome(text), text[:200]


def _same_writing(value: Any) -> None:
    assert write_json(value) == dumps(value)


def _nested(depth: int, opener: str = "[", closer: str = "]") -> str:
    return opener * depth + "0" + closer * depth


HOSTILE_LINES = [
    # Integers past 2**64 and past CPython's 4,300-digit int(str) guard.
    "18446744073709551616",
    "-18446744073709551617",
    "[340282366920938463463374607431768211457,1]",
    "9" * 4300,
    "9" * 4301,
    '{"budget":' + "1" * 5000 + ',"blocks":[],"required":[]}',
    "1" * 100_001,
    # Fractions: "4.0" is a unit, a long decimal is not rounded into one.
    "4.0",
    "-0.0",
    "4.0000000000000000000000000001",
    "0." + "3" * 400,
    '{"budget":4.0,"blocks":[{"id":"a","size":2.000}],"required":[]}',
    "1e400",
    "-1E400",
    "1e-400",
    "1.5e-99999999999999999999",
    "1e99999999999999999999",
    "0e99999999999999999999",
    "1E+100000",
    "2e0",
    # Strings: lone surrogates, pairs, escapes, raw non-ASCII, DEL, control characters.
    '"\\ud800"',
    '"\\udfff\\ud800"',
    '["\\ud83d\\ude00","😀"]',
    '{"\\ud800":1}',
    '"\\u0000\\u001f\\u007f\\/"',
    '"caf\u00e9 \u2028 \u00a0"',
    '"\x7f"',
    '"\x01"',
    '"\t"',
    '"\\x"',
    # Duplicate keys: the last value, at the first key's place.
    '{"a":1,"b":2,"a":3}',
    '{"blocks":[],"budget":1,"blocks":[{"id":"x","size":1}],"required":[]}',
    # Not JSON, or not strict JSON.
    "NaN",
    "-Infinity",
    "[Infinity]",
    '{"a":NaN}',
    "",
    " ",
    "01",
    "-",
    "1.",
    ".5",
    "+1",
    "[1,]",
    '{"a":1,}',
    "1 2",
    "[1",
    '{"budget": 7,',
    "\x0c1",
    "\u00a01",
    " \t\r\n[1] \t\r\n",
    "tru",
    "nul",
    "[true,false,null]",
    # Nesting: at, just past and far past msgspec's share, and past the exact reader's.
    _nested(FAST_NESTING),
    _nested(FAST_NESTING + 1),
    _nested(FAST_NESTING + 1, '{"a":', "}"),
    _nested(900),
    _nested(2_000),
    _nested(100_000),
    # Brackets inside strings do not nest; escaped quotes do not end a string.
    "[" + ",".join(['"]]]]"'] * 300) + "]",
    '["\\\\",' + _nested(FAST_NESTING) + "]",
    '["\\"[",' + _nested(FAST_NESTING) + "]",
    '["\\"[",' + _nested(FAST_NESTING - 1) + "]",
    "[" + ",".join(["{}"] * 1000) + "]",
]


@pytest.mark.parametrize("text", HOSTILE_LINES, ids=range(len(HOSTILE_LINES)))
def test_hostile_lines_read_the_same(text: str) -> None:
    _same_reading(text)


def test_the_fast_path_is_taken_and_refused_where_expected() -> None:
    # A checker of the comparison: with msgspec alone, lone surrogates would be errors
    # and NaN unreported, so the fallback is what makes the readings the same.
    fast = jsonio._FAST_DECODE
    for text in ('"\\ud800"', "NaN", "9" * 4301):
        with pytest.raises(Exception):  # noqa: B017, PT011 - any refusal
            fast(text)

    # msgspec reads a level or two deeper than the exact reader where the stack ends:
    # why it only reads documents nested FAST_NESTING deep or less.
    def fast_reads(depth: int) -> bool:
        try:
            fast(_nested(depth))
        except RecursionError:
            return False
        return True

    def exact_reads(depth: int) -> bool:
        return _exact_outcome(_nested(depth))[0] == "value"

    assert any(fast_reads(d) and not exact_reads(d) for d in range(FAST_NESTING, 3000))
    assert jsonio.shallow(_nested(FAST_NESTING))
    assert not jsonio.shallow(_nested(FAST_NESTING + 1))
    # And a wrong reader is caught: one that rounds fractions to floats.
    with mock.patch.object(jsonio, "_FAST_DECODE", return_value=4.0):
        assert _outcome("4.0") != _exact_outcome("4.0")


HOSTILE_VALUES = [
    2**64,
    -(2**200),
    10**4300,
    10**5000,
    Decimal("4.0"),
    Decimal("1E+400"),
    Decimal("-0.0"),
    Decimal("0E-1000"),
    Decimal("1E-999999999999999999"),
    "\x7f",
    "\x00\x01\x08\x09\x0a\x0c\x0d\x1f",
    "café",
    "😀",
    "\ud800",
    "\udfff\ud800",
    '"\\/',
    "\u2028\u2029",
    {"a": [1, True, None, False, ""], "b": {}},
    {"kept": ["a", "b"], "remaining": 3, "missing": []},
    {"error": "input", "detail": "line 3: not UTF-8: byte 0xff at offset 7"},
]


@pytest.mark.parametrize("value", HOSTILE_VALUES, ids=range(len(HOSTILE_VALUES)))
def test_hostile_values_write_the_same(value: Any) -> None:
    _same_writing(value)


def test_a_wrong_writer_is_caught() -> None:
    # msgspec writes DEL and non-ASCII raw, dumps escapes non-ASCII: kept apart.
    assert jsonio._fast_encode("é").decode() != dumps("é")
    with mock.patch.object(jsonio, "_fast_encode", return_value=b"[1.0]"):
        assert write_json([1]) != dumps([1])


# Every code point, lone surrogates included.
_TEXT = st.text(st.characters(blacklist_categories=()), max_size=12)
_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63 - 2, max_value=2**65)
    | st.integers(min_value=-(10**4400), max_value=10**4400)
    | st.decimals(allow_nan=False, allow_infinity=False)
    | _TEXT
)
JSON_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(_TEXT, inner, max_size=6),
    max_leaves=40,
)


@given(JSON_VALUES)
def test_generated_values_write_the_same(value: Any) -> None:
    _same_writing(value)


@given(JSON_VALUES)
def test_generated_documents_read_the_same(value: Any) -> None:
    text = dumps(value)
    _same_reading(text)
    # msgspec's own text: raw UTF-8, other escapes (where it can write the value).
    try:
        raw = jsonio._fast_encode(value).decode("utf-8")
    except (TypeError, ValueError, UnicodeDecodeError, RecursionError):
        return
    _same_reading(raw)


_JSONISH = st.text(st.sampled_from(list('[]{}",:0123456789-+.eE \t\n\r\x0c\x7f\\utrfalsn')))


@given(_JSONISH)
@example('{"a":1,"a":[2]}')
@example("[1e400,-0,0.0e0]")
def test_jsonish_text_reads_the_same(text: str) -> None:
    _same_reading(text)


@given(JSON_VALUES, st.data())
def test_spliced_documents_read_the_same(value: Any, data: st.DataObject) -> None:
    text = dumps([value, value])
    at = data.draw(st.integers(0, len(text)))
    cut = data.draw(st.integers(0, 3))
    insert = data.draw(_JSONISH.filter(lambda s: len(s) <= 3))
    _same_reading(text[:at] + insert + text[at + cut :])
