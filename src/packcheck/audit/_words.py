"""Text read eight bytes at a time with NumPy: a byte string's words at every offset,
keys of short spans, ASCII numbers, and pieces of text compared with a recorded text.

Words are little-endian (a text's first byte is a word's lowest), read at any offset
through one strided view of the bytes, never copied; every text read so ends in
:data:`PAD`, so that a word read at any offset of the text proper stays inside it.
"""

from __future__ import annotations

import msgspec
import numpy as np
import numpy.typing as npt

from .._engines.sizes import Flags, Ints

#: Zero bytes past every text read here: a word read at any of its offsets, or up to
#: eight bytes past its end, stays in the bytes.
PAD = bytes(16)
_POW10 = 10 ** np.arange(19, dtype=np.int64)
_HIGH_NIBBLES = np.uint64(0xF0F0F0F0F0F0F0F0)
_LOW_NIBBLES = np.uint64(0x0F0F0F0F0F0F0F0F)
_DIGIT_NIBBLES = np.uint64(0x3030303030303030)
_SIXES = np.uint64(0x0606060606060606)
_PAIRS = np.uint64(0x00FF00FF00FF00FF)
_QUADS = np.uint64(0x0000FFFF0000FFFF)
#: A text's bytes and its words (:func:`words`); the numbers and flags read from them
#: are the kernels' ``Ints`` and ``Flags``.
Bytes = npt.NDArray[np.uint8]
Words = npt.NDArray[np.uint64]


def _spans(starts: Ints, lengths: Ints) -> Ints:
    """The positions ``starts[k]`` to ``starts[k] + lengths[k]``, span after span."""
    ends = np.cumsum(lengths)
    return np.repeat(starts - (ends - lengths), lengths) + np.arange(ends[-1] if len(ends) else 0)


def words(data: bytes) -> Words:
    """The 8 bytes of ``data`` at each offset, as a little-endian word: the first byte
    lowest (``data`` must end in 7 bytes that are read only as padding)."""
    return np.ndarray((len(data) - 7,), "<u8", data, strides=(1,))


#: The low ``n`` bytes of a word, for ``n`` from 0 to 8.
LOW = np.array([(1 << (8 * n)) - 1 for n in range(9)], np.uint64)
#: The shift that moves the low ``n`` bytes of a word to its top.
_TOP = np.array([8 * (8 - n) for n in range(9)], np.uint64)


def keys(words: Words, starts: Ints, lengths: Ints, width: int) -> Words:
    """Each span as a key of ``width // 8`` words, its bytes padded with zeros: row
    ``w`` holds every key's word ``w``."""
    keys = np.empty((width // 8, len(starts)), np.uint64)
    for word in range(width // 8):
        at = np.minimum(starts + 8 * word, len(words) - 1)  # past the span: masked out
        keys[word] = words[at] & LOW[np.clip(lengths - 8 * word, 0, 8)]
    return keys


def sizes(text: Bytes, words: Words, start: Ints, width: Ints) -> tuple[Ints, Flags]:
    """The numbers written in ASCII at ``start``, ``width`` (1 to 18) bytes each, and
    whether each is all digits.  Eight digits or fewer are read a word at a time."""
    low = LOW[np.minimum(width, 8)]
    word = words[start] & low
    # ASCII bytes: a digit's high nibble is 3 and stays 3 when 6 is added to it (no
    # byte carries into the next, as none is past 0x7f).  A size is at least 1, and
    # has no leading zero.
    good = ((word & _HIGH_NIBBLES) == (_DIGIT_NIBBLES & low)) & (
        ((word + (_SIXES & low)) & _HIGH_NIBBLES) == (_DIGIT_NIBBLES & low)
    )
    good &= (word & LOW[1]) != ord("0")
    # The digits moved to the word's top, as if led by zeros, and read 2, 4, 8 at a time.
    value = (word & _LOW_NIBBLES) << _TOP[np.minimum(width, 8)]
    value = ((value * np.uint64(10)) + (value >> np.uint64(8))) & _PAIRS
    value = ((value * np.uint64(100)) + (value >> np.uint64(16))) & _QUADS
    value = ((value * np.uint64(10000)) + (value >> np.uint64(32))) & LOW[4]
    sizes = value.astype(np.int64)
    long = np.flatnonzero(width > 8)
    if len(long):
        spans = _spans(start[long], width[long])
        figures = text[spans] - np.uint8(ord("0"))  # a byte that is no digit wraps past 9
        first = np.cumsum(width[long]) - width[long]
        good[long] &= np.add.reduceat(figures > 9, first) == 0
        power = np.repeat(np.cumsum(width[long]) - 1, width[long]) - np.arange(len(spans))
        sizes[long] = np.add.reduceat(figures.astype(np.int64) * _POW10[power], first)
    return sizes, good


def same(
    source: Words, start: Ints, length: Ints, first: Ints, recorded: list[msgspec.Raw]
) -> Flags:
    """Per step, whether its recorded text is the one its pieces make: piece ``k`` is
    ``length[k]`` bytes of ``source`` (its words, :func:`words`) from ``start[k]``, and
    the pieces of step ``s`` start at ``first[s]``.  Compared a word at a time, at
    each piece's place in the recorded text: O(pieces), never a copy of the text."""
    steps = len(recorded)
    written = np.fromiter(map(len, recorded), np.int64, steps)
    text = words(b"".join([*recorded, PAD]))
    ends = np.cumsum(length)
    begin = ends[first] - length[first]
    right: Flags = np.diff(np.append(begin, ends[-1])) == written
    # Where each piece would be in its step's recorded text: where the pieces before it
    # end, when every step's text is as long as its pieces.
    at = ends - length
    piece_step = None
    if not right.all():
        piece_step = np.repeat(np.arange(steps), np.diff(np.append(first, len(length))))
        at += (np.cumsum(written) - written - begin)[piece_step]
        np.minimum(at, len(text) - 1, out=at)
    changed = differ(source, start, length, text, at)
    if not changed.any():
        return right
    if piece_step is None:
        piece_step = np.repeat(np.arange(steps), np.diff(np.append(first, len(length))))
    right &= np.bincount(piece_step[changed], minlength=steps) == 0
    return right


def differ(source: Words, start: Ints, length: Ints, text: Words, at: Ints) -> Flags:
    """Per piece, whether its bytes in ``source`` and at ``at`` in ``text`` differ."""
    changed: Flags = ((source[start] ^ text[at]) & LOW[np.minimum(length, 8)]) != 0
    for word in range(1, -(-int(length.max(initial=0)) // 8)):
        shift = 8 * word
        some = np.flatnonzero(length > shift)
        here = np.minimum(at[some] + shift, len(text) - 1)
        bits = (source[start[some] + shift] ^ text[here]) & LOW[np.minimum(length[some] - shift, 8)]
        changed[some] |= bits != 0
    return changed
