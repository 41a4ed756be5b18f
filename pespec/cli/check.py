"""``pespec check``: run the conformance suite of a family from the command line (SPEC §6).

    pespec check BACKEND [--level L] [--convention NAME|FILE.json] [--profile ci|dev|thorough]
        [--json PATH] [--markdown PATH]
    pespec check --from-file out.npy [--d-model D] [--positions 0:4096] [--base B]
    pespec check --family rope BACKEND --config C ...   (the same as pespec rope check ...)

``--family`` names a family of :mod:`pespec.families` (default sinusoidal); each family's own
options are listed under it in ``--help``. Exit codes: 0 conformant, 1 non-conformant, 2 usage
error or backend not loadable, 130 interrupted (Ctrl-C; the partial report is written, marked
incomplete).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# engine.DEFAULT_TIMEOUT, written here so building the parser imports no engine (the
# lazy --help); tests/cli/test_new_user.py checks the two agree.
HELP_DEFAULT_TIMEOUT = 120.0


def register(subparsers: Any) -> None:
    """Add the ``check`` sub-command: the shared options, ``--family``, and each built-in
    family's own options (from the registry)."""
    from pespec.families import DEFAULT_FAMILY, FAMILIES

    parser: argparse.ArgumentParser = subparsers.add_parser(
        "check",
        help="run the conformance suite on a backend (exit 0 conformant, 1 not, 2 error)",
        usage="pespec check [--family NAME] (BACKEND | --from-file PATH) [options]",
        description="Run the conformance suite of a family (--family: "
        f"{', '.join(FAMILIES)}; default {DEFAULT_FAMILY}) on BACKEND: a built-in name "
        "(numpy, numpy-float32, numpy-float16, numpy-bfloat16, torch[-DTYPE][:DEVICE], "
        "jax[-DTYPE]), package.module:attr, file.py:attr, or a name in the entry-point group "
        "pespec.backends (pespec.rope_backends for rope). `pespec check --family rope ...` is "
        "`pespec rope check ...`. Exit 0 conformant, 1 non-conformant, 2 usage error, 3 "
        "NOT JUDGED (a partial run, --stages, in which nothing failed but no golden or "
        "reference check ran).",
    )
    parser.add_argument(
        "--family",
        default=None,
        metavar="NAME",
        help=f"the family to check: {', '.join(FAMILIES)} (default {DEFAULT_FAMILY}), or one "
        "a package adds (entry-point group pespec.families)",
    )
    add_common_options(parser)
    seen: set[str] = set()  # an option two families share (--config) is added once
    for family in FAMILIES.values():
        group = parser.add_argument_group(f"--family {family.name}: {family.summary}")
        for option in family.options:
            if seen.isdisjoint(option.flags):
                option.add_to(group)
            else:
                shared = f"also takes {', '.join(option.flags)}: {option.help}"
                group.description = "; ".join(filter(None, (group.description, shared)))
            seen.update(option.flags)
    parser.set_defaults(func=_run)


def requested_family(argv: Sequence[str]) -> str | None:
    """The NAME of ``check --family NAME`` (or ``--family=NAME``) in ``argv``, else None."""
    words = list(argv)
    if "check" not in words:
        return None
    for index, word in enumerate(words[words.index("check") + 1 :], words.index("check") + 1):
        if word == "--family" and index + 1 < len(words):
            return words[index + 1]
        if word.startswith("--family="):
            return word.partition("=")[2]
    return None


def add_requested_family(parser: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    """Add the own options of the family ``argv`` names with ``check --family`` when a package
    adds it (entry point ``pespec.families``): read only then, so other runs load no entry
    point. A name that does not load adds nothing (the check reports it, exit 2)."""
    from pespec.families import FAMILIES, get_family

    name = requested_family(argv)
    if name is None or name in FAMILIES:
        return
    try:
        family = get_family(name)
    except ValueError:
        return
    group = parser.add_argument_group(f"--family {family.name}: {family.summary}")
    for option in family.options:
        option.add_to(group)


def add_common_options(parser: argparse.ArgumentParser, *, rope: bool = False) -> None:
    """The options every family's check takes (``pespec check`` and ``pespec rope check``);
    ``rope``: the rotary wording of the help."""
    from pespec.cli.supervised import IN_PROCESS_HELP

    what = "rotary backend spec" if rope else "backend spec"
    parser.add_argument("backend", nargs="?", help=f"{what} (omit with --from-file)")
    parser.add_argument(
        "--level",
        help="level to test: sinusoidal float16 or float16@float64, rope PHASE/CACHE/ROTATION "
        "such as float32/bfloat16/bfloat16 (default: from the output dtype)",
    )
    parser.add_argument(
        "--profile",
        choices=("ci", "dev", "thorough"),
        default=None,
        help="ci (default, derandomized), dev, or thorough (the largest sizes)",
    )
    parser.add_argument(
        "--json",
        metavar="PATH",
        help="write the JSON report (its schema version is in the file; SPEC Annex E.7)",
    )
    parser.add_argument("--markdown", metavar="PATH", help="write the Markdown report")
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help=f"seconds one backend call may take (default {HELP_DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument("--quiet", action="store_true", help="print only the verdict line")
    parser.add_argument("--in-process", action="store_true", help=IN_PROCESS_HELP)
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="print the table of every check and every failure (a failing run otherwise "
        "prints the verdict, the diagnosis and the first failure of each stage)",
    )
    clients = parser.add_argument_group("real library entry points (pespec table --list)")
    clients.add_argument(
        "--client",
        metavar="NAME",
        help="check a client, e.g. transformers:llama (instead of BACKEND; the family is the "
        "client's); the same as BACKEND client:NAME@DTYPE",
    )
    clients.add_argument(
        "--dtype", help="the client's dtype (with --client; default its first, float32)"
    )
    group = parser.add_argument_group("checking a saved output (non-Python implementations)")
    group.add_argument(
        "--from-file",
        metavar="PATH",
        help="output array: .npy, .npz or .csv (rope: of the inputs `pespec rope inputs` "
        "writes, SPEC R8.16)",
    )
    group.add_argument("--key", help="array name inside an .npz file (with --from-file)")


def client_family(args: argparse.Namespace) -> None:
    """``--client NAME [--dtype D]`` (or BACKEND ``client:NAME@D``): set BACKEND to the
    client's spec and ``--family`` to its family (ValueError for a conflicting argument)."""
    from pespec.clients.resolve import CLIENT_PREFIX, client_spec, parse_client_spec

    client = getattr(args, "client", None)
    if client is None:
        if getattr(args, "dtype", None) is not None:
            raise ValueError("--dtype applies with --client")
        if not (isinstance(args.backend, str) and args.backend.startswith(CLIENT_PREFIX)):
            return
    elif args.backend is not None or args.from_file is not None:
        raise ValueError("give one of BACKEND, --from-file or --client")
    else:
        args.backend = client_spec(client, args.dtype or "")
    found, dtype = parse_client_spec(args.backend)
    if dtype not in found.dtypes:
        raise ValueError(
            f"--dtype must be one of {', '.join(found.dtypes)} for client {found.name}; "
            f"got {dtype!r}"
        )
    args.backend = client_spec(found.name, dtype)
    family = getattr(args, "family", None)
    if family not in (None, found.family):
        raise ValueError(f"client {found.name} is of --family {found.family}; got {family}")
    args.family = found.family
    args.client = args.dtype = None  # consumed: BACKEND says it now


def _run(args: argparse.Namespace) -> int:
    """``pespec check``: the family's command on these arguments, after refusing another
    family's options (exit 2)."""
    from pespec.families import FAMILIES, get_family

    try:
        client_family(args)
        family = get_family(args.family)
    except ValueError as exc:
        print(f"pespec check: error: {exc}", file=sys.stderr)
        return 2
    for other in FAMILIES.values():
        for option in other.options:
            if option.dest in family.option_dests or getattr(args, option.dest, None) in (
                None,
                False,
            ):
                continue
            print(
                f"pespec check: error: {option.flags[0]} does not apply to --family "
                f"{family.name} (it is an option of --family {other.name})",
                file=sys.stderr,
            )
            return 2
    from pespec.cli.family_check import report_paths_writable

    if not report_paths_writable(args, "pespec check"):  # every family: before the run
        return 2
    return int(family.load("command")(args, "pespec check"))


def run_sinusoidal(args: argparse.Namespace, prog: str = "pespec check") -> int:
    """The sinusoidal family's check on parsed arguments (its command in the registry; the
    report paths were checked by ``pespec check``)."""
    if (args.backend is None) == (args.from_file is None):
        print(f"{prog}: error: give exactly one of BACKEND or --from-file", file=sys.stderr)
        return 2
    from pespec.cli.verdict import run_and_report
    from pespec.clients.relative_route import is_relative_client

    relative = is_relative_client(args.backend)  # a relative table: the table-only check
    return run_and_report(
        prog,
        args,
        lambda: _from_file(args) if args.from_file is not None else _suite(args),
        picture=None
        if args.backend is None or relative
        else lambda report, markdown: _error_plot(args, report, markdown),
    )


def _error_plot(args: argparse.Namespace, report: Any, markdown: str) -> str | None:
    """The error picture beside the Markdown report (none without matplotlib); a supervised
    run's child drew it already (``report.error_plot``)."""
    from pespec.cli.supervised import supervising
    from pespec.plot import report_error_plot

    if supervising(args):
        return getattr(report, "error_plot", None)
    return report_error_plot(args.backend, report.level, markdown, timeout=_timeout(args))


def _suite(args: argparse.Namespace) -> Any:
    from pespec.clients.relative_route import check_client, is_relative_client

    if is_relative_client(args.backend):  # SPEC §10.10: judged at its declared rows only
        if args.stages is not None or args.convention is not None:
            raise ValueError("--stages and --convention do not apply to a relative table client")
        return check_client(args.backend, args.level)
    if args.from_file is None and (args.d_model is not None or args.positions is not None):
        raise ValueError("--d-model and --positions only apply with --from-file")
    chosen = None if args.stages is None else tuple(s.strip() for s in args.stages.split(","))
    timeout = _timeout(args)
    from pespec.cli.supervised import run_checked, supervising

    supervised = supervising(args)
    hypothesis_storage_outside_cwd(child_only=supervised)
    if supervised:  # the backend runs in a watched child process (SPEC §6.6)
        options: dict[str, Any] = {
            "level": args.level,
            "profile": args.profile,
            "timeout": timeout,
            "examples": args.examples,
            "shrink": not args.no_shrink,
            "convention": args.convention,
            "fail_fast": not args.no_fail_fast,
        }
        if chosen is not None:  # else the child's default, all stages: this process then
            options["stages"] = list(chosen)  # imports no suite (0.6 s, issue 37)
        return run_checked("sinusoidal", args, options, bar=True, picture_timeout=timeout)
    from pespec.cli.terminal import StageLines, progress_bar
    from pespec.clients.resolve import resolve
    from pespec.sinusoidal.run import STAGES, Suite

    stages = STAGES if chosen is None else chosen

    suite = Suite(
        resolve(args.backend, None),
        level=args.level,
        profile=args.profile,
        timeout=timeout,
        stages=stages,
        examples=args.examples,
        shrink=not args.no_shrink,
        convention=args.convention,
        fail_fast=not args.no_fail_fast,
    )
    planned = suite.plan()
    lines = StageLines(suite.backend.name, quiet=args.quiet)
    with progress_bar(quiet=args.quiet) as progress:
        task = progress.add_task(f"pespec check {suite.backend.name}", total=len(planned))

        def step(check: Any, result: Any) -> None:
            if result is None:
                lines.start(check.id)
                progress.update(task, description=f"{suite.backend.name}: {check.id}")
            else:
                lines.done(result.status == "failed")
                progress.advance(task)

        try:
            return suite.run(step)
        finally:
            lines.finish()


def _from_file(args: argparse.Namespace) -> Any:
    from pespec.sinusoidal.checkfile import check_file

    if args.profile is not None or args.stages is not None or args.examples is not None:
        raise ValueError("--profile, --stages and --examples do not apply to --from-file")
    from pespec.sinusoidal.relative import check_table_file, parse_range

    declared = None if args.positions is None else parse_range(args.positions)
    if declared is not None:  # a relative table at its declared rows (SPEC §10.10)
        if args.d_model is not None:
            raise ValueError("--d-model does not apply to a table of declared rows")
        return check_table_file(
            args.from_file,
            declared,
            convention=args.convention,
            base=10000.0 if args.base is None else args.base,
            level=args.level,
            key=args.key,
        )
    if args.convention is not None:
        raise ValueError(
            "--convention applies to --from-file only with declared rows "
            "(--positions descending:P, two-sided:P or FIRST..LAST); else canonical only"
        )
    return check_file(
        args.from_file,
        args.d_model,
        positions=args.positions,
        base=10000.0 if args.base is None else args.base,
        level=args.level,
        key=args.key,
    )


def _timeout(args: argparse.Namespace) -> float:
    from pespec.conformance.timeouts import DEFAULT_TIMEOUT

    return DEFAULT_TIMEOUT if args.timeout is None else float(args.timeout)


def hypothesis_storage_outside_cwd(*, child_only: bool = False) -> None:
    """Point Hypothesis's storage (its cache of constants; the suite keeps no example
    database) at the user cache folder, so ``pespec check`` leaves no ``.hypothesis/`` in
    the current folder (the pytest plugin does the same). ``$HYPOTHESIS_STORAGE_DIRECTORY``,
    when set, is left to rule. ``child_only``: only the supervised child runs Hypothesis, so
    the folder goes to it through that variable (the child inherits the environment) and this
    process does not import Hypothesis (0.13 s)."""
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    folder = user_cache_dir() / "hypothesis"
    if child_only:
        os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = str(folder)
        return
    from hypothesis.configuration import set_hypothesis_home_dir

    set_hypothesis_home_dir(folder)


def user_cache_dir() -> Path:
    """pespec's folder in the user cache: ``$XDG_CACHE_HOME/pespec`` (else ``~/.cache``),
    ``~/Library/Caches/pespec`` on macOS, ``%LOCALAPPDATA%\\pespec\\Cache`` on Windows."""
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "pespec" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "pespec"
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "pespec"
