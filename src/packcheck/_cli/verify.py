"""``packcheck verify``: gate any packer (Python or any language) against the rule.

Its options are the gate's table (:mod:`packcheck._cli.gate`), shared with ``diff``.
"""

from typing import Any

from . import gate


def register(commands: Any) -> None:
    gate.register(commands, "verify")
