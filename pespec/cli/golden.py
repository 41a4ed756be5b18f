"""``pespec golden regenerate|verify|export``: maintain and check the golden fixtures (SPEC §7).

Exit codes: 0 success, 1 a difference, a checksum mismatch or a wrong value was found.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from pespec._atomic import check_writable
from pespec.cli.terminal import console as make_console
from pespec.conformance.fixtures import (
    FixtureError,
    FixtureFormat,
    differing_files,
    export_with,
    fixture_directory,
    fixture_formats,
    handler_for,
    render_fixture_files,
    replace_directory,
    verified_directory,
    verify_checksums,
    with_manifest,
)


def fixture_modules() -> tuple[str, ...]:
    """The families' fixture modules (:data:`pespec.families.FAMILIES`); importing one
    registers the handler of its ``format`` (:mod:`pespec.conformance.fixtures`). Every
    file is dispatched on its ``format`` field."""
    from pespec.families import FAMILIES

    return tuple(f.fixtures for f in FAMILIES.values() if f.fixtures is not None)


MAX_REPORTED = 20
"""Wrong values listed per file by ``verify`` (the count is always given)."""


def load_fixture_formats() -> tuple[FixtureFormat, ...]:
    """Every family's fixture handler (importing :func:`fixture_modules` registers them)."""
    for module in fixture_modules():
        importlib.import_module(module)
    return fixture_formats()


@contextmanager
def _progress(description: str, total: int) -> Iterator[Callable[[str], None]]:
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

        def advance(name: str) -> None:
            progress.update(task, advance=1, current=name)

        yield advance


def _regenerate(args: argparse.Namespace) -> int:
    directory = args.fixtures or fixture_directory()
    total = sum(handler.planned() for handler in load_fixture_formats())
    start = time.perf_counter()
    if args.check:
        with _progress("regenerating in memory", total) as advance:
            differing = differing_files(directory, with_manifest(render_fixture_files(advance)))
        seconds = time.perf_counter() - start
        if differing:
            for name in differing:
                print(f"differs: {directory / name}")
            print(f"{len(differing)} file(s) differ from a fresh regeneration ({seconds:.1f} s)")
            return 1
        count = len(list(directory.glob("*.json")))
        print(f"all {count} fixture files and MANIFEST are byte-identical ({seconds:.1f} s)")
        return 0
    with _progress("regenerating", total) as advance:
        files = replace_directory(directory, with_manifest(render_fixture_files(advance)))
    size = sum(len(data) for data in files.values())
    print(
        f"wrote {len(files)} files ({size / 1e6:.2f} MB) to {directory} "
        f"in {time.perf_counter() - start:.1f} s"
    )
    return 0


def _verify(args: argparse.Namespace) -> int:
    directory = args.fixtures or fixture_directory()
    load_fixture_formats()
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
        data = path.read_bytes()
        try:  # dispatch on the file's own "format" field, never on its name
            handler = handler_for(path.name, data)
            fixture = handler.parse(path.name, data)
        except FixtureError as exc:
            print(f"malformed: {exc}")
            problems.append(str(exc))
            continue
        result = handler.verify(fixture, path.name, MAX_REPORTED)
        checked, wrong = checked + result.checked, wrong + result.wrong
        for message in result.messages:
            print(f"wrong value: {message}")
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


def load_fixtures(directory: Path | None = None) -> list[tuple[FixtureFormat, Any]]:
    """(handler, fixture) of every file of ``directory`` (default: the shipped fixtures),
    sorted by file name, each read by the handler of its ``format``; MANIFEST verified first."""
    load_fixture_formats()
    target = verified_directory(directory)
    loaded = []
    for path in sorted(target.glob("*.json")):
        data = path.read_bytes()
        handler = handler_for(path.name, data)
        loaded.append((handler, handler.parse(path.name, data)))
    return loaded


def _export(args: argparse.Namespace) -> int:
    try:  # the folder is verified against MANIFEST before any file is read
        loaded = load_fixtures(args.fixtures)
    except FixtureError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    directory = Path(args.directory)
    if directory.exists() and not directory.is_dir():
        print(
            f"pespec golden export: error: DIR must be a folder; {str(directory)!r} is a file",
            file=sys.stderr,
        )
        return 2
    probe = loaded[0][1].name if loaded else "fixtures"
    try:
        check_writable(directory / f"{probe}.{args.file_format}", "DIR")
        written = []
        for handler, fixture in loaded:
            written += export_with([fixture], directory, args.file_format, handler.writers)
    except (ValueError, OSError) as exc:
        reason = exc if isinstance(exc, ValueError) else (exc.strerror or exc)
        print(f"pespec golden export: error: {reason}", file=sys.stderr)
        return 2
    print(f"wrote {len(written)} {args.file_format} files to {args.directory}")
    return 0
