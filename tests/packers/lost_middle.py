"""A retriever's packer that reorders what it keeps "lost in the middle": outside the
rule vocabulary, for ``packcheck rule infer``.

Source: deepset-ai/haystack, haystack/components/rankers/lost_in_the_middle.py
(``LostInTheMiddleRanker``): documents taken in rank order while their words fit the
threshold, then the best placed first and last, the worst in the middle.  Here a
block is a document and its ``size`` its word count; the scan stops at the first
document that does not fit (``>``).
"""

from __future__ import annotations

from ._ported import Message, port


def lost_in_the_middle(count: int) -> list[int]:
    """Positions ``0..count-1`` as the ranker lays them out: each next one inserted at
    ``len // 2 + len % 2`` of those laid out so far."""
    order: list[int] = []
    for index in range(count):
        order.insert(len(order) // 2 + len(order) % 2, index)
    return order


@port()
def rank(limit: int, documents: list[Message]) -> tuple[list[Message], int]:
    """The packer: the first documents while they fit, laid out lost in the middle."""
    kept: list[Message] = []
    used = 0
    for document in documents:
        if used + document[1] > limit:
            break
        kept.append(document)
        used += document[1]
    laid_out = [kept[i] for i in lost_in_the_middle(len(kept))]
    return laid_out, limit - used
