"""``pespec rope check``: the rotary conformance suite from the command line (SPEC §12.13).

    pespec rope check BACKEND --config PRESET_OR_CONFIG_JSON [--level PHASE/CACHE/ROTATION]
                      [--profile ci|dev|thorough] [--json PATH] [--markdown PATH]

``--config`` is a preset name, or a JSON file holding a RopeConfig dict (``to_dict``) or a
transformers ``config.json`` (read by :func:`pespec.rope.from_hf`; ``--layer-type`` and
``--seq-len`` as there). Exit codes as ``pespec check``: 0 conformant, 1 non-conformant,
2 usage error or backend not loadable, 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: Any) -> None:
    """Add the ``rope`` command with its ``check`` sub-command."""
    rope: argparse.ArgumentParser = subparsers.add_parser(
        "rope", help="rotary position embeddings: pespec rope check BACKEND --config C")
    sub = rope.add_subparsers(dest="rope_command", metavar="SUBCOMMAND")
    parser: argparse.ArgumentParser = sub.add_parser(
        "check", help="run the rotary suite on a backend (exit 0 conformant, 1 not, 2 error)",
        description="Run the rotary conformance suite on BACKEND (numpy, numpy-float32, "
        "torch[-DTYPE][:DEVICE], package.module:attr, file.py:attr, or a name in the "
        "entry-point group pespec.rope_backends) for one configuration.")
    parser.add_argument("backend", help="rotary backend spec")
    parser.add_argument("--config", required=True,
                        help="preset name, or a JSON file: a RopeConfig dict or a transformers "
                             "config.json")
    parser.add_argument("--layer-type", default=None, help="layer type of a config.json")
    parser.add_argument("--seq-len", type=int, default=None, help="ℓ for dynamic/longrope")
    parser.add_argument("--level", help="PHASE/CACHE/ROTATION, e.g. float32/bfloat16/bfloat16 "
                                        "(default: from the output dtype)")
    parser.add_argument("--profile", choices=("ci", "dev", "thorough"), default=None)
    parser.add_argument("--json", metavar="PATH", help="write the JSON report")
    parser.add_argument("--markdown", metavar="PATH", help="write the Markdown report")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds one backend call may take")
    parser.add_argument("--quiet", action="store_true", help="print only the verdict line")
    parser.add_argument("--verbose", action="store_true", help="print every check")
    parser.set_defaults(func=_run)
    rope.set_defaults(func=_no_subcommand)


def _no_subcommand(args: argparse.Namespace) -> int:
    print("pespec rope: error: give a sub-command (check); pespec rope --help says more",
          file=sys.stderr)
    return 2


def _run(args: argparse.Namespace) -> int:
    from pespec._atomic import check_writable
    from pespec.cli.verdict import run_and_report
    from pespec.conformance.runner import DEFAULT_TIMEOUT
    from pespec.rope.presets import read_config
    from pespec.rope.suite import check

    try:
        for option, path in (("--json", args.json), ("--markdown", args.markdown)):
            if path:
                check_writable(path, option)
        config = read_config(args.config, args.layer_type, args.seq_len)
    except (OSError, ValueError, TypeError) as exc:
        print(f"pespec rope check: error: {exc}", file=sys.stderr)
        return 2
    timeout = DEFAULT_TIMEOUT if args.timeout is None else args.timeout
    return run_and_report(
        "pespec rope check",
        args,
        lambda: check(args.backend, config, level=args.level, profile=args.profile,
                      timeout=timeout),
    )
