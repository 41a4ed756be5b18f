"""pespec.properties: the error model and the properties of SPEC §4–§5."""
