"""``pespec encode``: print the encoding for a small configuration."""

from __future__ import annotations

import argparse
import json
from typing import Any


def register(subparsers: Any) -> None:
    """Add the ``encode`` sub-command."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "encode", help="print the float64 reference encoding for positions offset..offset+L-1"
    )
    parser.add_argument("--d-model", type=int, required=True, help="model dimension (even)")
    parser.add_argument("--seq-len", type=int, required=True, help="number of positions L")
    parser.add_argument("--base", type=float, default=10000.0, help="frequency base (> 1)")
    parser.add_argument("--offset", type=int, default=0, help="first position (>= 0)")
    parser.add_argument(
        "--convention",
        type=_convention_name,
        default="canonical",
        metavar="NAME",
        help="named convention (default canonical; pespec conventions lists and describes them)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON (shortest round-trip)")
    parser.set_defaults(func=_run)


def _convention_name(text: str) -> str:
    """A named convention of the registry (argparse type: a close match is suggested)."""
    from pespec.sinusoidal.reference.conventions import preset_names

    if text not in preset_names():
        from pespec._suggest import did_you_mean

        raise argparse.ArgumentTypeError(
            f"no convention {text!r}{did_you_mean(text, preset_names())} (one of "
            f"{', '.join(preset_names())}; pespec conventions describes them)"
        )
    return text


def _run(args: argparse.Namespace) -> int:
    import numpy as np

    from pespec.sinusoidal.reference.conventions import preset
    from pespec.sinusoidal.reference.encoding import sinusoidal_positional_encoding

    pe = sinusoidal_positional_encoding(
        args.seq_len,
        args.d_model,
        base=args.base,
        offset=args.offset,
        convention=preset(args.convention),
    )
    if args.json:
        rows = [[float(v) for v in row] for row in pe]
        print(json.dumps({"d_model": args.d_model, "offset": args.offset, "values": rows}))
        return 0
    with np.printoptions(precision=17, floatmode="unique", suppress=False, linewidth=120):
        for i, row in enumerate(pe):
            print(f"pos {args.offset + i}: {row}")
    return 0
