"""Generated blocks of SPEC Annex C and README's performance section (tools/generate_docs.py).

A documentation generator of the source checkout (moved out of the installed package, where
it was ``pespec.sinusoidal.reference._exact_docs``): :func:`performance_table` reads
``benchmarks/results/reference.json``, which only a checkout has.

* :func:`error_budget_table`: the terms of the Annex C proof, evaluated by
  :func:`pespec.sinusoidal.reference.exact.error_budget`.
  :func:`pespec.sinusoidal.reference.exact.error_budget`.
* :func:`fractional_budget_table`: the terms of Annex C.8's proof (the fractional path),
  evaluated by :func:`pespec.numerics.faithful.error_terms`.
* :func:`fixture_errors_table`: the reference against every golden fixture set.
* :func:`performance_table`: the table of ``benchmarks/results/reference.json``, the
  pytest-benchmark output of ``benchmarks/bench_reference.py`` committed with the code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mpmath
import numpy as np

from pespec.numerics.faithful import error_terms
from pespec.sinusoidal.golden import load_fixture_sets
from pespec.sinusoidal.reference.encoding import encode
from pespec.sinusoidal.reference.exact import error_budget

__all__ = [
    "RESULTS_FILE",
    "error_budget_table",
    "fixture_errors_table",
    "fractional_budget_table",
    "performance_table",
    "rounding_fraction_table",
]

RESULTS_FILE = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "reference.json"
"""Where ``--benchmark-json`` writes the reference benchmarks (repository checkout only)."""


def error_budget_table() -> str:
    """The Annex C error budget as a Markdown table (bounds as powers of two) and the final sum."""
    terms = error_budget()
    lines = ["| step | term | bound |", "|---|---|---|"]
    for step, term, bound in terms:
        lines.append(f"| {step} | {term} | 2^{float(mpmath.log(bound, 2)):.1f} |")
    epsilon = terms[-1][2]
    with mpmath.workdps(40):
        two = mpmath.mpf(2)
        total = 3 * two**-54 + epsilon
        lines += [
            "",
            f"3·2^-54 + ε' = {mpmath.nstr(total, 6)} < 2^-52 = {mpmath.nstr(two**-52, 6)} "
            f"(margin {mpmath.nstr(two**-52 - total, 3)}).",
        ]
    return "\n".join(lines) + "\n"


def fractional_budget_table() -> str:
    """Annex C.8's terms as a Markdown table (bounds as powers of two), then the total."""
    *terms, (_, total) = error_terms()
    lines = ["| term | bound |", "|---|---|"]
    for term, bound in terms:
        lines.append(f"| {term} | 2^{float(mpmath.log(bound, 2)):.1f} |")
    with mpmath.workdps(40):
        limit = mpmath.mpf(2) ** -52
        lines += [
            "",
            f"2^-53 + 2·(sum) = {mpmath.nstr(total, 6)} < 2^-52 = {mpmath.nstr(limit, 6)} "
            f"(margin {mpmath.nstr(limit - total, 3)}).",
        ]
    return "\n".join(lines) + "\n"


def fixture_errors_table() -> str:
    """Max |encode − certified| per golden set, in units of 2^-53, and the share bit-exact."""
    lines = [
        "| fixture set | values | max error / 2^-53 | equal to the certified value |",
        "|---|---|---|---|",
    ]
    worst = 0.0
    for fixture in load_fixture_sets():
        got = encode(
            fixture.positions, fixture.d_model, base=fixture.base, convention=fixture.convention
        )[:, fixture.columns]
        error = np.abs(got - fixture.values)
        worst = max(worst, float(error.max()))
        equal = float(np.mean(error == 0.0))
        lines.append(
            f"| `{fixture.name}` | {error.size} | {float(error.max()) / 2.0**-53:g} | "
            f"{100 * equal:.2f}% |"
        )
    lines += ["", f"Largest error over all sets: {worst / 2.0**-53:g}·2^-53 (bound: 2·2^-53)."]
    return "\n".join(lines) + "\n"


ROUNDING_FRACTION_CASES: tuple[tuple[int, float, int, int], ...] = (
    (32, 1e7, -70_000, 70_000),
    (64, 1e4, 0, 4_999),
)
"""(d_model, base, first, last position) of the Annex C.2 comparison with the oracle; the first
is where issue 14 measured 11.6 %."""


def rounding_fraction_table() -> str:
    """Share of reference values that differ from the correctly rounded (oracle) value, per
    configuration of ROUNDING_FRACTION_CASES, and the largest difference (SPEC Annex C.2)."""
    from pespec.sinusoidal.reference import oracle

    lines = [
        "| d_model | base | positions | values | differ from correctly rounded | "
        "max difference / 2^-53 |",
        "|---|---|---|---|---|---|",
    ]
    for d_model, base, first, last in ROUNDING_FRACTION_CASES:
        positions = np.arange(first, last + 1, dtype=np.int64)
        got = encode(positions, d_model, base=base)
        exact = oracle.encode(positions, d_model, base=base)
        differ = got != exact
        lines.append(
            f"| {d_model} | {base:g} | {first} … {last} | {got.size} | "
            f"{100 * float(np.mean(differ)):.1f}% | "
            f"{float(np.max(np.abs(got - exact))) / 2.0**-53:g} |"
        )
    return "\n".join(lines) + "\n"


def _case_name(benchmark: dict[str, Any]) -> str:
    table = "test_table_speedup_vs_naive"
    names = {
        f"{table}[L5000-d512]": "`sinusoidal_positional_encoding(5000, 512)`",
        f"{table}[L32768-d1024]": "`sinusoidal_positional_encoding(32768, 1024)`",
        "test_stream_131072_by_4096": "`iter_encoding_chunks(range(131072), 4096)`",
        "test_encode_scattered_integer_positions": (
            "`encode` at 4096 sorted integers in [0, 2^31), d = 512"
        ),
        "test_encode_fractional_positions": (
            "`encode` at 4096 fractional positions in [0, 1000), d = 512"
        ),
    }
    return names.get(benchmark["name"], f"`{benchmark['name']}`")


def _numpy_path(info: dict[str, Any]) -> str:
    """The NumPy path's speed-up over the naive formula, when the case timed it."""
    ratio = info.get("numpy_path_speedup_vs_naive")
    return "—" if ratio is None else f"{ratio:.2f}×"


def performance_table(path: Path = RESULTS_FILE) -> str:
    """README's performance table from the committed pytest-benchmark JSON (ns per value)."""
    if not path.exists():
        return (
            "_No benchmark results committed yet: run `python -m pytest "
            "benchmarks/bench_reference.py --benchmark-only --benchmark-json "
            "benchmarks/results/reference.json`._\n"
        )
    data = json.loads(path.read_text(encoding="utf-8"))
    lines = [
        "| case | naive as written (ns/value) | exact (ns/value) | write only (ns/value) "
        "| speed-up | target | NumPy path (no numba) |",
        "|---|---|---|---|---|---|---|",
    ]
    stream_note = ""
    for benchmark in data["benchmarks"]:
        info = benchmark["extra_info"]
        target = info.get("target_speedup")
        lines.append(
            f"| {_case_name(benchmark)} | {info['naive_ns_per_value']:.1f} | "
            f"{info['exact_ns_per_value']:.1f} | {info['write_only_ns_per_value']:.2f} | "
            f"{info['speedup_vs_naive']:.1f}× | {f'≥ {target:g}×' if target else '—'} | "
            f"{_numpy_path(info)} |"
        )
        if "peak_traced_mib" in info:
            stream_note = (
                f"Streaming peak memory: {info['peak_traced_mib']:g} MiB traced, for an "
                f"encoding of {info['output_mib_if_materialised']:g} MiB."
            )
    machine = data.get("machine_info", {})
    cpu = machine.get("cpu", {})
    lines += [
        "",
        f"Measured {data.get('datetime', '?')[:10]} on {cpu.get('brand_raw', '?')} "
        f"({cpu.get('count', '?')} cores, shared), Python {machine.get('python_version', '?')}, "
        f"NumPy {data['benchmarks'][0]['extra_info'].get('numpy', '?')}"
        f"{', numba kernels' if data['benchmarks'][0]['extra_info'].get('kernels') else ''}; "
        "the naive formula as tutorials write it (slices, `np.sin`/`np.cos` of the angle "
        "matrix) and the reference timed in alternating rounds of the same run (best of "
        f"{data['benchmarks'][0]['extra_info'].get('rounds', '?')}). " + stream_note,
    ]
    return "\n".join(line.rstrip() for line in lines) + "\n"
