"""The suite plans each property from its registry entry (name, SPEC section, statement), with
no fallback that parses docstrings (issue 13, item 4)."""

from __future__ import annotations

from pespec.sinusoidal.properties.registry import PROPERTIES
from pespec.sinusoidal.run import Suite


def test_property_checks_come_from_the_registry() -> None:
    planned = [p for p in Suite("numpy", stages=["property"]).plan() if p.stage == "property"]
    assert [(p.id, p.title, p.section) for p in planned] == [
        (f"property:{name}", prop.statement, f"§{prop.section}")
        for name, prop in PROPERTIES.items()
    ]
    assert all(p.payload is PROPERTIES[p.id.partition(":")[2]] for p in planned)
    # SPEC §5.1 is accuracy, §5.9 determinism, §5.10 config_independence (the order of SPEC §5)
    assert (planned[0].id, planned[0].section) == ("property:accuracy", "§5.1")
    assert (planned[-2].id, planned[-2].section) == ("property:determinism", "§5.9")
    assert (planned[-1].id, planned[-1].section) == ("property:config_independence", "§5.10")
