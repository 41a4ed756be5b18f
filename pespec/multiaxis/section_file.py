"""What the two multi-axis kinds' ``--from-file`` checks share (SPEC §9.5, R9.15).

A saved (n, width) output of a multi-axis kind (its :class:`FileKind`) is opened for its
check by :func:`open_section_file`: read for the level claimed
(:func:`~pespec.conformance.filecheck.read_claimed`), at the positions of its rows
(:func:`section_file_positions`: ``--positions FILE``, else the positions stored in the file,
else the preset's whole grid or ids in order; one rule for what a positions table may hold,
:func:`checked_positions`), with the contract items one array can show
(:func:`file_contract`: shape, dtype, finite; the items and stages that need calls are
skipped), judged at the level the engine's rule gives
(:func:`~pespec.conformance.filerules.claimed_file_level`). The kind adds its golden and
reference checks and its diagnosis; :meth:`SectionFile.report` writes the report.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.contract import first_non_finite
from pespec.conformance.filecheck import read_claimed, started_now
from pespec.conformance.filepositions import file_positions, file_report, read_positions_table
from pespec.conformance.filerules import claimed_file_level
from pespec.conformance.report import CheckResult, Report
from pespec.conformance.savedfile import SavedOutput
from pespec.numerics.formats import DTYPES, dtype_name

__all__ = [
    "FileKind",
    "SectionFile",
    "checked_positions",
    "file_contract",
    "open_section_file",
    "read_positions",
    "section_file_positions",
]


def file_contract(
    output: NDArray[Any],
    out_dtype: str | None,
    *,
    section: str,
    width: str,
    needs_calls: Sequence[str],
) -> list[CheckResult]:
    """The contract items of a saved ``output`` (n, ``width``) whose dtype is ``out_dtype``
    (None: not a pespec dtype): shape (a misfit is a usage error before this), dtype, and,
    for a known dtype, finite (the first non-finite value named); then ``item:*`` skipped
    for each of ``needs_calls`` (``deterministic`` is a contract item; the others are
    stages). ``section``: the SPEC section the results cite."""

    def result(check_id: str, title: str, status: str, message: str) -> CheckResult:
        stage = check_id.partition(":")[0]
        stage = "contract" if stage == "deterministic" else stage
        return CheckResult(check_id, stage, title, section, status, message)

    checks = [result("contract:shape", "shape", "passed", f"(n, {width}) = {output.shape}")]
    if out_dtype is None:
        message = f"dtype {output.dtype} is not one of {sorted(DTYPES)}"
        checks.append(result("contract:dtype", "dtype", "failed", message))
    else:
        checks.append(result("contract:dtype", "dtype", "passed", out_dtype))
        bad = first_non_finite(np.asarray(output))
        if bad is None:
            checks.append(result("contract:finite", "finite", "passed", "every value is finite"))
        else:
            value = float(output[bad])
            message = f"row {bad[0]}, column {bad[1]} is {value!r}"
            checks.append(result("contract:finite", "finite", "failed", message))
    for item in needs_calls:
        checks.append(result(f"{item}:*", item, "skipped", "needs calls; not from a file"))
    return checks


def checked_positions(array: Any, axes: int, what: str) -> NDArray[Any]:
    """``array`` as positions (n, ``axes``): a vector is one column when there is one axis;
    numeric and finite, else ValueError naming ``what``, its shape and dtype; int64 when every
    value is an integer of magnitude below 2^53 (as read from text), else float64."""
    p = np.asarray(array)
    if p.ndim == 1 and axes == 1:
        p = p[:, None]
    if p.ndim != 2 or p.shape[1] != axes or p.dtype.kind not in "iuf":
        raise ValueError(
            f"{what} must hold {axes} numeric columns (one per axis); it holds shape "
            f"{p.shape}, dtype {p.dtype}"
        )
    if p.dtype.kind == "f" and not np.all(np.isfinite(p)):
        raise ValueError(f"{what} must be finite; it holds a NaN or an infinity")
    if p.dtype.kind in "iu" or (np.all(p == np.round(p)) and np.all(np.abs(p) < 2.0**53)):
        return p.astype(np.int64)
    return p.astype(np.float64)


def read_positions(path: str | Path, axes: int) -> NDArray[Any]:
    """Positions (n, ``axes``) from a ``.npy`` or ``.csv`` of ``axes`` columns (a header line
    is skipped; :func:`checked_positions`); ValueError naming the file otherwise."""
    file = Path(path)
    return checked_positions(read_positions_table(file), axes, f"--positions {str(file)!r}")


def section_file_positions(
    name: str,
    output: NDArray[Any],
    given: tuple[str | None, Any],
    preset: Any,
    columns: tuple[int, str],
    whole: str,
) -> tuple[NDArray[Any], str]:
    """The positions of the rows of file ``name``'s ``output`` and how they were given
    (:func:`~pespec.conformance.filepositions.file_positions`): ``given`` (the ``--positions``
    option, the positions stored in the file, each None when absent), else ``preset``'s
    positions, named ``whole`` (formatted with ``n``, their count, and ``name``, the
    preset's); ``columns``: (the output's width, what it is). ValueError on a misfit."""
    axes = preset.config.axes

    def every() -> tuple[NDArray[Any], str]:
        positions = preset.positions()
        return positions, whole.format(n=positions.shape[0], name=preset.name)

    return file_positions(
        name,
        output,
        columns,
        given,
        lambda option: read_positions(option, axes),
        lambda stored: checked_positions(stored, axes, f"the positions stored in {name!r}"),
        every,
    )


@dataclass(frozen=True)
class FileKind:
    """What a section kind's file check needs of the kind: its ``family`` name and SPEC
    ``section``; the output's ``width`` (its name, the configuration's attribute holding it);
    its preset's positions in words (``whole``, see :func:`section_file_positions`); what a
    file cannot show (``needs_calls``, see :func:`file_contract`); the kind's ``resolve``
    (``--config`` to a preset) and level functions (``parse_level``, ``text_dtype``: the
    dtype a text file is read in for a claim, ``default_for``: an output dtype's level)."""

    family: str
    section: str
    width: tuple[str, str]
    whole: str
    needs_calls: tuple[str, ...]
    resolve: Callable[[Any], Any]
    parse_level: Callable[[str], Any]
    text_dtype: Callable[[Any], str]
    default_for: Callable[[str], Any]


@dataclass
class SectionFile:
    """A kind's saved output opened for its check: the ``preset``, the file (``name``,
    ``saved``), its ``output`` (n, width) at ``positions`` (n, k) given as ``given`` says, its
    dtype name (None: not a pespec dtype), the ``level`` judged (None: unknown) and the
    ``checks`` so far (the contract items)."""

    kind: FileKind
    preset: Any
    name: str
    saved: SavedOutput
    output: NDArray[Any]
    positions: NDArray[Any]
    given: str
    out_dtype: str | None
    level: Any
    started: tuple[str, float]
    checks: list[CheckResult] = field(default_factory=list)

    def report(self, fields: dict[str, Any]) -> Report:
        """The report of the file's :attr:`checks` with the kind's report ``fields``."""
        label, attribute = self.kind.width
        width = (label, int(getattr(self.preset.config, attribute)))
        rows = (int(self.positions.shape[0]), self.given)
        report = file_report(self.saved, self.name, rows, width, self.checks, self.started, fields)
        report.family = self.kind.family
        return report


def open_section_file(
    kind: FileKind,
    path: str | Path,
    config: Any,
    *,
    positions: str | None,
    level: Any,
    key: str | None,
    cut: Callable[[str, NDArray[Any], SavedOutput, Any], NDArray[Any]] | None = None,
) -> SectionFile:
    """The saved output ``path`` of ``kind`` for ``config`` opened for its check (see the
    module docstring): ``positions`` (``--positions``), ``level`` (a claim: a name or a
    level), ``key`` (an ``.npz``'s array); ``cut(name, output, saved, preset)``: the rows of
    the output that hold positions (default: all). ValueError for a file or a claim that does
    not fit (a usage error)."""
    started = started_now()
    preset = kind.resolve(config)
    claim = kind.parse_level(level) if isinstance(level, str) else level
    name, text, saved = read_claimed(path, key=key, claim=claim, text_dtype=kind.text_dtype)
    output = saved.array if cut is None else cut(name, saved.array, saved, preset)
    label, attribute = kind.width
    columns = (int(getattr(preset.config, attribute)), f"{label} of {preset.config.name}")
    given = (positions, saved.positions)
    rows, how = section_file_positions(name, output, given, preset, columns, kind.whole)
    out_dtype = dtype_name(output.dtype)
    judged = claimed_file_level(claim, out_dtype, text=text, default_for=kind.default_for)
    checks = file_contract(
        output, out_dtype, section=kind.section, width=label, needs_calls=kind.needs_calls
    )
    return SectionFile(
        kind, preset, name, saved, output, rows, how, out_dtype, judged, started, checks
    )
