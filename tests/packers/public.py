"""Context-packing loops from public repositories, ported to the declared case shape.

Each packer below re-states one real loop (retrieval-augmented generation context
builders, chat-history trimmers) with its control flow unchanged: the same
comparison, the same ``break``/``continue``, the same scan direction and the same
kind of number (Python ``int`` for Python originals, a double for JavaScript and
TypeScript ones, whose numbers are IEEE doubles).  Only the edges are adapter code,
shared by all of them (``_ported.port``) and written from docs/rule.md:

* a block is the library's item (document, chunk, message) whose token count is
  the block's ``size``; a real token counter gives an ``int >= 0``, so checking
  the case's units (``{"error": "size"}``) is the caller's job and happens here,
  before the ported loop runs;
* ``kept`` is the IDs of the items the original returns, in the order it returns
  them;
* ``remaining`` is the budget minus the original's own running total (converted
  to an ``int`` as JSON would print a whole double);
* ``missing`` is the required IDs not kept, sorted by UTF-16 code units (none of
  the originals computes it).

The comment above each port names the repository, the file, what the original
does and the verdict expected from ``packcheck verify``.
"""

from __future__ import annotations

from ._ported import Message, port


# --- abdelkarim-choukri/URC-SRO, urc_sro/urc/allocator.py ----------------------------
# ``ContextAllocator.pack``: "simple greedy packing by current score order".  Walks
# the documents once with ``budget = self.max_tokens``; ``if cost <= budget`` it
# appends the document and does ``budget -= cost``, ``else: continue``.  That is the
# declared scan exactly, with Python ints.  Expected: PASS.
@port(int)
def urc_sro_context_allocator(max_tokens: int, docs: list[Message]) -> tuple[list[Message], int]:
    # -- ported loop --
    out, budget = [], max_tokens
    for d in docs:
        cost = d.tokens
        if cost <= budget:
            out.append(d)
            budget -= cost
        else:
            continue
    # -- end --
    return out, budget


# --- langchain-ai/langchain, libs/langchain/langchain/chains/conversational_retrieval/
#     base.py ------------------------------------------------------------------------
# ``ConversationalRetrievalChain._reduce_tokens_below_limit`` (the same loop is in
# ``RetrievalQAWithSourcesChain``): counts the tokens of every retrieved document,
# then while the total exceeds ``max_tokens_limit`` drops documents from the END and
# returns ``docs[:num_docs]`` - the longest fitting prefix, i.e. it stops at the
# first document that does not fit.  It also reduces only
# ``if self.max_tokens_limit``: a limit of 0 is falsy and keeps every document.
# Expected: FAIL on the seed fixture skip-large-continue (2 blocks), cause
# ``on_misfit = "stop"``.
@port(int)
def langchain_reduce_tokens_below_limit(
    max_tokens_limit: int, docs: list[Message]
) -> tuple[list[Message], int]:
    # -- ported loop --
    num_docs = len(docs)
    if max_tokens_limit:
        tokens = [doc.tokens for doc in docs]
        token_count = sum(tokens[:num_docs])
        while token_count > max_tokens_limit:
            num_docs -= 1
            token_count -= tokens[num_docs]
    kept = docs[:num_docs]
    # -- end --
    return kept, max_tokens_limit - sum(doc.tokens for doc in kept)


# --- mongodb/chatbot, packages/mongodb-chatbot-server/src/processors/
#     includeChunksForMaxTokensPossible.ts --------------------------------------------
# "Returns the chunks that can fit in the maxTokens": ``content.findIndex(({
# tokenCount }) => (total += tokenCount) > maxTokens)``, then ``content.slice(0,
# index)`` (all of it when no index is found).  The running total is a JavaScript
# number (a double).  It stops at the first chunk that overflows.  Expected: FAIL on
# skip-large-continue (2 blocks), ``on_misfit = "stop"``.
@port(float)
def mongodb_include_chunks_for_max_tokens(
    max_tokens: float, content: list[Message]
) -> tuple[list[Message], float]:
    # -- ported loop (Array.prototype.findIndex, then slice) --
    total = 0.0
    fit_range_end_index = -1
    for index, chunk in enumerate(content):
        total += chunk.tokens
        if total > max_tokens:
            fit_range_end_index = index
            break
    kept = content if fit_range_end_index == -1 else content[:fit_range_end_index]
    # -- end --
    return kept, max_tokens - sum((doc.tokens for doc in kept), 0.0)


# --- envyay/RAG, src/rag/context_build.py ---------------------------------------------
# ``build_context(docs, max_docs=3, max_chars=2500)``: skips empty chunks
# (``continue``), ``if total + len(chunk) > max_chars: break``, appends, and also
# ``break``s once ``len(used_docs) >= max_docs``.  Ported with the budget as
# ``max_chars`` and the default ``max_docs=3``.  Two ways to stop early: the first
# misfit and a fourth block that fits.  Expected: FAIL on skip-large-continue
# (2 blocks), its own rule named: ``on_misfit = "stop"`` and ``max_count = 3``, the
# count found by probing.
@port(int)
def envyay_build_context(max_chars: int, docs: list[Message]) -> tuple[list[Message], int]:
    max_docs = 3
    # -- ported loop --
    used_docs = []
    total = 0
    for d in docs:
        if not d.tokens:
            continue
        if total + d.tokens > max_chars:
            break
        used_docs.append(d)
        total += d.tokens
        if len(used_docs) >= max_docs:
            break
    # -- end --
    return used_docs, max_chars - total


# --- wangling0126/vue3-chartGPT, src/utils/maxTokenLimit.ts ---------------------------
# ``limitMessageTokens(messages, limit = 4096)``: walks the chat history from the
# NEWEST message back (``for (let i = messages.length - 1; i >= 0; i--)``), ``if
# (count + tokenCount > limit) break``, else adds and ``unshift``s the message
# (so the result is in chronological order).  Numbers are doubles.  Blocks map to
# messages in order.  It keeps a suffix, not the rule's scan from the front, and
# stops at the first misfit.  Expected: FAIL on the first seed fixture
# distractor-first (3 blocks: keeps B, C instead of A, B), ``order = "reversed"`` and
# ``on_misfit = "stop"``.
@port(float)
def vue3_chartgpt_limit_message_tokens(
    limit: float, messages: list[Message]
) -> tuple[list[Message], float]:
    # -- ported loop --
    limited_messages: list[Message] = []
    token_count = 0.0
    for i in range(len(messages) - 1, -1, -1):
        count = messages[i].tokens
        if count + token_count > limit:
            break
        token_count += count
        limited_messages.insert(0, messages[i])
    # -- end --
    return limited_messages, limit - token_count


# --- dustinbroussard/vivica-chat-companion, server/middleware/trimHistory.ts ---------
# ``trimHistory(messages, maxChars = 8000)``: from the newest message back, ``if
# (total + len > maxChars && out.length) break``, then ``out.unshift`` and ``total
# += len``.  The ``&& out.length`` guard always keeps the newest message, even when
# it alone exceeds the budget (the pack overflows: remaining goes negative).
# Doubles.  Expected: FAIL with a short case (<= 2 blocks) - the first fixture
# already departs (it keeps B, C).  Its rule is three keys from the default
# (``order = "reversed"``, ``on_misfit = "stop"``, ``pin = "last"``), past a neighbour:
# no cause named, two of the three come closest.
@port(float)
def vivica_trim_history(max_chars: float, messages: list[Message]) -> tuple[list[Message], float]:
    # -- ported loop --
    total = 0.0
    out: list[Message] = []
    for i in range(len(messages) - 1, -1, -1):
        length = messages[i].tokens
        if total + length > max_chars and out:
            break
        out.insert(0, messages[i])
        total += length
    # -- end --
    return out, max_chars - total


#: Every port, with the verdict expected from ``packcheck verify``: ``None`` for a
#: pass, else the named cause expected in ``finding.causes`` ("" when none applies;
#: "closest: ..." when none is named and the report gives the closest).
EXPECTED: dict[str, str | None] = {
    "urc_sro_context_allocator": None,
    "langchain_reduce_tokens_below_limit": 'on_misfit = "stop" (declared "skip")',
    "mongodb_include_chunks_for_max_tokens": 'on_misfit = "stop" (declared "skip")',
    "envyay_build_context": 'on_misfit = "stop" (declared "skip") and max_count = 3 (declared 0)',
    "vue3_chartgpt_limit_message_tokens": 'order = "reversed" (declared "given") and on_misfit = '
    '"stop" (declared "skip")',
    "vivica_trim_history": 'closest: order = "reversed" (declared "given") and pin = "last" '
    '(declared "none")',
}
