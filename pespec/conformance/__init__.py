"""pespec.conformance: the conformance suite that backends plug into (SPEC §9)."""
