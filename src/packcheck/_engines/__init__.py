"""The engines: the reference loop, the NumPy kernel, batches, and the choice between them."""
