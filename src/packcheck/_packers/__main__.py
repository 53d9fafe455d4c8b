"""``python -m packcheck._packers MODULE:FUNCTION``: the process of a
:class:`packcheck._packers.WorkerPacker`."""

if __name__ == "__main__":  # pragma: no cover - runs in the worker process alone
    import sys

    from ._worker import main

    main(sys.argv[1])
