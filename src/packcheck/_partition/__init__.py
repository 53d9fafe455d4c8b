"""The partition: the trace of a pack, its facts, and the one invariant checker."""
