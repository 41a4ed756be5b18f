"""``pespec plot encoding|error``: draw the encoding or a backend's error (the [plot] extra)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pespec.plot import (
    PlotDependencyError,
    default_positions,
    encoding_plot,
    error_plot,
    plot_format,
)


def register(subparsers: Any) -> None:
    """Add ``pespec plot encoding`` and ``pespec plot error``."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "plot", help="draw the encoding or a backend's error (needs the [plot] extra)"
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


def _report_missing(exc: PlotDependencyError) -> int:
    print(f"pespec: error: {exc}", file=sys.stderr)
    return 2


def _check_output_path(path: str) -> None:
    """The -o path: a known suffix and a place a file can be written (before any work)."""
    from pespec._atomic import check_writable

    plot_format(path, "-o")
    check_writable(path, "-o")


def _run_encoding(args: argparse.Namespace) -> int:
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
