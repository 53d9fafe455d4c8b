"""Strict JSON in, compact ASCII JSON out, exact numbers both ways.

No ``NaN``/``Infinity``; fractions are :class:`~decimal.Decimal`; lone surrogates
survive.  msgspec goes first wherever its answer cannot differ from the exact code's.
"""

from __future__ import annotations

import json
import re
from decimal import MAX_EMAX, MIN_EMIN, Decimal, InvalidOperation
from typing import Any

import msgspec

from .units import MAX_DIGITS, NumberTooLarge

#: Deepest nesting msgspec reads; deeper documents are read by the exact reader alone.
FAST_NESTING = 256


class JSONError(ValueError):
    """Text that is not strict JSON; one line.  ``truncated``: the text ended too soon
    (perhaps the first line of a document spread over several)."""

    def __init__(self, message: str, *, truncated: bool = False) -> None:
        super().__init__(message)
        self.truncated = truncated


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise NumberTooLarge(digits)
    # int(str) refuses more than 4300 digits (CPython's DoS guard); Decimal does not,
    # and the length is already bounded above.
    return int(text) if digits <= 4000 else int(Decimal(text))


def _parse_float(text: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        # The exponent is past Decimal's (about 10**18).  Zero stands in as zero at
        # Decimal's extreme exponent of that sign (still a float, never the int 0); any
        # other number with a negative one is a fraction, kept at the least exponent;
        # a positive one has far more than MAX_DIGITS digits.
        sign = "-" if text.startswith("-") else ""
        mantissa, _, exponent = text.lstrip("-").lower().partition("e")
        negative = exponent.startswith("-")
        if mantissa.strip("0.") == "":
            return Decimal(f"{sign}0E{MIN_EMIN}" if negative else f"{sign}0E+{MAX_EMAX}")
        if negative:
            return Decimal(f"{sign}{mantissa}E{MIN_EMIN}")
        raise JSONError(f"number {text[:20]}... has an exponent out of range") from None
    if value and value.adjusted() >= MAX_DIGITS:
        raise NumberTooLarge(value.adjusted() + 1)
    return value


def _reject_constant(name: str) -> Any:
    raise JSONError(f"{name} is not valid JSON")


# Built once: json.loads/json.dumps with options build a new coder on every call.
_DECODER = json.JSONDecoder(parse_float=_parse_float, parse_constant=_reject_constant)
_BIG_INT_DECODER = json.JSONDecoder(
    parse_int=_parse_int, parse_float=_parse_float, parse_constant=_reject_constant
)
_ENCODER = json.JSONEncoder(separators=(",", ":"))
_FAST_DECODE = msgspec.json.Decoder(float_hook=_parse_float).decode
_FAST_ENCODE_INTO = msgspec.json.Encoder(decimal_format="number").encode_into
# Each byte's step in nesting depth: +1 opens an array or object, -1 closes one.
_STEPS = bytes(1 if byte in b"[{" else 255 if byte in b"]}" else 0 for byte in range(256))
# Every byte but brackets and quotes: deleted before the depth is counted.
_NOT_STRUCTURE = bytes(sorted(set(range(256)) - set(b'[]{}"')))


def _fast_encode(value: Any) -> bytearray:
    """msgspec's JSON of ``value``, into a bytearray: msgspec's own buffer crashes the
    process under ``ulimit -v`` where a bytearray raises :class:`MemoryError`."""
    data = bytearray()
    _FAST_ENCODE_INTO(value, data)
    return data


def shallow(text: str) -> bool:
    """True when ``text`` is nested at most :data:`FAST_NESTING` deep as JSON (exact for
    strict JSON).  O(n), in C, on arrays of the brackets and quotes alone."""
    if text.count("[") + text.count("{") <= FAST_NESTING:
        return True
    import numpy as np  # only for the rare long line: the rest of packcheck loads it

    # Escapes first (pairs, left to right: ``\\\\`` then ``\\"``), so every quote left
    # opens or closes a string; a bracket after an odd number of quotes is text.
    data = text.encode("utf-8", "surrogatepass").replace(b"\\\\", b"").replace(b'\\"', b"")
    data = data.translate(None, _NOT_STRUCTURE)
    inside = np.bitwise_xor.accumulate(np.frombuffer(data, np.uint8) == ord('"'))
    steps = np.where(inside, 0, np.frombuffer(data.translate(_STEPS), np.int8))
    return int(np.cumsum(steps, dtype=np.int64).max()) <= FAST_NESTING


def loads(text: str) -> Any:
    """Parse one JSON document strictly; raise :class:`JSONError` with a one-line reason."""
    if shallow(text):
        try:
            return _FAST_DECODE(text)
        except Exception:  # refused, or unsure: the exact reader decides
            pass
    try:
        try:
            return _DECODER.decode(text)
        except (json.JSONDecodeError, NumberTooLarge, JSONError):
            raise
        except ValueError:
            # Only int(str)'s digit guard raises a bare ValueError here.
            return _BIG_INT_DECODER.decode(text)
    except json.JSONDecodeError as exc:
        at = f"line {exc.lineno} column {exc.colno}" if exc.lineno > 1 else f"column {exc.colno}"
        truncated = exc.pos >= len(text.rstrip(" \t\r\n"))
        # Some of json's messages end in "at" ("Unterminated string starting at").
        what = exc.msg.removesuffix(" at")
        raise JSONError(f"invalid JSON: {what} at {at}", truncated=truncated) from None
    except RecursionError:
        raise JSONError("invalid JSON: nesting too deep") from None
    except NumberTooLarge as exc:
        raise JSONError(str(exc)) from None


class _Text(str):
    """JSON text already written, waiting on the exact writer's stack."""


def _exact(value: Any) -> str:
    # Iterative, not recursive: a case nested as deep as the reader allows must not
    # overflow the stack when it is written back (``fixtures`` prints failing inputs).
    out: list[str] = []
    todo: list[Any] = [value]
    while todo:
        item = todo.pop()
        if type(item) is _Text:
            out.append(item)
        elif isinstance(item, int) and not isinstance(item, bool):
            # str(int) refuses more than 4300 digits; Decimal prints any length.
            out.append(str(Decimal(item)))
        elif isinstance(item, Decimal):
            # Only finite Decimals are ever read; str() keeps the written digits.
            out.append(str(item))
        elif isinstance(item, dict):
            parts: list[Any] = []
            for key, member in item.items():
                parts += [_Text(("," if parts else "") + json.dumps(str(key)) + ":"), member]
            todo += [_Text("}"), *reversed(parts), _Text("{")]
        elif isinstance(item, list | tuple):
            parts = []
            for member in item:
                parts += [_Text(","), member] if parts else [member]
            todo += [_Text("]"), *reversed(parts), _Text("[")]
        else:
            out.append(json.dumps(item))
    return "".join(out)


def dumps(value: Any) -> str:
    """Compact, key-order-preserving, ASCII-only JSON for results, inputs and errors;
    integers of any length and :class:`~decimal.Decimal` fractions written exactly."""
    try:
        return _ENCODER.encode(value)
    except (ValueError, TypeError, RecursionError):
        return _exact(value)


def write_json(value: Any) -> str:
    """:func:`dumps` of a value read by :func:`loads` or built by packcheck, faster; a
    ``float`` is written as msgspec writes it (``1e16``)."""
    text = fast_json(value)
    return dumps(value) if text is None else text


def fast_json(value: Any) -> str | None:
    """msgspec's JSON of ``value`` (which may hold :class:`msgspec.Struct` objects) where
    it is :func:`write_json`'s text, else ``None``."""
    try:
        data = _fast_encode(value)
    except Exception:  # an int past the 4300-digit guard, a type it lacks
        return None
    if data.isascii() and b"\\" not in data and b"\x7f" not in data:
        return data.decode("ascii")
    return None


def show_text(text: str) -> str:
    """A string from data (an ID, a file name) as a message shows it: plain when
    printable, else JSON-escaped and quoted."""
    # A lone surrogate is not printable (category Cs), so a plain string always encodes.
    if text and text.isprintable() and text.strip() == text:
        return text
    return json.dumps(text)


#: Control characters and line breaks: C0, DEL, C1, U+2028/9.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    """``text``, a line of a report, with each control character or line break (only
    data puts them there) as its backslash escape: data can never start a line."""
    return _CONTROL.sub(lambda match: ascii(match.group())[1:-1], text)


def show(value: object, limit: int) -> str:
    """``value`` for a one-line message: JSON where it is JSON, else its ``repr``; long
    integers shortened (:func:`show_int`), cut to ``limit`` characters."""
    try:
        text = shortened(value, dumps)
    except (TypeError, ValueError):
        text = shortened(value, repr)
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: Integers of more digits are shown shortened in messages (and always compared exactly).
SHOWN_DIGITS = 40
_SHOWN_WHOLE = 10**SHOWN_DIGITS


def show_int(number: int, *, grouped: bool = False) -> str:
    """``number`` for a message: its digits (``grouped``: ``1,234``), or past
    :data:`SHOWN_DIGITS` digits ``100000000000...000000 (100,001 digits)``."""
    if -_SHOWN_WHOLE < number < _SHOWN_WHOLE:
        return f"{number:,}" if grouped else str(number)
    text = _exact(number)
    digits = len(text.lstrip("-"))
    return f"{text[: 12 + (number < 0)]}...{text[-6:]} ({digits:,} digits)"


def shortened(value: object, write: Any) -> str:
    """``write(value)`` (:func:`dumps` or ``repr``) with each integer in it of more than
    :data:`SHOWN_DIGITS` digits shown by :func:`show_int`."""
    shown: dict[str, str] = {}

    def marked(item: object) -> object:
        if type(item) is int and not -_SHOWN_WHOLE < item < _SHOWN_WHOLE:
            mark = f"<{len(shown)} packcheck digits>"
            shown[mark] = show_int(item)
            return mark
        if type(item) is dict:
            return {key: marked(inner) for key, inner in item.items()}
        if type(item) is list:
            return list(map(marked, item))
        if type(item) is tuple:
            return tuple(map(marked, item))
        return item

    value = marked(value)
    text: str = write(value)
    for mark, digits in shown.items():
        text = text.replace(write(mark), digits)
    return text
