"""Catalog of backends for the conformance meta-tests: real bugs (buggy.py) and correct
implementations (correct.py). Each is a plain ``(positions, d_model, base) -> array``."""
