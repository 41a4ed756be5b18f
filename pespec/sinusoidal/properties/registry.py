"""The registry of SPEC §5's properties: each property's name, section and statement are
written once, in the :func:`spec_property` decorator on its function.

A property function is named ``prop_<name>`` (``check_*`` names only argument validators)
and is written against a :class:`~pespec.sinusoidal.properties.context.Context`; the decorator
turns it
into the public ``prop_<name>(encoder, config, level, **options) -> PropertyResult`` that
builds the context from the registered name and section, and adds it to
:data:`PROPERTIES`. The registry is complete once :mod:`pespec.sinusoidal.properties` is imported
(it
imports every family, and importing this module imports the package first).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Concatenate, ParamSpec, cast

from pespec.sinusoidal.properties.base import Encoder, EncodingConfig, Level, PropertyResult
from pespec.sinusoidal.properties.context import Context

__all__ = ["PREFIX", "PROPERTIES", "PropertyCheck", "PropertyFunction", "spec_property"]

PREFIX = "prop_"
"""The prefix of every property function's name; the rest is the property's name."""

PropertyFunction = Callable[[Encoder, EncodingConfig, Level], PropertyResult]
"""What a registered property is called with: the backend, a configuration and a level."""

P = ParamSpec("P")


@dataclass(frozen=True)
class PropertyCheck:
    """A registered property: its name, SPEC section, one-line statement and check function."""

    name: str
    section: str
    statement: str
    function: PropertyFunction

    def __call__(self, encoder: Encoder, config: EncodingConfig, level: Level) -> PropertyResult:
        return self.function(encoder, config, level)


PROPERTIES: dict[str, PropertyCheck] = {}
"""The properties in SPEC order (by section); the conformance suite iterates over this
registry."""


def _section_key(section: str) -> tuple[int, ...]:
    return tuple(int(part) for part in section.split("."))


def _register(check: PropertyCheck) -> None:
    """Add ``check`` to :data:`PROPERTIES`, kept in section order; a name or a section
    registered twice is a ValueError naming both."""
    for other in PROPERTIES.values():
        if check.name == other.name or check.section == other.section:
            raise ValueError(
                f"property {check.name!r} (§{check.section}) clashes with the registered "
                f"{other.name!r} (§{other.section}); names and sections must be unique"
            )
    ordered = sorted([*PROPERTIES.values(), check], key=lambda c: _section_key(c.section))
    PROPERTIES.clear()
    PROPERTIES.update((c.name, c) for c in ordered)


def spec_property(
    section: str, statement: str
) -> Callable[
    [Callable[Concatenate[Context, P], PropertyResult]],
    Callable[Concatenate[Encoder, EncodingConfig, Level, P], PropertyResult],
]:
    """Register ``prop_<name>`` as the property ``<name>`` of SPEC §``section``, stated in one
    line as ``statement`` (the suite's check title).

    The decorated function takes a :class:`Context` (and keyword options); the returned one
    takes ``(encoder, config, level)`` and the same options, like every registered check.
    """
    if not section or not all(part.isdigit() for part in section.split(".")):
        raise ValueError(f"section must be dotted digits such as '5.1'; got {section!r}")

    def register(
        body: Callable[Concatenate[Context, P], PropertyResult],
    ) -> Callable[Concatenate[Encoder, EncodingConfig, Level, P], PropertyResult]:
        if not body.__name__.startswith(PREFIX) or body.__name__ == PREFIX:
            raise ValueError(f"a property function is named {PREFIX}<name>; got {body.__name__!r}")
        name = body.__name__.removeprefix(PREFIX)

        def check(
            encoder: Encoder,
            config: EncodingConfig,
            level: Level,
            /,
            *args: P.args,
            **kwargs: P.kwargs,
        ) -> PropertyResult:
            return body(Context(name, section, encoder, config, level), *args, **kwargs)

        check.__name__ = body.__name__
        check.__qualname__ = body.__qualname__
        check.__module__ = body.__module__
        check.__doc__ = body.__doc__
        _register(PropertyCheck(name, section, statement, cast(PropertyFunction, check)))
        return check

    return register
