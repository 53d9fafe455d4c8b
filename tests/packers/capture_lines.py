"""A JSON Lines packer for ``--packer-cmd --partition`` tests: ``capture.MODE``.

``python capture_lines.py [MODE]`` answers each case with the packer of that name
in ``capture.py`` (default ``correct``).
"""

from __future__ import annotations

import json
import sys

import capture  # this script's directory is on sys.path


def main(mode: str) -> None:
    packer = getattr(capture, mode)
    for line in sys.stdin:
        print(json.dumps(packer(json.loads(line))), flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "correct")
