"""``pespec plot encoding|error|diagnosis``: draw the encoding, a backend's error, or a rotary
backend's diagnosis (the [plot] extra)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pespec.plot import PlotDependencyError


def register(subparsers: Any) -> None:
    """Add ``pespec plot encoding``, ``pespec plot error`` and ``pespec plot diagnosis``."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "plot",
        help="draw the encoding, a backend's error or a rotary diagnosis (needs the [plot] extra)",
    )
    kinds = parser.add_subparsers(dest="plot_kind", metavar="KIND", required=True)
    encoding = kinds.add_parser("encoding", help="heatmap of the reference encoding")
    encoding.add_argument("--d-model", type=int, required=True, help="model dimension (even)")
    encoding.add_argument("--seq-len", type=int, required=True, help="number of positions")
    encoding.add_argument("--base", type=float, default=10000.0, help="frequency base (> 1)")
    encoding.add_argument("-o", "--output", required=True, help="file to write: .png, .pdf or .svg")
    encoding.set_defaults(func=_run_encoding)
    error = kinds.add_parser("error", help="|error| vs position with the level's bound")
    error.add_argument("backend", help="backend spec: numpy-float32, torch, module:attr, ...")
    error.add_argument("--level", default=None, help="level, e.g. float32 or float16@float64")
    error.add_argument("--d-model", type=int, default=64, help="model dimension (even)")
    error.add_argument(
        "--max-position",
        type=float,
        default=None,
        help="largest position drawn (default: 1e5, or the backend's declared maximum)",
    )
    error.add_argument("--base", type=float, default=10000.0, help="frequency base (> 1)")
    error.add_argument("-o", "--output", required=True, help="file to write: .png, .pdf or .svg")
    error.add_argument(
        "--timeout", type=float, default=None, help="seconds the backend call may take"
    )
    error.set_defaults(func=_run_error)
    _register_diagnosis(kinds)


def _register_diagnosis(kinds: Any) -> None:
    diagnosis = kinds.add_parser(
        "diagnosis",
        help="a rotary backend: measured vs declared frequency, phase error vs position",
        description="Draw what a rotary BACKEND computes for --config (SPEC Annex D.9): "
        "(a) each pair's measured frequency (with its precision) against the declared one, "
        "deviating pairs marked; (b) the phase error against position for the worst pair and "
        "a few others, with the bound of the level. Exit 0 when drawn, 1 when the backend "
        "fails or its probes cannot be read, 2 for a usage error.",
    )
    diagnosis.add_argument("backend", help="rotary backend spec: numpy, torch, module:attr, ...")
    diagnosis.add_argument(
        "--config", required=True, help="preset name (pespec rope presets lists them) or JSON file"
    )
    diagnosis.add_argument("--layer-type", default=None, help="layer type of a config.json")
    diagnosis.add_argument(
        "--seq-len", type=_seq_len, default=None, help="ℓ of a config.json: an int, or per-call"
    )
    diagnosis.add_argument("--level", default=None, help="PHASE/CACHE/ROTATION or one dtype")
    diagnosis.add_argument(
        "-o", "--output", default="diagnosis.png", help="file to write: .png (default "
        "diagnosis.png), .pdf or .svg"
    )  # fmt: skip
    diagnosis.add_argument(
        "--timeout", type=float, default=None, help="seconds each backend call may take"
    )
    diagnosis.set_defaults(func=_run_diagnosis)


def _report_missing(exc: PlotDependencyError) -> int:  # pespec.plot loads when a plot runs
    print(f"pespec: error: {exc}", file=sys.stderr)
    return 2


def _check_output_path(path: str) -> None:
    """The -o path: a known suffix and a place a file can be written (before any work)."""
    from pespec._atomic import check_writable
    from pespec.plot import plot_format

    plot_format(path, "-o")
    check_writable(path, "-o")


def _run_encoding(args: argparse.Namespace) -> int:
    from pespec.plot import PlotDependencyError, encoding_plot

    try:
        _check_output_path(args.output)
        path = encoding_plot(args.d_model, args.seq_len, args.output, base=args.base)
    except PlotDependencyError as exc:
        return _report_missing(exc)
    except OSError as exc:
        print(
            f"pespec: error: cannot write {args.output!r}: {exc.strerror or exc}", file=sys.stderr
        )
        return 2
    print(f"wrote {path}")
    return 0


def _run_error(args: argparse.Namespace) -> int:
    from pespec.conformance.engine import DEFAULT_TIMEOUT
    from pespec.conformance.guard import BackendLoadError
    from pespec.plot import PlotDependencyError, default_positions, error_plot

    if args.timeout is not None and not args.timeout > 0:
        print(f"pespec: error: --timeout must be > 0 seconds; got {args.timeout}", file=sys.stderr)
        return 2
    try:
        _check_output_path(args.output)
        path = error_plot(
            args.backend,
            args.level,
            args.output,
            d_model=args.d_model,
            positions=None if args.max_position is None else default_positions(args.max_position),
            base=args.base,
            timeout=DEFAULT_TIMEOUT if args.timeout is None else args.timeout,
        )
    except PlotDependencyError as exc:
        return _report_missing(exc)
    except (BackendLoadError, ValueError, TypeError) as exc:
        print(f"pespec: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(
            f"pespec: error: cannot write {args.output!r}: {exc.strerror or exc}", file=sys.stderr
        )
        return 2
    except (Exception, SystemExit, GeneratorExit) as exc:  # a misbehaving backend, even sys.exit
        print(
            f"pespec: error: backend {args.backend!r} failed while plotting: "
            f"{type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        return 1
    print(f"wrote {path}")
    return 0


def _run_diagnosis(args: argparse.Namespace) -> int:
    from pespec.conformance.guard import BackendLoadError
    from pespec.plot import PlotDependencyError, diagnosis_plot
    from pespec.rope.errormodel import parse_rope_level
    from pespec.rope.presets import load_config

    prog = "pespec plot diagnosis"
    try:
        if args.timeout is not None and not args.timeout > 0:
            raise ValueError(f"--timeout must be > 0 seconds; got {args.timeout}")
        level = None if args.level is None else parse_rope_level(args.level)
        _check_output_path(args.output)
        config = load_config(args.config, args.layer_type, args.seq_len).config
        from pespec.rope.backends import load_rope_backend

        backend = load_rope_backend(args.backend)
    except PlotDependencyError as exc:
        return _report_missing(exc)
    except (BackendLoadError, OSError, ValueError, TypeError) as exc:
        print(f"{prog}: error: {getattr(exc, 'strerror', None) or exc}", file=sys.stderr)
        return 2
    try:
        path = diagnosis_plot(backend, config, args.output, level, timeout=args.timeout)
    except PlotDependencyError as exc:
        return _report_missing(exc)
    except OSError as exc:
        print(
            f"{prog}: error: cannot write {args.output!r}: {exc.strerror or exc}", file=sys.stderr
        )
        return 2
    except (Exception, SystemExit, GeneratorExit) as exc:  # NotMeasured, or a misbehaving backend
        print(f"{prog}: error: backend {args.backend!r} failed while plotting: "
              f"{type(exc).__name__}: {exc}", file=sys.stderr)  # fmt: skip
        return 1
    print(f"wrote {path}")
    return 0


def _seq_len(text: str) -> int | str:
    from pespec.rope.family import seq_len_argument

    return seq_len_argument(text)
