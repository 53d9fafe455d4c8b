"""Packers used by the gate's own tests (importable as ``packers``; scripts run directly)."""
