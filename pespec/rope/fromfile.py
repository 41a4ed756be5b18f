"""``pespec rope check --from-file``: a rotary kernel's saved output checked (SPEC R8.16).

For kernels that Python cannot call (C, CUDA, Rust): the kernel rotates the stated inputs
(:func:`file_inputs`: the positions of the configuration's golden set, §8.6, and x from the
integer formula :data:`pespec.rope.golden.X_FORMULA`; ``pespec rope inputs`` writes them),
saves the (n, head_dim) output, and :func:`check_file` compares every value with the exact
rotation at the level claimed. The file is read by the absolute family's readers
(:func:`pespec.conformance.savedfile.read_output`: .npy, .npz, .csv; never pickle). A file
that does not fit the configuration (not 2-D, another column count, positions other than one
per row) raises ValueError (a usage error, exit 2); a wrong dtype or a non-finite value is a
failed contract check. There is no diagnosis: it needs calls at inputs it chooses.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.contract import first_non_finite
from pespec.conformance.filecheck import read_claimed, saved_file_report, started_now
from pespec.conformance.filepositions import one_row_each
from pespec.conformance.filerules import claimed_file_level, file_record, truncation_note
from pespec.conformance.report import CheckResult, Report
from pespec.numerics.formats import DTYPES, dtype_name
from pespec.numerics.problems import OutputProblem
from pespec.numerics.validation import check_positions
from pespec.rope import properties as props
from pespec.rope.backends import resolve_config
from pespec.rope.config import RopeConfig
from pespec.rope.errormodel import (
    RopeLevel,
    parse_rope_level,
    rope_level_for_dtype,
    tolerance,
)
from pespec.rope.golden import fixture_for, positions_for_length
from pespec.rope.inputs import rotary_x
from pespec.rope.report import report_fields

__all__ = ["NO_DIAGNOSIS", "check_file", "file_inputs", "write_inputs"]

CHUNK_ROWS: Final = 8192
"""Rows compared with the exact reference at a time (bounded memory for long files)."""

NO_DIAGNOSIS: Final = (
    "none from a file: the diagnosis needs calls at inputs it chooses (basis vectors); wrap "
    "the kernel as a backend (ctypes, pybind11) and run pespec rope check on it for one"
)
"""The diagnosis sentence of a failing file (SPEC R8.16)."""


def file_inputs(config: Any) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(positions (n,), x (n, head_dim)) a rotary file must hold the output for.

    The positions of the §8.6 golden set of the preset whose configuration this is; for
    another configuration the same list with L = ``max_position_embeddings``, else
    ``original_max_position_embeddings``, else 4096. x row r is
    :func:`~pespec.rope.inputs.rotary_x` (exact in every format).
    """
    rope = resolve_config(config)
    fixture = fixture_for(rope)
    if fixture is not None:
        positions = np.asarray(fixture.positions, dtype=np.float64)
    else:
        length = rope.max_position_embeddings or rope.original_max_position_embeddings or 4096
        positions = np.array(positions_for_length(length), dtype=np.float64)
    return positions, rotary_x(positions.shape[0], rope.head_dim)


def write_inputs(config: Any, path: str | Path) -> None:
    """Write :func:`file_inputs` to ``path``: ``.csv`` or ``.txt`` (header ``position,x0,…``,
    one row per position, shortest round-trip decimals; ``"-"``: standard output) or ``.npz``
    (arrays ``positions`` and ``x``); atomic."""
    import io

    from pespec._atomic import write_atomic
    from pespec.conformance.csvexport import write_csv

    positions, x = file_inputs(config)
    suffix = Path(path).suffix.lower()
    if str(path) == "-" or suffix in (".csv", ".txt"):
        header = ["position"] + [f"x{k}" for k in range(x.shape[1])]
        rows = zip(positions.tolist(), x.tolist(), strict=True)
        write_csv(path, header, ([_short(v) for v in [p, *row]] for p, row in rows))
    elif suffix == ".npz":
        buffer = io.BytesIO()
        np.savez(buffer, positions=positions, x=x)
        write_atomic(path, buffer.getvalue())
    else:
        raise ValueError(f"-o must end in .csv, .txt or .npz; got {str(path)!r}")


def _short(value: float) -> str:
    """Shortest round-trip decimal; integers without a point (C's strtod reads both)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def check_file(
    path: str | Path, config: Any, *, level: str | RopeLevel | None = None, key: str | None = None
) -> Report:
    """Check the rotary output saved in ``path`` for ``config`` (a RopeConfig, preset name or
    dict); the report has ``.conformant``, ``.summary()`` and ``source_file`` (path, SHA-256).

    Row r holds x[r] of :data:`~pespec.rope.golden.X_FORMULA` rotated at its position: the
    positions stored in the file (a CSV ``position`` column, an .npz ``positions`` array), else
    :func:`file_inputs`'s. ``level`` follows the rule both routes share
    (:func:`~pespec.conformance.filerules.claimed_file_level`): the file dtype's default (text:
    float64); a float64 or text file may claim any level, another dtype only a tighter one.
    Raises ValueError for a file or level that does not fit (see the module docstring).
    """
    started = started_now()
    rope = resolve_config(config)
    claim = parse_rope_level(level) if isinstance(level, str) else level
    name, text, saved = read_claimed(path, key=key, claim=claim, text_dtype=_rotation)
    output = saved.array
    positions, given = _file_positions(name, output, saved.positions, rope)
    out_dtype = dtype_name(output.dtype)
    chosen = claimed_file_level(claim, out_dtype, text=text, default_for=rope_level_for_dtype)
    checks = _contract(output, positions, out_dtype)
    if chosen is None or out_dtype is None:
        checks.append(
            _check(
                "reference:file",
                "reference",
                "comparison",
                "failed",
                "not evaluated: the file's dtype is not one pespec knows",
            )
        )
    else:
        checks += _golden_rows(output, positions, rope, chosen, out_dtype)
        checks.append(_reference(output, positions, rope, chosen, out_dtype))
        _text_notes(
            checks,
            saved.decimals if text else None,
            claim is None and text,
            lambda slack: (
                _reference(output, positions, rope, chosen, out_dtype, slack).status == "passed"
            ),
        )
    checks.append(
        _check(
            "property:*",
            "property",
            "properties",
            "skipped",
            "properties need calls at inputs the suite chooses; not from a file",
        )
    )
    fields = report_fields(
        config=rope.to_dict(), level_stages=None if chosen is None else chosen.stages()
    )
    fields["output_dtype"] = out_dtype
    fields["level"] = None if chosen is None else chosen.name
    fields["working_dtype"] = None if chosen is None else chosen.phase
    report = saved_file_report(name, checks, started, fields)
    inputs = file_inputs(rope)[0].shape[0]
    report.source_file = file_record(
        name,
        saved,
        positions,
        given,
        ("head_dim", rope.head_dim),
        (inputs, f"the configuration's {inputs} inputs, pespec rope inputs"),
    )
    if not report.conformant:
        report.diagnosis_sentence = NO_DIAGNOSIS
    return report


def _rotation(claim: RopeLevel) -> str:
    """The dtype a text file is read in for a claimed level: its rotation's."""
    return claim.rotation


def _file_positions(
    name: str, output: NDArray[Any], stored: Any, rope: RopeConfig
) -> tuple[NDArray[np.float64], str]:
    """The positions of the file's rows and how they were given; ValueError when the file's
    shape does not fit ``rope`` (the messages name the file and what is wrong)."""
    if output.ndim != 2:
        raise ValueError(
            f"from_file {name!r} must hold a 2-D array (one row per position, "
            f"head_dim columns); it holds shape {output.shape}"
        )
    if output.shape[1] != rope.head_dim:
        hint = (
            " (is the first column the positions? start the header line with 'position')"
            if output.shape[1] == rope.head_dim + 1
            else ""
        )
        raise ValueError(
            f"from_file {name!r} has {output.shape[1]} columns but the "
            f"configuration's head_dim is {rope.head_dim}{hint}"
        )
    if stored is not None:
        positions = np.asarray(check_positions(np.ravel(stored)), dtype=np.float64)
        given = "stored in the file"
    else:
        positions, _ = file_inputs(rope)
        given = f"the {positions.shape[0]} inputs of the configuration (pespec rope inputs)"
    return one_row_each(name, output, positions, given)


def _text_notes(
    checks: list[CheckResult],
    decimals: int | None,
    read_as_float64: bool,
    passes_with_slack: Callable[[float], bool],
) -> None:
    """Append to each failed comparison of a text file which dtype it was read as (when no
    level was claimed) and the truncation note (:func:`truncation_note`)."""
    failed = [c for c in checks if c.status == "failed" and c.stage in ("golden", "reference")]
    note = truncation_note(decimals, passes_with_slack) if failed else ""
    for result in failed:
        if read_as_float64:
            result.message += (
                "; the text file was read as float64 (it records no dtype): "
                "give --level float32, float16 or bfloat16 for an output "
                "computed in that dtype"
            )
        result.message += note


def _check(
    check_id: str, stage: str, title: str, status: str, message: str, **kw: Any
) -> CheckResult:
    section = "§8.6" if stage == "golden" else "§8.8"
    return CheckResult(check_id, stage, title, section, status, message, **kw)


def _contract(
    output: NDArray[Any], positions: NDArray[np.float64], out_dtype: str | None
) -> list[CheckResult]:
    """shape (passed: a misfit is a usage error), dtype, finite; the items needing calls skipped."""
    checks = [
        _check("contract:shape", "contract", "shape", "passed", f"(n, head_dim) = {output.shape}")
    ]
    if out_dtype is None:
        wrong = OutputProblem("dtype", f"one of {sorted(DTYPES)}", str(output.dtype))
        checks.append(_check("contract:dtype", "contract", "dtype", "failed", wrong.message))
        checks.append(
            _check(
                "contract:finite",
                "contract",
                "finite",
                "failed",
                "not evaluated: contract:dtype failed",
            )
        )
    else:
        checks.append(_check("contract:dtype", "contract", "dtype", "passed", out_dtype))
        bad = _first_non_finite(output)
        message = (
            "every value is finite"
            if bad is None
            else OutputProblem(
                "finite",
                "finite",
                f"{float(output[bad])!r} at position "
                f"{positions[bad[0]].item()!r} (row {bad[0] + 1}), column {bad[1]}",
            ).message
        )
        checks.append(
            _check(
                "contract:finite",
                "contract",
                "finite",
                "passed" if bad is None else "failed",
                message,
            )
        )
    for item in ("deterministic", "input-unchanged"):
        checks.append(
            _check(f"contract:{item}", "contract", item, "skipped", "needs calls; not from a file")
        )
    return checks


def _first_non_finite(output: NDArray[Any]) -> tuple[int, int] | None:
    for r0 in range(0, output.shape[0], CHUNK_ROWS):
        bad = first_non_finite(np.asarray(output[r0 : r0 + CHUNK_ROWS]))
        if bad is not None:
            return (r0 + int(bad[0]), int(bad[1]))
    return None


def _result(check_id: str, stage: str, title: str, outcome: props.Outcome) -> CheckResult:
    fields = outcome.result_fields()
    return _check(check_id, stage, title, fields.pop("status"), fields.pop("message"), **fields)


def _golden_rows(
    output: NDArray[Any],
    positions: NDArray[np.float64],
    rope: RopeConfig,
    level: RopeLevel,
    out_dtype: str,
) -> list[CheckResult]:
    """The preset's certified fixture (§8.6) on the rows that hold its inputs (row r at
    its position r), when the configuration is a preset's; none otherwise."""
    fixture = fixture_for(rope)
    if fixture is None:
        return []
    n = min(fixture.positions.shape[0], positions.shape[0])
    rows = np.nonzero(positions[:n] == fixture.positions[:n])[0]
    if rows.size == 0:
        return []
    p, x, exact = fixture.positions[rows], fixture.x[rows], fixture.y[rows]
    y = np.asarray(output[rows], dtype=np.float64)
    bound = tolerance(x, p, rope, level, out_dtype, 2.0**-53 * np.abs(exact))
    outcome = props.finish_outcome(props.fold_outcome(None, np.abs(y - exact), bound, p), "golden")
    return [
        _result(
            f"golden:{fixture.name}",
            "golden",
            f"the rotary fixture of {fixture.preset} ({rows.size} rows)",
            outcome,
        )
    ]


def _reference(
    output: NDArray[Any],
    positions: NDArray[np.float64],
    rope: RopeConfig,
    level: RopeLevel,
    out_dtype: str,
    slack: float = 0.0,
) -> CheckResult:
    """Every row against the exact float64 reference (its proved bound added, and ``slack``:
    0 except for a text file's truncation recheck), in chunks."""
    from pespec.rope.reference import rotate

    outcome: props.Outcome | None = None
    for r0 in range(0, positions.shape[0], CHUNK_ROWS):
        p = positions[r0 : r0 + CHUNK_ROWS]
        x = rotary_x(np.arange(r0, r0 + p.shape[0]), rope.head_dim)
        y = np.asarray(output[r0 : r0 + CHUNK_ROWS], dtype=np.float64)
        bound = tolerance(x, p, rope, level, out_dtype) + slack
        outcome = props.fold_outcome(outcome, np.abs(y - rotate(x, p, rope)), bound, p)
    outcome = outcome or props.Outcome(-1.0, 0.0, 0.0, None, None, 0)
    final = props.finish_outcome(outcome, "reference")
    return _result(
        "reference:file",
        "reference",
        f"all {positions.shape[0]} rows against the exact float64 reference",
        final,
    )
