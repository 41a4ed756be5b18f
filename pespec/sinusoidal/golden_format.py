"""The absolute sets' fixture handler (format ``pespec-golden/1``, SPEC §7), registered in
:mod:`pespec.conformance.fixtures` when this module is imported.

It joins the format's reader (:mod:`pespec.sinusoidal.golden`), its oracle check
(:mod:`pespec.sinusoidal.golden_verify`), its export writers and its rendering
(:mod:`pespec.sinusoidal.golden_write`) so that ``pespec golden`` dispatches on the files'
``format`` field.
"""

from __future__ import annotations

from pespec.conformance.fixtures import (
    FixtureCheck,
    FixtureFormat,
    FixtureProgress,
    register_fixture_format,
)
from pespec.sinusoidal.golden import FORMAT, GENERATOR, FixtureSet, parse_fixture
from pespec.sinusoidal.golden_catalog import CATALOG, FixtureSpec
from pespec.sinusoidal.golden_verify import verify_values
from pespec.sinusoidal.golden_write import WRITERS, render_sets

__all__ = ["FIXTURE_FORMAT"]


def _verify(fixture: FixtureSet, file: str, limit: int) -> FixtureCheck:
    """Every stored value against the oracle; ``limit`` wrong values itemised, then a count."""
    mismatches = verify_values(fixture, file)
    messages = [str(m) for m in mismatches[:limit]]
    if len(mismatches) > limit:
        messages.append(f"{file}: ... {len(mismatches)} in all")
    return FixtureCheck(int(fixture.values.size), len(mismatches), tuple(messages))


def _render(on_progress: FixtureProgress | None) -> dict[str, bytes]:
    def advance(spec: FixtureSpec) -> None:
        if on_progress is not None:
            on_progress(spec.name)

    return render_sets(CATALOG, advance)


FIXTURE_FORMAT = register_fixture_format(
    FixtureFormat(
        format=FORMAT,
        description="absolute sinusoidal sets (SPEC §7)",
        parse=parse_fixture,
        verify=_verify,
        writers=WRITERS,
        render=_render,
        planned=lambda: len(CATALOG),
        generator=GENERATOR["name"],
    )
)
"""The handler of ``pespec-golden/1`` files."""
