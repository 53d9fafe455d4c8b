"""The floor of ``packcheck audit``: a process that decodes every line of a run and
does nothing else.

Usage::

    python benchmarks/audit_floor.py run.jsonl

Each line is read and given to an untyped ``msgspec.json.decode``; nothing is checked
and nothing is printed but the count of lines.  No audit can cost less than reading
its input, so ``audit``'s CPU is quoted as a ratio to this process's, the two timed as
whole processes in alternating pairs (docs/performance.md, "Audit near its floor").
"""

from __future__ import annotations

import sys

import msgspec


def main(path: str) -> int:
    """Decode every line of ``path``; the number of lines."""
    decode = msgspec.json.decode
    count = 0
    with open(path, "rb") as lines:
        for line in lines:
            decode(line)
            count += 1
    return count


if __name__ == "__main__":
    print(main(sys.argv[1]))
