"""Generated blocks of SPEC §6: the contract probes, the suite's checks and the report schema."""

from __future__ import annotations

import math

from pespec.conformance.compare import BLOCK_ELEMENTS, FIXTURE_ERROR
from pespec.conformance.engine import DEFAULT_TIMEOUT
from pespec.conformance.report import (
    REPORT_SCHEMA,
    REPORT_SCHEMA_VERSION,
    STATUSES,
    SUITE_VERSION,
)
from pespec.sinusoidal.capabilities import Capabilities
from pespec.sinusoidal.compare import EXACT_REFERENCE_LIMIT, REFERENCE_ERROR
from pespec.sinusoidal.contract import CONTRACT_ITEMS, contract_probes
from pespec.sinusoidal.golden import is_canonical_fixture, load_fixture_sets
from pespec.sinusoidal.properties.registry import PROPERTIES
from pespec.sinusoidal.run import LARGE_SIZES

__all__ = ["REPORT_FIELDS", "contract_probes_text", "report_schema_table", "suite_table"]


def contract_probes_text() -> str:
    """The default contract probes (SPEC §6.2) as a list, from :func:`contract_probes`."""
    probes = contract_probes(Capabilities(), base=10000.0)
    lines = []
    for probe in probes:
        values = probe.positions.tolist()
        shown = (
            f"{values[0]} … {values[-1]} ({len(values)} integers)"
            if probe.positions.dtype.kind == "i"
            else ", ".join(repr(v) for v in values)
        )
        lines.append(f"* d_model = {probe.d_model}, base = {probe.base:g}, positions {shown}")
    lines.append("")
    lines.append(
        "The second probe is dropped for integer-positions-only backends; d_model, base and "
        "positions are narrowed to the declared capabilities."
    )
    return "\n".join(lines) + "\n"


def suite_table() -> str:
    """The stages, their checks, the large sizes per profile and the constants (SPEC §6.2)."""
    fixtures = [f.name for f in load_fixture_sets() if is_canonical_fixture(f)]
    sizes = "; ".join(
        f"`{name}`: " + ", ".join(f"{length}×{d}" for length, d in LARGE_SIZES[name])
        for name in ("ci", "dev", "thorough")
    )
    lines = [
        "| stage | checks (ids) | count |",
        "|---|---|---|",
        "| 1 contract | "
        + ", ".join(f"`contract:{item}`" for item in CONTRACT_ITEMS)
        + f" | {len(CONTRACT_ITEMS)} |",
        f"| 2 golden | `golden:NAME`, one per canonical fixture set (§7) | {len(fixtures)} |",
        "| 3 property | "
        + ", ".join(f"`property:{name}`" for name in PROPERTIES)
        + f" | {len(PROPERTIES)} |",
        f"| 4 large | `large:LxD`, positions 0 … L−1, base 10000; {sizes} | "
        + "/".join(str(len(LARGE_SIZES[n])) for n in ("ci", "dev", "thorough"))
        + " |",
        "",
        f"Tolerance against a golden value: b + 2^{math.log2(FIXTURE_ERROR):.0f}; against the "
        f"exact reference: b + 2^{math.log2(REFERENCE_ERROR):.0f} for |p| < "
        f"2^{math.log2(EXACT_REFERENCE_LIMIT):.0f} (beyond, the oracle, b + 2^"
        f"{math.log2(FIXTURE_ERROR):.0f}). Default timeout per backend call: "
        f"{DEFAULT_TIMEOUT:g} s. Comparison blocks: {BLOCK_ELEMENTS} elements.",
    ]
    return "\n".join(lines) + "\n"


REPORT_FIELDS: tuple[tuple[str, str], ...] = (
    ("schema", f'`"{REPORT_SCHEMA}"`'),
    ("schema_version", "version of this layout; a changed field meaning bumps it"),
    ("spec_version, suite_version, pespec_version", "what was checked against, and by what"),
    (
        "verdict, conformant",
        '`"conformant"`, `"non-conformant"`, or `"not judged"` (schema 1.5: a partial run '
        "in which nothing failed and no golden or reference check ran); conformant true only "
        'for `"conformant"`',
    ),
    (
        "backend",
        "name, spec (to reload it), file (--from-file: path, sha256, bytes, positions "
        "{given, count, first, last, min, max}, columns {name, count}, coverage, "
        "small_sample), output_dtype, declared capabilities",
    ),
    (
        "family",
        '`"sinusoidal"`, `"rope"` (§8) or `"multiaxis"` (§9: its report adds config, grid, '
        "base_size, interpolation_scale, rows, rows_declared_out): the family checked "
        "(`pespec check --family`)",
    ),
    (
        "level",
        "one shape in both families: name (`float16`, `float16@float64`; rope "
        "`PHASE/CACHE/ROTATION`), stages (each stage's dtype in the order computed: "
        "{working, output}; rope {phase, cache, rotation}; null when unknown), output_dtype, "
        "working_dtype (rope: the phase's)",
    ),
    (
        "convention",
        "the convention judged against: name, layout, frequency_shift, position_offset, "
        "argument_scale (SPEC §3) and `declared` (false: the canonical default)",
    ),
    ("backend_calls", "calls made to the backend and rows requested: suite, diagnosis"),
    ("profile", "`ci`, `dev`, `thorough` (or `file` for --from-file)"),
    ("execution", "device, backend libraries, Python, platform, machine, pespec's libraries"),
    ("timestamp, duration_s", "UTC start (ISO 8601, seconds) and wall time"),
    ("summary", "the one-line verdict printed by the CLI"),
    (
        "complete, not_run",
        "whether every check of the suite ran; else {check id or `stage:*`: why not} "
        "(stage not selected, skip file, deselected). The verdict covers the checks that ran",
    ),
    (
        "checks[]",
        "id, stage, title, section, status, message, max_error, bound, ratio, "
        "worst_position, worst_column, reproduction, duration_s, details",
    ),
    (
        "diagnosis, diagnosis_sentence",
        "Annex D, only when non-conformant (else null); rotary "
        "`diagnosis.measured_vs_declared` (schema 1.4): per pair ω̂, ω, ratio, Â (D.9)",
    ),
)
"""The JSON report's top-level fields (comma-separated names per row) and what each holds;
a test requires exactly the fields of :meth:`Report.to_dict` and ``checks[]``'s."""


def report_schema_table() -> str:
    """The JSON report's top-level fields (SPEC §6.4)."""
    lines = [
        f"Schema `{REPORT_SCHEMA}` version {REPORT_SCHEMA_VERSION}, suite version "
        f"{SUITE_VERSION}. Statuses: {', '.join(f'`{s}`' for s in STATUSES)}.",
        "",
        "| field | content |",
        "|---|---|",
    ]
    lines += [f"| `{name}` | {content} |" for name, content in REPORT_FIELDS]
    return "\n".join(lines) + "\n"
