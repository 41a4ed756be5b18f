"""Relative sinusoids as declared position ranges of the sinusoidal family (SPEC §10.10).

A relative table is the §1 table at a declared set of integer positions, in a declared
order: Transformer-XL/XLNet's ``descending`` P−1 … 0, ESPnet/NeMo's ``two-sided``
P−1 … −(P−1) (2P−1 rows), or the plain ``ascending`` 0 … P−1. A table answers only those
rows, so it is judged by a table-only check (no call at a position the suite chooses): the
contract items of one table (shape, dtype, finite; deterministic when it was computed twice),
every element of every declared row against the exact reference under the declared
convention within the SPEC §4 bound (the same error model as the suite), and a diagnosis that
names an ascending/descending/two-sided order or an input scale folded into the table.

``xscale`` is a statement, never applied: ESPnet's ``RelPositionalEncoding`` multiplies the
*input* x by √d and adds nothing of it to the table; a table that holds √d·PE is
NON-CONFORMANT ("xscale folded into the table").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.compare import SECTIONS, PlannedCheck, Worst, comparison_result
from pespec.conformance.filecheck import saved_file_report, started_now
from pespec.conformance.filerules import claimed_file_level
from pespec.conformance.report import CheckResult, Report
from pespec.numerics.formats import dtype_name
from pespec.sinusoidal.compare import compare_blocks
from pespec.sinusoidal.properties.base import LEVELS, Level, parse_level
from pespec.sinusoidal.reference.conventions import CANONICAL, MARIAN, Convention
from pespec.sinusoidal.reference.validation import check_base, check_d_model
from pespec.sinusoidal.report import level_fields, report_fields

__all__ = [
    "POSITION_RANGES",
    "XSCALES",
    "RelativeTable",
    "check_relative",
    "check_table",
    "check_table_file",
    "declared_positions",
    "parse_range",
]

POSITION_RANGES = ("ascending", "descending", "two-sided")
XSCALES = ("none", "sqrt(d)")
"""The input scalings a model may apply outside the table (stated, never applied)."""
MAX_LENGTH = 1 << 20


def declared_positions(position_range: str, length: int | None = None) -> NDArray[np.int64]:
    """The rows' positions: ascending 0 … P−1, descending P−1 … 0, two-sided P−1 … −(P−1)
    (P = ``length``), or ``"FIRST..LAST"``: the integers from FIRST to LAST inclusive, in
    steps of ±1 (XLNet's ``klen … −qlen+1``: ``"P..-(P-1)"`` written out)."""
    if ".." in position_range:
        return _explicit(position_range)
    if position_range not in POSITION_RANGES:
        allowed = ", ".join(POSITION_RANGES)
        raise ValueError(
            f"position_range must be one of {allowed} or FIRST..LAST; got {position_range!r}"
        )
    if isinstance(length, bool) or not isinstance(length, int) or not 1 <= length <= MAX_LENGTH:
        raise ValueError(
            f"length must be an int in 1..{MAX_LENGTH} for position_range {position_range!r}; "
            f"got {length!r}"
        )
    if position_range == "ascending":
        return np.arange(length, dtype=np.int64)
    if position_range == "descending":
        return np.arange(length - 1, -1, -1, dtype=np.int64)
    return np.arange(length - 1, -length, -1, dtype=np.int64)


def _explicit(text: str) -> NDArray[np.int64]:
    first_text, _, last_text = text.partition("..")
    try:
        first, last = int(first_text), int(last_text)
    except ValueError:
        raise ValueError(f"position_range FIRST..LAST needs two integers; got {text!r}") from None
    if abs(last - first) >= 2 * MAX_LENGTH:
        raise ValueError(f"position_range {text!r} holds more than {2 * MAX_LENGTH} rows")
    step = 1 if last >= first else -1
    return np.arange(first, last + step, step, dtype=np.int64)


def _xscale_value(xscale: str, d_model: int) -> float:
    return math.sqrt(d_model) if xscale == "sqrt(d)" else 1.0


@dataclass(frozen=True)
class RelativeTable:
    """What a relative table declares: its ``position_range`` and ``length`` P, ``d_model``,
    ``base``, the ``convention`` of each row (default ``marian``: [all sin | all cos]) and
    ``xscale``, the input scaling the model applies outside the table (stated only)."""

    position_range: str
    length: int | None
    d_model: int
    base: float = 10000.0
    convention: Convention = MARIAN
    xscale: str = "none"
    source: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        declared_positions(self.position_range, self.length)
        object.__setattr__(self, "d_model", check_d_model(self.d_model))
        object.__setattr__(self, "base", check_base(self.base))
        if not isinstance(self.convention, Convention):
            raise TypeError(f"convention must be a Convention; got {self.convention!r}")
        if self.xscale not in XSCALES:
            raise ValueError(f"xscale must be one of {', '.join(XSCALES)}; got {self.xscale!r}")

    @property
    def positions(self) -> NDArray[np.int64]:
        """The declared rows' positions, shape (rows,)."""
        return declared_positions(self.position_range, self.length)

    def to_dict(self) -> dict[str, Any]:
        """The report's ``convention`` block: the row convention plus the declared range."""
        return {
            **self.convention.to_dict(),
            "declared": True,
            "position_range": self.position_range,
            "length": self.length,
            "rows": int(self.positions.size),
            "first": int(self.positions[0]),
            "last": int(self.positions[-1]),
            "xscale": self.xscale,
            "xscale_note": "applied by the model to its input x, not part of the table",
        }


def _result(check_id: str, stage: str, status: str, message: str) -> CheckResult:
    return CheckResult(
        check_id, stage, check_id.partition(":")[2], SECTIONS[stage], status, message
    )


def _contract(table: NDArray[Any], decl: RelativeTable, again: Any) -> list[CheckResult]:
    """Shape, dtype, finite, deterministic (when computed twice); an item after a failed one
    is not evaluated."""
    rows = int(decl.positions.size)
    tests = [
        (
            "shape",
            table.ndim == 2 and table.shape == (rows, decl.d_model),
            f"shape {table.shape}, not ({rows}, {decl.d_model})",
        ),
        ("dtype", dtype_name(table.dtype) is not None, f"dtype {table.dtype} is not a level's"),
        (
            "finite",
            bool(np.all(np.isfinite(np.asarray(table, dtype=np.float64)))),
            "a non-finite value",
        ),
    ]
    if again is not None:
        same = isinstance(again, np.ndarray) and again.tobytes() == table.tobytes()
        tests.append(("deterministic", same, "two computations of the table differ"))
    checks, failed = [], None
    for item, ok, why in tests:
        if failed is not None:
            checks.append(
                _result(
                    f"contract:{item}",
                    "contract",
                    "failed",
                    f"not evaluated: contract:{failed} failed",
                )
            )
            continue
        checks.append(
            _result(
                f"contract:{item}", "contract", "passed" if ok else "failed", "ok" if ok else why
            )
        )
        failed = None if ok else item
    return checks


def _compare(table: NDArray[Any], decl: RelativeTable, level: Level, **kw: Any) -> Worst:
    positions = kw.pop("positions", decl.positions)
    convention = kw.pop("convention", decl.convention)
    return compare_blocks(
        np.asarray(table), positions, decl.d_model, decl.base, level, convention=convention
    )


def _alternatives(decl: RelativeTable) -> list[tuple[str, dict[str, Any]]]:
    """(what the table may follow instead, the positions or convention that is)."""
    p = decl.positions
    first, last = int(p[0]), int(p[-1])
    declared = f"where the declared {_declared_text(decl)}"
    found: list[tuple[str, dict[str, Any]]] = [
        (f"the positions in the opposite order, {last} … {first}, {declared}",
         {"positions": p[::-1]}),
        (f"positions shifted by +1, {first + 1} … {last + 1}, {declared}", {"positions": p + 1}),
        (f"positions shifted by −1, {first - 1} … {last - 1}, {declared}", {"positions": p - 1}),
    ]  # fmt: skip
    for layout in ("interleaved", "sin_cos_halves", "cos_sin_halves"):
        if layout != decl.convention.layout:
            conv = Convention(
                layout=layout,  # type: ignore[arg-type]
                frequency_shift=decl.convention.frequency_shift,
                argument_scale=decl.convention.argument_scale,
                name=layout,
            )
            what = f"layout {layout} where {decl.convention.layout} is declared"
            found.append((what, {"convention": conv}))
    return found


def _declared_text(decl: RelativeTable) -> str:
    p = decl.positions
    kind = "" if ".." in decl.position_range else f"{decl.position_range} "
    return f"{kind}positions {int(p[0])} … {int(p[-1])}"


def diagnose_table(table: NDArray[Any], decl: RelativeTable, level: Level) -> str:
    """The one-axis change that reproduces the table within the bound, or why none does."""
    scale = _xscale_value("sqrt(d)", decl.d_model)
    scaled = np.asarray(table, dtype=np.float64) / scale
    if _compare(scaled, decl, level).violations == 0:
        return (
            f"xscale folded into the table: it holds √d·PE (√{decl.d_model} = {scale:.6g}); "
            "the model's input scaling belongs to x, not to the table"
        )
    for what, changes in _alternatives(decl):
        if _compare(table, decl, level, **changes).violations == 0:
            return f"the table follows {what}"
    measured = measured_positions(table, decl)
    if measured is not None and _compare(table, decl, level, positions=measured).violations == 0:
        return (
            f"the rows hold positions {int(measured[0])} … {int(measured[-1])} (measured from "
            f"the lowest frequency), not the declared {_declared_text(decl)}"
        )
    return "no one-axis change (position order, layout, xscale folded in) reproduces the table"


def measured_positions(table: NDArray[Any], decl: RelativeTable) -> NDArray[np.int64] | None:
    """Each row's position read from its lowest-frequency pair: p = atan2(sin, cos)/ω_min,
    rounded (unique while |p|·ω_min < π); None when the table is not (rows, d_model)."""
    from pespec.sinusoidal.reference.encoding import frequencies

    values = np.asarray(table, dtype=np.float64)
    if values.shape != (decl.positions.size, decl.d_model):
        return None
    last = decl.d_model // 2 - 1
    sin_col = int(decl.convention.sin_columns(decl.d_model)[last])
    cos_col = int(decl.convention.cos_columns(decl.d_model)[last])
    omega = float(frequencies(decl.d_model, decl.base, convention=decl.convention)[last])
    omega *= float(decl.convention.argument_scale)
    angle = np.arctan2(values[:, sin_col], values[:, cos_col])
    measured: NDArray[np.int64] = np.rint(angle / omega).astype(np.int64)
    return measured - int(decl.convention.position_offset)


def check_table(
    table: Any,
    decl: RelativeTable,
    *,
    level: str | Level | None = None,
    again: Any = None,
    name: str = "relative-table",
) -> Report:
    """Judge ``table`` (rows, d_model), the library's relative table, at the declared rows.

    ``again``: the same table computed a second time (the deterministic item), or None.
    ``level``: default the default level of the table's dtype; a claim follows the from-file
    rule (a float64 table may claim any level). Returns a sinusoidal :class:`Report`.
    """
    started = started_now()
    array = np.asarray(table)
    claim = parse_level(level) if isinstance(level, str) else level
    file_dtype = dtype_name(array.dtype)
    chosen = claimed_file_level(claim, file_dtype, text=False, default_for=LEVELS.__getitem__)
    checks = _contract(array, decl, again)
    rows = f"{decl.positions.size} rows ({_declared_text(decl)})"
    planned = PlannedCheck(
        "reference:rows",
        "reference",
        f"the {rows} against the exact reference",
        SECTIONS["reference"],
    )
    sentence = None
    if chosen is not None and all(c.status == "passed" for c in checks[:3]):
        result = comparison_result(planned, _compare(array, decl, chosen), chosen)
        checks.append(result)
        if result.status == "failed":
            sentence = diagnose_table(array, decl, chosen)
    else:
        checks.append(planned.result("failed", "not evaluated: the table failed the contract"))
    checks.append(
        _result(
            "property:*",
            "property",
            "skipped",
            "a relative table answers only its declared rows; properties need calls at "
            "positions the suite chooses",
        )
    )
    fields = {**level_fields(chosen), **report_fields(decl.to_dict())}
    report = saved_file_report(name, checks, started, fields, device="table")
    rows_text = f", rows {_declared_text(decl)}, xscale {decl.xscale} (not in the table)"
    report.judged = (report.judged or "") + rows_text
    report.judged_markdown = (report.judged_markdown or "") + rows_text
    if sentence is not None:
        report.diagnosis_sentence = sentence
        report.diagnosis = {"relative_table": sentence}
    return report


def check_relative(
    build: Callable[[], Any],
    decl: RelativeTable,
    *,
    level: str | Level | None = None,
    name: str = "relative-table",
) -> Report:
    """Compute the table twice with ``build()`` (a library call returning (rows, d_model))
    and judge it (:func:`check_table`); a build that raises gives a failed contract."""
    try:
        first = np.asarray(build())
        second = np.asarray(build())
    except Exception as exc:  # a misbehaving library fails, it never crashes the check
        first = np.zeros((0, 0))
        second = None
        report = check_table(first, decl, level=level or "float32", again=second, name=name)
        report.checks[0].message = f"building the table raised {type(exc).__name__}: {exc}"
        return report
    return check_table(first, decl, level=level, again=second, name=name)


def parse_range(text: str) -> tuple[str, int | None] | None:
    """``--positions`` text naming a declared range: ``descending:P``, ``two-sided:P``,
    ``ascending:P`` or ``FIRST..LAST``, as (position_range, length); None for other text."""
    value = text.strip()
    if ".." in value and ":" not in value:
        declared_positions(value)  # ValueError for a bad FIRST..LAST
        return value, None
    kind, colon, length = value.partition(":")
    if not colon or kind not in POSITION_RANGES:
        return None
    try:
        rows = int(length)
    except ValueError:
        raise ValueError(f"--positions {kind}:P needs an integer P; got {text!r}") from None
    declared_positions(kind, rows)
    return kind, rows


def check_table_file(
    path: str,
    position_range: tuple[str, int | None],
    *,
    convention: Any = None,
    base: float = 10000.0,
    level: str | None = None,
    key: str | None = None,
) -> Report:
    """``pespec check --from-file TABLE --positions descending:P [--convention C]``: a saved
    relative table (rows, d_model) judged at the declared rows (:func:`check_table`)."""
    from pespec.conformance.savedfile import read_output
    from pespec.sinusoidal.declared import resolve_convention

    text = not path.lower().endswith((".npy", ".npz"))
    narrow = None if level is None or not text else parse_level(level).output_dtype
    saved = read_output(path, key=key, text_dtype=narrow)
    if saved.array.ndim != 2:
        raise ValueError(f"from_file {path!r} must hold a 2-D table; it holds {saved.array.shape}")
    conv = CANONICAL if convention is None else resolve_convention(convention, "--convention")
    kind, length = position_range
    decl = RelativeTable(kind, length, saved.array.shape[1], base, conv)
    return check_table(saved.array, decl, level=level, name=path)
