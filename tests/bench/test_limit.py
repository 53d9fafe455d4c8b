"""The time limit of a Python packer in bench, and the option types bench shares."""

from __future__ import annotations

import argparse
import threading

import pytest

from packcheck._bench._limit import Limit
from packcheck._cli._values import positive, seconds


def test_a_watched_call_past_the_limit_is_reported_once_and_a_done_one_never() -> None:
    reasons: list[str] = []
    expired = threading.Event()

    def expire(reason: str) -> None:
        reasons.append(reason)
        expired.set()

    limit = Limit(0.01, expire)
    with limit.watching("p failed on w at n=1"):
        pass  # returned in time: nothing to report
    with limit.watching("p failed on w at n=10", calls=2):
        assert expired.wait(60)
    limit.close()
    assert reasons == [
        "p failed on w at n=10: no answer within 0.01 s a case (timeout); run stopped"
    ]


@pytest.mark.parametrize(
    ("parse", "text", "message"),
    [
        (positive(int), "abc", "'abc' is not a whole number"),
        (positive(int), "0", "0 must be greater than 0"),
        (positive(float), "inf", "inf must be greater than 0"),
        (seconds, "soon", "'soon' is not a number"),
        (seconds, "-1", "-1 must be 0 or more"),
        (seconds, "nan", "nan must be 0 or more"),
    ],
)
def test_the_number_types_say_what_is_wrong(parse: object, text: str, message: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=f"^{message}$"):
        parse(text)  # type: ignore[operator]


def test_the_number_types_take_what_is_right() -> None:
    assert positive(int)("3") == 3
    assert positive(float)("0.5") == 0.5
    assert seconds("0") == 0.0
