"""``pespec conventions``: the named conventions of the sinusoidal family, one per line.

The names ``--convention`` accepts (``pespec check``, ``pespec encode``; ``--pe-convention``
under pytest), each with its fields and public source (SPEC §3.2, §3.3). The rotary family's
named configurations are listed by ``pespec rope presets``.
"""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    """Add the ``conventions`` sub-command."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "conventions",
        help="list the named sinusoidal conventions --convention accepts, one per line",
        description="List the named conventions of the sinusoidal family (SPEC §3.2, §3.3) "
        "that --convention accepts: one name per line with its layout, frequency shift s, "
        "position offset o, argument scale c and public source (--names: the names only). "
        "Rotary presets: pespec rope presets.",
    )
    parser.add_argument("--names", action="store_true", help="print the names only")
    parser.set_defaults(func=_run)


def _describe(name: str) -> str:
    from pespec.reference.conventions import preset, preset_source

    convention = preset(name)
    return (
        f"{convention.layout} s={convention.frequency_shift:g} o={convention.position_offset} "
        f"c={convention.argument_scale:g} ({preset_source(name)})"
    )


def _run(args: argparse.Namespace) -> int:
    from pespec.reference.conventions import preset_names

    names = preset_names()
    width = max(len(name) for name in names)
    for name in names:
        print(name if args.names else f"{name:<{width}}  {_describe(name)}")
    return 0
