"""``pespec rope check``: the rotary conformance suite from the command line (SPEC §8.8).

    pespec rope check BACKEND --config PRESET_OR_CONFIG_JSON [--level PHASE/CACHE/ROTATION]
                      [--profile ci|dev|thorough] [--json PATH] [--markdown PATH]
    pespec rope check --from-file OUT.csv|.npy|.npz --config C [--level L] [--key K]
    pespec rope inputs --config C [-o inputs.csv|.npz]
    pespec rope presets [--names]

``--from-file`` checks a saved output of the inputs ``pespec rope inputs`` writes (SPEC
R8.16; for C, CUDA and other kernels Python cannot call).

``--config`` is a preset name (``pespec rope presets`` lists them), or a JSON file holding a
RopeConfig dict (``to_dict``) or a transformers ``config.json`` (read by
:func:`pespec.rope.from_hf`; ``--layer-type`` and ``--seq-len`` as there);
``--output-layout`` sets its ``output_layout`` (SPEC §8.2); ``--mode scores`` judges q·k scores
of rotated pairs instead of the elements (:mod:`pespec.rope.scores`, SPEC R8.14). Exit codes as
``pespec check``: 0 conformant, 1 non-conformant, 2 usage error or backend not loadable,
130 interrupted.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any


def register(subparsers: Any) -> None:
    """Add the ``rope`` command with its ``check`` sub-command."""
    rope: argparse.ArgumentParser = subparsers.add_parser(
        "rope", help="rotary position embeddings: pespec rope check BACKEND --config C"
    )
    sub = rope.add_subparsers(dest="rope_command", metavar="SUBCOMMAND")
    _register_check(sub)
    _register_presets(sub)
    rope.set_defaults(func=_no_subcommand)


def _seq_len(text: str) -> int | str:
    from pespec.rope.family import seq_len_argument

    return seq_len_argument(text)


def _register_presets(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "presets",
        help="list the rotary presets --config accepts, one per line",
        description="List the rotary presets (SPEC Annex F.1) that --config accepts: one name "
        "per line with its schedule, θ, head size and Hub source (--names: the names only). "
        "The sinusoidal family's named conventions are listed by `pespec conventions`.",
    )
    parser.add_argument("--names", action="store_true", help="print the names only")
    parser.set_defaults(func=_presets)


def _register_check(sub: Any) -> None:
    from pespec.cli.check import add_common_options
    from pespec.families import FAMILIES

    parser: argparse.ArgumentParser = sub.add_parser(
        "check",
        usage="pespec rope check (BACKEND | --client NAME | --from-file PATH) --config C [options]",
        help="run the rotary suite on a backend (exit 0 conformant, 1 not, 2 error)",
        description="Run the rotary conformance suite on BACKEND (numpy, numpy-float32, "
        "torch[-DTYPE][:DEVICE], package.module:attr, file.py:attr, or a name in the "
        "entry-point group pespec.rope_backends) for one configuration, or check a saved "
        "output with --from-file. The same as `pespec check --family rope ...`.",
    )
    add_common_options(parser, rope=True)
    group = parser.add_argument_group("the rotary family's options")
    for option in FAMILIES["rope"].options:
        if option.flags == ("--config",):  # required here; `pespec check` checks it itself
            group.add_argument(*option.flags, **{**dict(option.kwargs), "required": True})
        else:
            option.add_to(group)
    parser.set_defaults(func=run_check)
    inputs: argparse.ArgumentParser = sub.add_parser(
        "inputs",
        help="write the inputs a --from-file output must be computed for",
        description="Write the positions and x vectors (SPEC R8.16) whose rotated output "
        "`pespec rope check --from-file` checks: CSV with a header `position,x0,...` and one "
        "row per position (to stdout without -o), or .npz with arrays positions and x.",
    )
    inputs.add_argument(
        "--config", required=True, help="preset name (pespec rope presets lists them) or JSON file"
    )
    inputs.add_argument("--layer-type", default=None, help="layer type of a config.json")
    inputs.add_argument("--seq-len", type=_seq_len, default=None, help="ℓ: an int, or per-call")
    inputs.add_argument("-o", "--output", metavar="PATH", help="inputs.csv or inputs.npz")
    inputs.set_defaults(func=_inputs)


def _no_subcommand(args: argparse.Namespace) -> int:
    print(
        "pespec rope: error: give a sub-command (check, inputs, presets); pespec rope --help "
        "says more",
        file=sys.stderr,
    )
    return 2


def _rope_client(args: argparse.Namespace) -> None:
    """``--client`` (or a ``client:`` BACKEND) resolved to BACKEND; a rotary client only."""
    from pespec.cli.check import client_family

    client_family(args)
    if getattr(args, "family", None) not in (None, "rope"):
        raise ValueError(f"{args.backend} is of --family {args.family}, not rope")


def run_check(args: argparse.Namespace, prog: str = "pespec rope check") -> int:
    """The rotary family's check on parsed arguments (``pespec rope check``, and ``pespec
    check --family rope``: its command in :mod:`pespec.families`)."""
    from pespec._atomic import check_writable
    from pespec.cli.verdict import run_and_report
    from pespec.clients.resolve import load_client_config
    from pespec.conformance.engine import DEFAULT_TIMEOUT
    from pespec.rope.suite import check

    try:
        _rope_client(args)
        if args.config is None:
            raise ValueError("give --config (a preset name or a JSON file) with --family rope")
        if (args.backend is None) == (args.from_file is None):
            raise ValueError("give exactly one of BACKEND or --from-file")
        if args.from_file is not None and (args.profile is not None or args.timeout is not None):
            raise ValueError("--profile and --timeout do not apply to --from-file")
        if args.from_file is None and args.key is not None:
            raise ValueError("--key only applies with --from-file")
        if args.from_file is not None and (
            args.max_position is not None or args.fractional_positions
        ):
            raise ValueError(
                "--max-position and --fractional-positions do not apply to --from-file"
            )
        if args.max_position is not None and not 1 <= args.max_position <= 2**40:
            raise ValueError(f"--max-position must be an int in 1..2**40; got {args.max_position}")
        for option, path in (("--json", args.json), ("--markdown", args.markdown)):
            if path:
                check_writable(path, option)
        mode = _mode(args)
        reading = load_client_config(args.backend, args.config, args.layer_type, args.seq_len)
        config, notes = reading.config, list(reading.notes)
        if getattr(args, "output_layout", None) is not None:
            config = dataclasses.replace(config, output_layout=args.output_layout)
    except (OSError, ValueError, TypeError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    if args.from_file is not None:
        from pespec.rope.fromfile import check_file

        def from_file() -> Any:
            from pespec.rope.report import set_notes

            report = check_file(args.from_file, config, level=args.level, key=args.key)
            set_notes(report, notes)
            return report

        return run_and_report(prog, args, from_file)
    timeout = DEFAULT_TIMEOUT if args.timeout is None else args.timeout
    from pespec.cli.supervised import run_checked, supervising
    from pespec.clients.resolve import resolve

    if supervising(args):  # the backend runs in a watched child process (SPEC §6.6)
        options = {
            "config": config.to_dict(),
            "level": args.level,
            "profile": args.profile,
            "timeout": timeout,
            "max_position": args.max_position,
            "fractional_positions": args.fractional_positions,
            "config_notes": notes,
            "mode": mode,
        }
        return run_and_report(prog, args, lambda: run_checked("rope", args, options))
    return run_and_report(
        prog,
        args,
        lambda: check(
            resolve(args.backend, args.config),
            config,
            level=args.level,
            profile=args.profile,
            timeout=timeout,
            max_position=args.max_position,
            fractional_positions=args.fractional_positions,
            config_notes=notes,
            mode=mode,
        ),
    )


def _mode(args: argparse.Namespace) -> str:
    """``--mode`` checked (default ``elements``); ValueError for another value, or for
    ``scores`` with ``--from-file`` (a saved file holds elements, not pairs)."""
    from pespec.rope.scores import check_mode

    mode = check_mode(getattr(args, "mode", None) or "elements", "--mode")
    if args.from_file is not None and mode != "elements":
        raise ValueError("--mode scores does not apply to --from-file (a file holds elements)")
    return mode


def _inputs(args: argparse.Namespace) -> int:
    """``pespec rope inputs``: the file inputs as CSV on stdout, or written to ``-o``; then
    what was written (on stderr when stdout holds the CSV)."""
    from pespec.rope.fromfile import file_inputs, write_inputs
    from pespec.rope.presets import load_config

    try:
        reading = load_config(args.config, args.layer_type, args.seq_len)
        write_inputs(reading.config, "-" if args.output is None else args.output)
    except (OSError, ValueError, TypeError) as exc:
        print(f"pespec rope inputs: error: {exc}", file=sys.stderr)
        return 2
    positions, x = file_inputs(reading.config)
    where = "standard output" if args.output is None else args.output
    shown = ", ".join(_number(p) for p in positions.tolist())
    notes = "".join(f"; {note}" for note in reading.notes)
    print(
        f"wrote {where}: {x.shape[0]} rows, positions {shown}, head_dim {x.shape[1]}{notes}",
        file=sys.stderr if args.output is None else sys.stdout,
    )
    return 0


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _presets(args: argparse.Namespace) -> int:
    """``pespec rope presets``: one preset per line, name then description."""
    from pespec.rope.presets import PRESETS, describe_preset

    width = max(len(name) for name in PRESETS)
    for name in PRESETS:
        print(name if args.names else f"{name:<{width}}  {describe_preset(name)}")
    return 0
