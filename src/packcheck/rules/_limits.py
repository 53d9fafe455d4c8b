"""How much ``rule diff`` searches and shows unless told otherwise: constants the command
line reads without loading the search (which imports Hypothesis)."""

from __future__ import annotations

__all__ = ["DEFAULT_BASES", "DEFAULT_CASES"]

#: Small cases drawn and walked, unless told otherwise.
DEFAULT_BASES = 200
#: Distinct shrunk cases reported at most, unless told otherwise.
DEFAULT_CASES = 3
