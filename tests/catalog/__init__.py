"""Catalog of backends for the conformance meta-tests: real bugs (buggy.py), correct
implementations (correct.py), casts of float64 results (casts.py), bugs only the refined error
model sees (model_bugs.py). Each is a plain ``(positions, d_model, base) -> array``."""
