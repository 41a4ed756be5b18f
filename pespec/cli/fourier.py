"""``pespec check --family fourier``: the Fourier family's check command on parsed arguments.

It takes the options every family shares and ``--config`` (or its synonym ``--convention``):
a Fourier preset name, a JSON file of ``FourierConvention.to_dict()`` (or
``{"preset": NAME, ...changes}``), else the backend's declared ``config``; ``--stages``
selects among contract, golden, reference, property. By default the backend runs in pespec's
supervised child process.
"""

from __future__ import annotations

import argparse
import sys

from pespec.cli.family_check import run_backend, shared_options

__all__ = ["run"]


def run(args: argparse.Namespace, prog: str = "pespec check") -> int:
    """The Fourier check: 0 conformant, 1 not, 2 usage error, 130 interrupted."""
    from pespec.fourier.presets import convention_from
    from pespec.fourier.run import FAMILY, STAGES, check

    if args.backend is None or getattr(args, "from_file", None) is not None:
        print(f"{prog}: error: --family fourier checks a BACKEND (no --from-file)", file=sys.stderr)
        return 2
    config, convention = getattr(args, "config", None), getattr(args, "convention", None)
    if config is not None and convention is not None and config != convention:
        print(f"{prog}: error: give --config or --convention, not both", file=sys.stderr)
        return 2
    chosen = config if config is not None else convention
    options = shared_options(args)
    if chosen is not None:
        try:
            options["config"] = convention_from(chosen).to_dict()
        except (ValueError, TypeError) as exc:
            print(f"{prog}: error: {exc}", file=sys.stderr)
            return 2
    stages = getattr(args, "stages", None)
    if stages is not None:
        wanted = [s.strip() for s in str(stages).split(",") if s.strip()]
        unknown = [s for s in wanted if s not in STAGES]
        if unknown:
            print(
                f"{prog}: error: --stages must be among {', '.join(STAGES)}; got {unknown}",
                file=sys.stderr,
            )
            return 2
        options["stages"] = wanted
    from pespec.clients.resolve import resolve  # a client:NAME@DTYPE spec (pespec table)

    return run_backend(prog, args, FAMILY, options, check, lambda: resolve(args.backend, chosen))
