"""Generated blocks of SPEC Annex C and README's performance table (tools/docgen/exact_docs.py).

The performance table is checked on a hand-written pytest-benchmark file whose numbers are
known; the committed results and the docs themselves are checked by test_docs_generated.
"""

from __future__ import annotations

import json
from pathlib import Path

from docgen import exact_docs as _exact_docs  # tools/ is on pytest's pythonpath

from pespec.sinusoidal.reference import exact


def _benchmark(name: str, naive: float, exact_ns: float, **extra: float) -> dict[str, object]:
    info: dict[str, object] = {
        "naive_ns_per_value": naive,
        "exact_ns_per_value": exact_ns,
        "write_only_ns_per_value": 0.25,
        "speedup_vs_naive": round(naive / exact_ns, 2),
        "numpy": "9.9.9",
        **extra,
    }
    return {"name": name, "extra_info": info}


def test_performance_table_from_a_benchmark_file(tmp_path: Path) -> None:
    results = {
        "datetime": "2030-01-02T03:04:05",
        "machine_info": {"cpu": {"brand_raw": "Test CPU", "count": 3}, "python_version": "3.99"},
        "benchmarks": [
            _benchmark("test_table_speedup_vs_naive[L5000-d512]", 20.0, 4.0, target_speedup=4.0),
            _benchmark(
                "test_stream_131072_by_4096",
                21.0,
                7.0,
                peak_traced_mib=75.5,
                output_mib_if_materialised=4096.0,
            ),
        ],
    }
    path = tmp_path / "reference.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    table = _exact_docs.performance_table(path)
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert rows[0] == (
        "| `sinusoidal_positional_encoding(5000, 512)` | 20.0 | 4.0 | 0.25 | 5.0× | ≥ 4× | — |"
    )  # the last column, the pure-NumPy path's ratio (issue 37), is measured for encode only
    assert rows[1].startswith("| `iter_encoding_chunks(range(131072), 4096)` | 21.0 | 7.0 |")
    assert rows[1].endswith("| 3.0× | — | — |")
    assert "2030-01-02 on Test CPU (3 cores, shared), Python 3.99, NumPy 9.9.9" in table
    assert "75.5 MiB traced, for an encoding of 4096 MiB" in table


def test_performance_table_without_results_says_how_to_make_them(tmp_path: Path) -> None:
    text = _exact_docs.performance_table(tmp_path / "missing.json")
    assert "--benchmark-json benchmarks/results/reference.json" in text


def test_error_budget_table_has_every_term_and_the_conclusion() -> None:
    table = _exact_docs.error_budget_table()
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == 1 + len(exact.error_budget())  # header + one row per term
    assert "< 2^-52 = 2.22045e-16" in table
