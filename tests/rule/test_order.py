"""The order of ``missing``: UTF-16 code units, as JavaScript's default sort."""

from __future__ import annotations

import pytest

from packcheck import sorted_utf16, utf16_key

GRIN = "\U0001f600"  # above U+FFFF: a surrogate pair in UTF-16
FULLWIDTH_A = "\uff21"  # in U+E000-U+FFFF: one code unit


def test_a_character_above_the_bmp_sorts_before_the_top_of_the_bmp() -> None:
    # Python's code-point order says the opposite; JavaScript's sort agrees with this.
    assert sorted([FULLWIDTH_A, GRIN]) == [FULLWIDTH_A, GRIN]
    assert sorted_utf16([FULLWIDTH_A, GRIN]) == [GRIN, FULLWIDTH_A]
    assert sorted_utf16(["\uff00", GRIN, "\ue000", "z"]) == ["z", GRIN, "\ue000", "\uff00"]


def test_ascii_and_prefixes_sort_as_usual() -> None:
    assert sorted_utf16(["b", "a", "ab", "", "B"]) == ["", "B", "a", "ab", "b"]


def test_repeats_are_kept_and_the_sort_is_stable() -> None:
    assert sorted_utf16(["C", "A", "C", "A"]) == ["A", "A", "C", "C"]
    assert sorted_utf16(iter(["x"])) == ["x"]


def test_lone_surrogates_are_legal_ids_and_sort_by_their_code_unit() -> None:
    high, low = "\ud800", "\udfff"
    assert utf16_key(high) == b"\xd8\x00"
    assert sorted_utf16([FULLWIDTH_A, low, "a", high]) == ["a", high, low, FULLWIDTH_A]
    # A lone high surrogate sorts with the pairs that start with it.
    assert sorted_utf16([GRIN, "\ud83d", "\ud83c"]) == ["\ud83c", "\ud83d", GRIN]


def test_a_surrogate_pair_and_its_character_are_one_id() -> None:
    from packcheck._rule.order import same_utf16

    assert same_utf16("\ud83d\ude00") == "\U0001f600"
    assert same_utf16("a\ud800") == "a\ud800"  # a lone surrogate stays
    assert same_utf16("caf\xe9") == "caf\xe9"


@pytest.mark.parametrize(
    ("text", "own"),
    [
        ("", True),
        ("ABC", True),
        ("\uff00\U0001f600é", True),
        ("\ud83d\ude00", False),  # a pair, joined by same_utf16
        ("A\ud800", False),  # a lone surrogate
    ],
)
def test_own_utf16_is_whether_same_utf16_leaves_the_text_alone(text: str, own: bool) -> None:
    from packcheck._rule.order import own_utf16, same_utf16

    assert own_utf16(text) is own
    if own:
        assert same_utf16(text) is text
