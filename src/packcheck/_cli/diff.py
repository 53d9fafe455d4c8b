"""``packcheck diff``: does a packer still behave as its previous version did?

Its options are the gate's table (:mod:`packcheck._cli.gate`), shared with ``verify``.
"""

from typing import Any

from . import gate


def register(commands: Any) -> None:
    gate.register(commands, "diff")
