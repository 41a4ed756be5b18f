"""pespec.sincos: the absolute sinusoidal family (SPEC §3-§7), a sibling of :mod:`pespec.rope`.

Its fixture format and catalog (``golden*``), its suite stages, built-in backends, from-file
check, reproductions and diagnosis live here; the engine (:mod:`pespec.conformance`) runs
them and names no family. The two family folders never import each other.
"""
