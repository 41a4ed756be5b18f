"""The registry of families: each family named once, with what the front ends need.

A family is a kind of position encoding pespec checks: ``sinusoidal`` (SPEC §1–§7),
``rope`` (rotary, §8), ``multiaxis`` (sin-cos over 2-D/3-D grids, §9) and
``multiaxis-rope`` (rotary sections over t/h/w, §9.7) and ``fourier`` (Fourier features,
§10). Its entry names,
as ``module:attribute`` strings imported on first use
(so ``pespec --help`` imports no family), the suite class, the check function, the backend
loader, the from-file check and the command-line runner; and, as data, the ``pespec check``
options only that family takes. ``pespec check --family NAME`` and the reports' ``family``
field use these names.

A third-party package adds a family with an entry point in the group ``pespec.families``
whose object is a :class:`~pespec.conformance.family.Family` (read only when ``--family``
names a family not built in; such a family takes the options every family shares). Usage::

    [project.entry-points."pespec.families"]
    mine = "my_package.pespec_family:FAMILY"
"""

from __future__ import annotations

import importlib

from pespec._suggest import did_you_mean
from pespec.conformance.family import Family

__all__ = [
    "BUILTIN",
    "DEFAULT_FAMILY",
    "ENTRY_POINT_GROUP",
    "FAMILIES",
    "families",
    "get_family",
]

DEFAULT_FAMILY = "sinusoidal"
ENTRY_POINT_GROUP = "pespec.families"


BUILTIN: tuple[str, ...] = (
    "pespec.sinusoidal.family",
    "pespec.rope.family",
    "pespec.multiaxis.sinusoidal.family",
    "pespec.multiaxis.rope.family",
    "pespec.fourier.family",
)
"""The modules whose ``FAMILY`` registers a built-in family (the default first): each family's
``family.py``, data only (issue 38)."""

FAMILIES: dict[str, Family] = {
    family.name: family for family in (importlib.import_module(module).FAMILY for module in BUILTIN)
}
"""The built-in families, by name (the default first)."""


def families(*, entry_points: bool = True) -> dict[str, Family]:
    """Every family by name: the built-in ones, then (``entry_points``) those of the group
    ``pespec.families`` (one that does not load, is not a :class:`Family` or reuses a
    built-in name is left out)."""
    found = dict(FAMILIES)
    if not entry_points:
        return found
    import importlib.metadata

    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            family = entry.load()
        except Exception:  # a broken third-party plug-in must not stop pespec
            continue
        if isinstance(family, Family) and family.name not in found:
            found[family.name] = family
    return found


def get_family(name: str | None) -> Family:
    """The family called ``name`` (None: the default, sinusoidal); ValueError names the known
    ones and the closest."""
    if name is None:
        return FAMILIES[DEFAULT_FAMILY]
    if name in FAMILIES:
        return FAMILIES[name]
    known = families()
    if name in known:
        return known[name]
    raise ValueError(
        f"--family must be one of {', '.join(known)}; got {name!r}{did_you_mean(name, known)}"
    )
