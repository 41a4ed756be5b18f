"""The suite's plan: every check of the selected stages, in suite order, with stable ids
(SPEC §6.2).

``contract:ITEM`` per contract item; ``golden:NAME`` per fixture set of the convention judged
against (canonical sets recertified for another convention), plus ``golden:timesteps`` for a
declared convention; ``property:NAME`` per property of the registry; ``large:LxD`` per large
size of the profile.
"""

from __future__ import annotations

from collections.abc import Sequence

from pespec.conformance.compare import SECTIONS, PlannedCheck
from pespec.conformance.stage import contract_plan
from pespec.sinusoidal.contract import CONTRACT_ITEMS
from pespec.sinusoidal.golden import is_canonical_fixture
from pespec.sinusoidal.reference.conventions import Convention

__all__ = ["make_plan"]


def make_plan(
    stages: Sequence[str],
    convention: Convention,
    convention_declared: bool,
    large_sizes: Sequence[tuple[int, int]],
) -> list[PlannedCheck]:
    """The planned checks of ``stages`` for a backend judged against ``convention``."""
    planned: list[PlannedCheck] = []
    if "contract" in stages:
        planned += contract_plan(SECTIONS["contract"], CONTRACT_ITEMS)
    if "golden" in stages:
        planned += _golden_checks(convention, convention_declared)
    if "property" in stages:
        from pespec.sinusoidal.properties.registry import PROPERTIES

        planned += [
            PlannedCheck(f"property:{name}", "property", prop.statement, f"§{prop.section}", prop)
            for name, prop in PROPERTIES.items()
        ]
    if "large" in stages:
        planned += [
            PlannedCheck(
                f"large:{length}x{d_model}",
                "large",
                f"positions 0..{length - 1}, d_model={d_model}, base 10000 against "
                "the exact reference",
                SECTIONS["large"],
                (length, d_model),
            )
            for length, d_model in large_sizes
        ]
    return planned


def _golden_checks(convention: Convention, convention_declared: bool) -> list[PlannedCheck]:
    """A check per fixture set of ``convention``, or per canonical set (recertified by the
    oracle for ``convention``); ``golden:timesteps`` when the convention was declared."""
    from pespec.sinusoidal.golden import load_fixture_sets

    planned: list[PlannedCheck] = []
    for fixture in load_fixture_sets():
        if fixture.convention == convention:
            title = fixture.description
        elif is_canonical_fixture(fixture) and not fixture.name.startswith("convention-"):
            title = (
                f"{fixture.description}; values certified by the oracle for "
                f"convention {convention.name!r}"
            )
        else:
            continue
        planned.append(
            PlannedCheck(f"golden:{fixture.name}", "golden", title, SECTIONS["golden"], fixture)
        )
    if convention_declared:
        planned.append(
            PlannedCheck(
                "golden:timesteps",
                "golden",
                "fractional diffusion timesteps in the backend's range, d_model=256, "
                "values certified by the oracle",
                SECTIONS["golden"],
                None,
            )
        )
    return planned
