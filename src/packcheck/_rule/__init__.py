"""The rule: what a unit is, UTF-16 order, exact JSON, the case model, input sources."""
