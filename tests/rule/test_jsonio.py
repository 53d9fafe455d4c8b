"""Strict JSON in, compact ASCII JSON out, exact numbers both ways."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from packcheck._rule.jsonio import (
    SHOWN_DIGITS,
    JSONError,
    dumps,
    loads,
    shortened,
    show,
    show_int,
)
from packcheck._rule.units import MAX_DIGITS


def test_integers_are_ints_and_fractions_are_decimals() -> None:
    value = loads('{"a": 4, "b": 4.0, "c": 4.0000000000000000001, "d": -0, "e": 1e2}')
    assert value == {
        "a": 4,
        "b": Decimal("4.0"),
        "c": Decimal("4.0000000000000000001"),
        "d": 0,
        "e": Decimal("1E+2"),
    }
    assert type(value["a"]) is int
    assert value["c"] != 4


def test_integers_past_the_str_int_guard_are_read_exactly() -> None:
    big = 10**5000 - 1  # 5000 nines
    assert loads(f"[{'9' * 5000}, -{'9' * 5000}, 1]") == [big, -big, 1]
    assert loads("1" + "0" * (MAX_DIGITS - 1)) == 10 ** (MAX_DIGITS - 1)


@pytest.mark.parametrize(
    "text",
    ["1" * (MAX_DIGITS + 1), "-" + "1" * (MAX_DIGITS + 1), f"1E+{MAX_DIGITS}", "1.5E+100000"],
)
def test_numbers_past_the_digit_limit_are_refused(text: str) -> None:
    with pytest.raises(JSONError, match=r"number has 10000[12] digits; the limit is 100000"):
        loads(text)


@pytest.mark.parametrize("text", ["1E+9999999999999999999999999", "-2.5e+99999999999999999999"])
def test_exponents_beyond_decimal_are_refused(text: str) -> None:
    with pytest.raises(JSONError, match="has an exponent out of range"):
        loads(text)


@pytest.mark.parametrize(
    ("text", "stand_in"),
    [
        ("1E-9999999999999999999999999", "1E-999999999999999999"),
        ("-2.5e-99999999999999999999", "-2.5E-999999999999999999"),
        ("12.5e-99999999999999999999", "1.25E-999999999999999998"),
    ],
)
def test_a_fraction_past_decimals_exponents_is_read_as_a_fraction(text: str, stand_in: str) -> None:
    # Valid JSON whose value is no integer: a size error in a case, not malformed input.
    got = loads(text)
    assert str(got) == stand_in
    assert got != got.to_integral_value()


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0E+999999999", Decimal("0E+999999999")),
        # Past Decimal's exponents: zero at its extreme exponent, still no integer literal.
        ("0E+99999999999999999999999", Decimal("0E+999999999999999999")),
        ("-0.00e-99999999999999999999999", Decimal("-0E-999999999999999999")),
    ],
)
def test_zero_is_zero_at_any_exponent(text: str, value: Decimal) -> None:
    got = loads(text)
    assert got == 0
    assert str(got) == str(value)


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "[1, NaN]"])
def test_non_finite_literals_are_refused(text: str) -> None:
    with pytest.raises(JSONError, match="is not valid JSON"):
        loads(text)


@pytest.mark.parametrize(
    ("text", "message", "truncated"),
    [
        ('{"budget": 7,', "Expecting property name enclosed in double quotes at column 14", True),
        ("[1, 2", "Expecting ',' delimiter at column 6", True),
        ("{ \t", "Expecting property name enclosed in double quotes at column 4", True),
        ('{"a" 1}', "Expecting ':' delimiter at column 6", False),
        ("[1]]", "Extra data at column 4", False),
        ("[\n1,\n]", "Expecting value at line 3 column 1", False),
        ("[\n1,\n", "Expecting value at line 3 column 1", True),
        ("", "Expecting value at column 1", True),
        # json's own message ends in "at": said once ("at at column" before).
        ('{"a": "x', "Unterminated string starting at column 7", False),
        ('{"a": "x\x01"}', "Invalid control character at column 9", False),
    ],
)
def test_invalid_json_says_where_and_whether_it_was_cut_short(
    text: str, message: str, truncated: bool
) -> None:
    with pytest.raises(JSONError) as info:
        loads(text)
    assert str(info.value) == f"invalid JSON: {message}"
    assert info.value.truncated is truncated


def test_nesting_deeper_than_the_recursion_limit_is_refused() -> None:
    with pytest.raises(JSONError, match="nesting too deep"):
        loads("[" * 200_000 + "]" * 200_000)


def test_duplicate_keys_keep_the_last_like_json_parse() -> None:
    assert loads('{"budget": 1, "budget": 2}') == {"budget": 2}


def test_dumps_is_compact_ascii_and_keeps_key_order() -> None:
    assert dumps({"kept": ["\u00e9", "\U0001f600"], "remaining": 0, "missing": []}) == (
        '{"kept":["\\u00e9","\\ud83d\\ude00"],"remaining":0,"missing":[]}'
    )


def test_lone_surrogates_survive_a_round_trip_as_escapes() -> None:
    text = '["\\udc00", "\\ud83d", "a\\ud800b"]'
    value = loads(text)
    assert value == ["\udc00", "\ud83d", "a\ud800b"]
    assert dumps(value) == '["\\udc00","\\ud83d","a\\ud800b"]'


def test_dumps_writes_huge_integers_exactly() -> None:
    big = 10**5000 + 1
    out = dumps({"remaining": big, "x": [-big, True, None, 1.5, "s"], 7: []})
    assert out == f'{{"remaining":1{"0" * 4999}1,"x":[-1{"0" * 4999}1,true,null,1.5,"s"],"7":[]}}'


def test_dumps_writes_decimals_as_written() -> None:
    value = loads('{"a": [2.50, 4.0000000000000000001, 1E+5, -0.0], "b": {}}')
    assert dumps(value) == '{"a":[2.50,4.0000000000000000001,1E+5,-0.0],"b":{}}'
    assert json.loads(dumps(value)) == {"a": [2.5, 4.0, 1e5, -0.0], "b": {}}


def test_dumps_writes_deep_nesting_without_recursion() -> None:
    deep: Any = [Decimal("2.5")]
    for _ in range(5000):
        deep = {"k": [deep]}
    out = dumps(deep)
    assert out.startswith('{"k":[{"k":[')
    assert out.endswith("[2.5]" + "]}" * 5000)
    assert out.count("{") == 5000


def test_huge_integers_are_shown_shortened_and_never_refused() -> None:
    huge = 10**100_000
    assert show_int(huge) == "100000000000...000000 (100,001 digits)"
    assert show_int(-huge - 7, grouped=True) == "-100000000000...000007 (100,001 digits)"
    assert show_int(-1234, grouped=True) == "-1,234"
    assert show_int(10**SHOWN_DIGITS - 1) == "9" * SHOWN_DIGITS
    assert show(huge, 200) == "100000000000...000000 (100,001 digits)"
    answer = {"kept": ("A",), "remaining": huge, "more": [huge, 2]}
    assert shortened(answer, repr) == (
        "{'kept': ('A',), 'remaining': 100000000000...000000 (100,001 digits), "
        "'more': [100000000000...000000 (100,001 digits), 2]}"
    )
    assert shortened([huge, "x"], dumps) == '[100000000000...000000 (100,001 digits),"x"]'
