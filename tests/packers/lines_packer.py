"""A JSON Lines packer for ``--packer-cmd`` tests: correct, or faulty by MODE.

``python lines_packer.py [MODE]``; faults trigger only on cases with two or more
blocks, so the gate has to find (and shrink to) such a case.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from broken import functional  # this script's directory is on sys.path


def main(mode: str) -> None:
    previous = None
    for line in sys.stdin:
        case = json.loads(line)
        answer = json.dumps(functional(case))
        faulty = len(case["blocks"]) >= 2
        if mode == "flood":
            sys.stderr.write("x" * 200_000 + "\n")
        elif faulty and mode == "garbage":
            answer = "this is not JSON"
        elif faulty and mode == "array":
            answer = "[1, 2]"
        elif faulty and mode == "bad-utf8":
            sys.stdout.buffer.write(b"\xff\xfe\n")
            sys.stdout.flush()
            continue
        elif faulty and mode == "die":
            print("packer: cannot cope", file=sys.stderr)
            sys.exit(3)
        elif faulty and mode == "hang":
            child = subprocess.Popen(["sleep", "600"])
            with open(os.environ["PIDFILE"], "a") as pids:
                pids.write(f"{os.getpid()} {child.pid}\n")
            time.sleep(600)
        elif faulty and mode == "close-stdout":
            os.close(sys.stdout.fileno())
            time.sleep(600)
        elif mode == "out-of-order":
            previous, answer = answer, previous or answer
        print(answer, flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "correct")
