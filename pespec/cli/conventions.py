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
        "position offset o, argument scale c, output scale A (when not 1) and public source "
        "(--names: the names only). "
        "Rotary presets: pespec rope presets.",
    )
    parser.add_argument("--names", action="store_true", help="print the names only")
    parser.set_defaults(func=_run)


def _output_scale(scale: float | str) -> str:
    """`` A=√(2/d)`` for a scaled convention; empty when A = 1 (the listing of spec 1.1)."""
    if scale == 1.0:
        return ""
    return " A=√(2/d)" if scale == "sqrt(2/d)" else f" A={float(scale):g}"


def _describe(name: str) -> str:
    from pespec.sinusoidal.reference.conventions import preset, preset_source

    convention = preset(name)
    return (
        f"{convention.layout} s={convention.frequency_shift:g} o={convention.position_offset} "
        f"c={convention.argument_scale:g}{_output_scale(convention.output_scale)} "
        f"({preset_source(name)})"
    )


def _run(args: argparse.Namespace) -> int:
    from pespec.sinusoidal.reference.conventions import preset_names

    names = preset_names()
    width = max(len(name) for name in names)
    for name in names:
        print(name if args.names else f"{name:<{width}}  {_describe(name)}")
    return 0
