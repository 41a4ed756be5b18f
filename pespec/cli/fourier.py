"""``pespec check --family fourier``: the Fourier family's check command on parsed arguments.

It takes the options every family shares and ``--config`` (or its synonym ``--convention``):
a Fourier preset name, a JSON file of ``FourierConvention.to_dict()`` (or
``{"preset": NAME, ...changes}``), else the backend's declared ``config``; ``--stages``
selects among contract, golden, reference, property. By default the backend runs in pespec's
supervised child process. ``--from-file OUT --config C`` checks a saved output instead
(:mod:`pespec.fourier.fromfile`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pespec.cli.family_check import run_backend, shared_options

__all__ = ["run"]


def run(args: argparse.Namespace, prog: str = "pespec check") -> int:
    """The Fourier check: 0 conformant, 1 not, 2 usage error, 130 interrupted."""
    from pespec.fourier.presets import convention_from
    from pespec.fourier.run import FAMILY, STAGES, check

    from_file = getattr(args, "from_file", None)
    if (args.backend is None) == (from_file is None):
        print(f"{prog}: error: give exactly one of BACKEND or --from-file", file=sys.stderr)
        return 2
    config, convention = getattr(args, "config", None), getattr(args, "convention", None)
    if config is not None and convention is not None and config != convention:
        print(f"{prog}: error: give --config or --convention, not both", file=sys.stderr)
        return 2
    chosen = config if config is not None else convention
    if from_file is not None:
        return _from_file(args, prog, chosen)
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


def _from_file(args: argparse.Namespace, prog: str, chosen: Any) -> int:
    """``--from-file OUT --config C``: the saved output's checks (pespec.fourier.fromfile)."""
    from pespec.cli.verdict import run_and_report
    from pespec.fourier.fromfile import check_file

    misplaced = [
        flag
        for flag, value in (("--stages", getattr(args, "stages", None)),
                            ("--profile", args.profile), ("--timeout", args.timeout))
        if value is not None
    ]  # fmt: skip
    if misplaced:
        print(f"{prog}: error: {', '.join(misplaced)} do not apply to --from-file", file=sys.stderr)
        return 2
    if chosen is None:
        print(f"{prog}: error: --from-file needs --config (a fourier preset or JSON file)",
              file=sys.stderr)  # fmt: skip
        return 2
    key = getattr(args, "key", None)
    return int(
        run_and_report(
            prog, args, lambda: check_file(args.from_file, chosen, level=args.level, key=key)
        )
    )
