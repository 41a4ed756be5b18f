"""``pespec golden regenerate|verify|export``: maintain and check the golden fixtures (SPEC §7).

Exit codes: 0 success, 1 a difference, a checksum mismatch or a wrong value was found.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from pespec._atomic import check_writable
from pespec.cli.terminal import console as make_console
from pespec.reference.golden import (
    FixtureError,
    fixture_directory,
    load_fixture_sets,
    parse_fixture,
    verify_checksums,
)
from pespec.reference.golden_catalog import CATALOG, FixtureSpec
from pespec.reference.golden_verify import verify_directory, verify_values
from pespec.reference.golden_write import export_fixture_sets, regenerate

ROPE_PREFIX = "rope-"
"""Rotary sets (SPEC §8.6, :mod:`pespec.rope.golden`) share the directory and MANIFEST."""

MAX_REPORTED = 20
"""Wrong values listed per file by ``verify`` (the count is always given)."""


def register(subparsers: Any) -> None:
    """Add the ``golden`` sub-command and its three actions."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "golden", help="regenerate, verify or export the golden fixtures"
    )
    actions = parser.add_subparsers(dest="golden_action", metavar="ACTION", required=True)
    source = argparse.ArgumentParser(add_help=False)
    source.add_argument(
        "--fixtures",
        type=Path,
        default=None,
        help="fixture directory (default: the shipped pespec/golden)",
    )
    regen = actions.add_parser(
        "regenerate", parents=[source], help="recompute every set with the oracle (atomic)"
    )
    regen.add_argument(
        "--check",
        action="store_true",
        help="regenerate in memory and compare byte for byte; exit 1 naming differing files",
    )
    regen.set_defaults(func=_regenerate)
    verify = actions.add_parser(
        "verify", parents=[source], help="check MANIFEST checksums, then recompute every value"
    )
    verify.set_defaults(func=_verify)
    export = actions.add_parser(
        "export", parents=[source], help="write the sets as .npz or .csv files into DIR"
    )
    export.add_argument("--format", choices=("npz", "csv"), required=True, dest="file_format")
    export.add_argument("directory", type=Path, metavar="DIR", help="output directory")
    export.set_defaults(func=_export)


@contextmanager
def _progress(description: str, total: int) -> Iterator[Callable[[FixtureSpec], None]]:
    console = make_console(stderr=True)
    with Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[current]}", markup=False),
        TimeElapsedColumn(),
        console=console,
        transient=not console.is_terminal,
    ) as progress:
        task = progress.add_task(description, total=total, current="")

        def advance(spec: FixtureSpec) -> None:
            progress.update(task, advance=1, current=spec.name)

        yield advance


def _regenerate(args: argparse.Namespace) -> int:
    from pespec.rope.golden import render_rope_files  # the rotary sets share the directory

    directory = args.fixtures or fixture_directory()
    start = time.perf_counter()
    if args.check:
        with _progress("regenerating in memory", len(CATALOG)) as advance:
            differing = verify_directory(directory, CATALOG, advance, render_rope_files())
        seconds = time.perf_counter() - start
        if differing:
            for name in differing:
                print(f"differs: {directory / name}")
            print(f"{len(differing)} file(s) differ from a fresh regeneration ({seconds:.1f} s)")
            return 1
        count = len(list(directory.glob("*.json")))
        print(f"all {count} fixture files and MANIFEST are byte-identical ({seconds:.1f} s)")
        return 0
    with _progress("regenerating", len(CATALOG)) as advance:
        files = regenerate(directory, CATALOG, advance, render_rope_files())
    size = sum(len(data) for data in files.values())
    print(
        f"wrote {len(files)} files ({size / 1e6:.2f} MB) to {directory} "
        f"in {time.perf_counter() - start:.1f} s"
    )
    return 0


def _verify(args: argparse.Namespace) -> int:
    directory = args.fixtures or fixture_directory()
    start = time.perf_counter()
    try:
        problems = verify_checksums(directory)
    except FixtureError as exc:
        print(f"error: {exc}")
        return 1
    for problem in problems:
        print(f"checksum: {problem}")
    paths = sorted(directory.glob("*.json"))
    wrong = checked = 0
    for path in paths:
        if path.name.startswith(ROPE_PREFIX):
            rope_checked, rope_wrong = _verify_rope(path, problems)
            checked, wrong = checked + rope_checked, wrong + rope_wrong
            continue
        try:
            fixture = parse_fixture(path.name, path.read_bytes())
        except FixtureError as exc:
            print(f"malformed: {exc}")
            problems.append(str(exc))
            continue
        mismatches = verify_values(fixture, path.name)
        checked += fixture.values.size
        wrong += len(mismatches)
        for mismatch in mismatches[:MAX_REPORTED]:
            print(f"wrong value: {mismatch}")
        if len(mismatches) > MAX_REPORTED:
            print(f"wrong value: {path.name}: ... {len(mismatches)} in all")
    seconds = time.perf_counter() - start
    if problems or wrong:
        print(
            f"FAILED: {len(problems)} file problem(s), {wrong} wrong value(s) of {checked} "
            f"checked in {len(paths)} files ({seconds:.1f} s)"
        )
        return 1
    print(
        f"OK: {len(paths)} files match MANIFEST; all {checked} values equal the certified "
        f"oracle values ({seconds:.1f} s)"
    )
    return 0


def _verify_rope(path: Path, problems: list[str]) -> tuple[int, int]:
    """Check one rotary set against the rotary oracle: (values checked, wrong values)."""
    from pespec.rope.golden import RopeFixtureError, parse_rope_fixture, verify_rope_fixture

    try:
        fixture = parse_rope_fixture(path.name, path.read_bytes())
    except RopeFixtureError as exc:
        print(f"malformed: {exc}")
        problems.append(str(exc))
        return 0, 0
    mismatches = verify_rope_fixture(fixture)
    for mismatch in mismatches[:MAX_REPORTED]:
        print(f"wrong value: {mismatch}")
    checked = (2 * fixture.omega.size + 1 + fixture.cos.size + fixture.sin.size
               + fixture.y.size)
    return checked, len(mismatches)


def _export(args: argparse.Namespace) -> int:
    from pespec.rope.golden import RopeFixtureError, export_rope_fixtures, load_rope_fixtures

    try:  # both loaders verify the folder against MANIFEST first
        fixtures = load_fixture_sets(args.fixtures)
        rope = load_rope_fixtures(args.fixtures)
    except (FixtureError, RopeFixtureError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    directory = Path(args.directory)
    if directory.exists() and not directory.is_dir():
        print(
            f"pespec golden export: error: DIR must be a folder; {str(directory)!r} is a file",
            file=sys.stderr,
        )
        return 2
    try:
        check_writable(directory / f"{CATALOG[0].name}.{args.file_format}", "DIR")
        written = export_fixture_sets(fixtures, directory, args.file_format)
        written += export_rope_fixtures(rope, directory, args.file_format)
    except (ValueError, OSError) as exc:
        reason = exc if isinstance(exc, ValueError) else (exc.strerror or exc)
        print(f"pespec golden export: error: {reason}", file=sys.stderr)
        return 2
    print(f"wrote {len(written)} {args.file_format} files to {args.directory}")
    return 0
