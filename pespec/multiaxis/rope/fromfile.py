"""``pespec check --family multiaxis-rope --from-file``: a saved multi-axis rotary output
checked (SPEC R9.15), for kernels Python cannot call (C, CUDA, a device runtime).

The kernel rotates the stated inputs (:func:`file_inputs`; :func:`write_inputs` saves them):
row i holds x of :data:`pespec.multiaxis.rope.golden.X_FORMULA` at row i, rotated at position row i
(k columns): ``--positions FILE`` (``.npy`` or ``.csv`` of k columns), else an ``.npz``'s
``positions`` array, else the preset's whole ids in order. The file (.npy, .npz, .csv, read
by :func:`pespec.conformance.savedfile.read_output`, never pickle) holds the (n, head_dim)
output. A file that does not fit (not 2-D, another column count, another row count than the
positions, positions of another width) raises ValueError naming it (exit 2); a wrong dtype
or a non-finite value fails the contract. Checks: the preset's certified set on the rows
that hold its ids rows (``golden``), each section's columns of every row against the exact
reference (``reference:section-i``, in chunks); separability and relative need calls and
are skipped. A failing file is diagnosed as a backend is (:mod:`pespec.multiaxis.rope.diagnosis`:
the neighbours need only the output at the file's rows).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.compare import PlannedCheck
from pespec.conformance.report import CheckResult, Report
from pespec.multiaxis.rope.presets import resolve_config
from pespec.multiaxis.section_file import FileKind, open_section_file
from pespec.rope.errormodel import RopeLevel, parse_rope_level, rope_level_for_dtype
from pespec.rope.inputs import rotary_x

__all__ = ["CHUNK_ROWS", "check_file", "file_inputs", "write_inputs"]

CHUNK_ROWS: Final = 4096
"""Rows compared with the exact reference at a time (bounded memory)."""
FILE_KIND = FileKind(
    "multiaxis-rope",
    "§9.7",
    ("head_dim", "head_dim"),
    "the {n} ids of {name} (in order)",
    ("separability", "relative"),
    resolve_config,
    parse_rope_level,
    lambda claim: claim.rotation,
    rope_level_for_dtype,
)
"""The kind's file check (:func:`~pespec.multiaxis.section_file.open_section_file`)."""


def file_inputs(config: Any) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """(positions (n, k) int64, x (n, head_dim)) a file for ``config`` (a preset name, a
    JSON config or its path) holds the output of: the preset's ids, x by row index."""
    chosen = resolve_config(config)
    positions = np.asarray(chosen.positions(), dtype=np.int64)
    return positions, rotary_x(np.arange(positions.shape[0]), chosen.config.head_dim)


def write_inputs(config: Any, path: str | Path) -> None:
    """Write :func:`file_inputs` to ``path``: ``.npz`` (arrays ``positions`` and ``x``) or
    ``.csv`` (header ``t,h,w,x0,…``: the k coordinates then x, one row per position, shortest
    round-trip decimals); atomic."""
    from pespec._atomic import write_atomic
    from pespec.conformance.csvexport import write_csv

    positions, x = file_inputs(config)
    suffix = Path(path).suffix.lower()
    if suffix == ".npz":
        buffer = io.BytesIO()
        np.savez(buffer, positions=positions, x=x)
        write_atomic(path, buffer.getvalue())
    elif suffix == ".csv":
        names = [f"axis{a}" for a in range(positions.shape[1])]
        rows = zip(positions.tolist(), x.tolist(), strict=True)
        write_csv(path, names + [f"x{k}" for k in range(x.shape[1])], (p + row for p, row in rows))
    else:
        raise ValueError(f"the inputs file must end in .npz or .csv; got {str(path)!r}")


def _golden(view: Any, output: NDArray[Any]) -> list[CheckResult]:
    """The preset's set on the file's rows at its ids rows holding its positions."""
    from pespec.multiaxis.rope.golden import fixture_for
    from pespec.multiaxis.rope.golden_stage import golden_result

    fixture = fixture_for(view.preset)
    if fixture is None:
        return []
    rows, positions = fixture.rows, view.positions
    inside = rows < positions.shape[0]
    keep = np.zeros(rows.shape[0], dtype=bool)
    keep[inside] = np.all(positions[rows[inside]] == fixture.positions[inside], axis=1)
    if not keep.any():
        return []
    kept = type(fixture)(
        fixture.name,
        fixture.preset,
        fixture.data,
        rows[keep],
        fixture.positions[keep],
        fixture.x[keep],
        fixture.y[keep],
    )
    title = f"the certified set of {fixture.preset} ({int(keep.sum())} rows)"
    planned = PlannedCheck(f"golden:{fixture.name}", "golden", title, "§9.7", kept)
    y = np.asarray(output[rows[keep]], dtype=np.float64)
    return [golden_result(planned, kept, y, view)]


def check_file(
    path: str | Path,
    config: Any,
    *,
    positions: str | None = None,
    level: str | RopeLevel | None = None,
    key: str | None = None,
) -> Report:
    """Check the multi-axis rotary output saved in ``path`` for ``config`` (a preset name, a
    JSON config or its path); see the module docstring. The level follows the rule every
    family's file check shares (:func:`~pespec.conformance.filerules.claimed_file_level`)."""
    from pespec.multiaxis.rope.fileview import FileView, reference_checks

    file = open_section_file(FILE_KIND, path, config, positions=positions, level=level, key=key)
    view = FileView(file.preset, file.output, file.positions, file.level, file.out_dtype)
    finite = all(c.status == "passed" for c in file.checks if c.stage == "contract")
    if file.level is not None and file.out_dtype is not None and finite:
        file.checks += _golden(view, file.output)
        file.checks += reference_checks(view)
    from pespec.multiaxis.rope.diagnosis import diagnose
    from pespec.multiaxis.rope.report import report_fields

    report = file.report(report_fields(view))
    if not report.conformant and file.level is not None and finite:
        diagnose(view, report)
    return report
