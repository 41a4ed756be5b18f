"""The coverage matrix (issue 36): every schedule a client declares implemented has a row in
the committed table, the library findings are rows with named causes, and the Markdown groups
rows of one cause. Reads results/conformance-table.json only (runs without the libraries)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from paths import ROOT

from pespec.cli import main
from pespec.clients.catalog import all_clients
from pespec.clients.coverage import NO_ROW, cause, coverage, missing, render_coverage
from pespec.clients.implements import DECLARATIONS, Declaration, Item
from pespec.clients.table_text import cause_groups, render_markdown

TABLE = ROOT / "results" / "conformance-table.json"


def _table() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(TABLE.read_text(encoding="utf-8"))
    return data


def test_every_declared_implemented_schedule_has_a_row() -> None:
    absent = missing(coverage(_table()))
    assert not absent, f"declared implemented, no row in {TABLE.name}: {absent}"


NOT_RUN: set[tuple[str, str]] = set()
"""Declared implemented items allowed no row, each with its reason in the declaration (none
since issue 36b: every implemented item has a row)."""


def test_only_the_listed_items_escape_a_row_and_each_says_why() -> None:
    escaped = {
        (name, item.name)
        for name, declaration in DECLARATIONS.items()
        for item in declaration.items
        if item.implemented and item.not_run
    }
    assert escaped == NOT_RUN
    for name, declaration in DECLARATIONS.items():
        for item in declaration.items:
            if item.implemented and not item.not_run:
                assert item.rows, (name, item.name)
            assert not (item.not_run and item.rows), (name, item.name)


def test_declarations_name_real_clients_and_their_configurations() -> None:
    clients = all_clients()
    for name, declaration in DECLARATIONS.items():
        assert declaration.items, name
        for item in declaration.items:
            assert ":" in item.where or item.where.endswith(".cc"), (name, item.name)
            assert item.implemented or not item.not_run, (name, item.name)
            for client, config in item.rows:
                assert client in clients, (name, item.name, client)
                assert config in clients[client].configs, (name, item.name, client, config)


def _row(client: str, config: str, dtype: str, verdict: str, **extra: Any) -> dict[str, Any]:
    return {"client": client, "config": config, "dtype": dtype, "verdict": verdict, **extra}


def test_cells_from_rows() -> None:
    declared = {
        "lib:entry": Declaration(
            "lib",
            "1.0",
            (
                Item("a", "f.py:1", (("lib:x", "A"),)),
                Item("b", "f.py:2", (("lib:x", "B"),)),
                Item("c", "f.py:3", (("lib:x", "C"),)),
                Item("d", "f.py:4", implemented=False, note="no such type"),
                Item("e", "f.py:5", not_run="no configuration"),
                Item("f", "f.py:6", (("lib:x", "F"),)),
            ),
        )
    }
    bad = "The backend computes … and the cause is: θ measured 1e6, the config says 1e4; within"
    rows = [
        _row("lib:x", "A", "float32", "CONFORMANT"),
        _row("lib:x", "A", "module-bfloat16", "NON-CONFORMANT", diagnosis=bad),
        _row("lib:x", "B", "float32", "CONFORMANT"),
        _row("lib:x", "B", "bfloat16", "NON-CONFORMANT", diagnosis=bad),
        _row("lib:x", "F", "float32", "not run", why="refused: the layer has θ only"),
    ]
    cells = {c["schedule"]: c for c in coverage({"rows": rows}, declared)}
    # module-bfloat16 is counted beside, never the verdict of the library's own path
    assert cells["a"]["status"] == "CONFORMANT"
    assert "module-bfloat16: 1/1 NON-CONFORMANT" in cells["a"]["detail"]
    assert cells["b"]["status"] == "NON-CONFORMANT"
    assert cells["b"]["detail"].startswith("θ measured 1e6, the config says 1e4 (B bfloat16)")
    assert cells["c"]["status"] == NO_ROW
    assert (cells["d"]["status"], cells["d"]["detail"]) == ("not implemented", "no such type")
    assert (cells["e"]["status"], cells["e"]["detail"]) == ("not run", "no configuration")
    assert (cells["f"]["status"], cells["f"]["detail"]) == ("refused", "the layer has θ only")
    assert missing(cells.values()) == ["lib:entry: c"]
    text = render_coverage(list(cells.values()))
    assert text.startswith("6 declared schedules and knobs of 1 entry points: 1 CONFORMANT, 1 NON")


FINDINGS = {
    # (client, configuration): words of the named cause; each confirmed by mpmath in the test
    # named beside it, which points back at this row
    ("keras-hub:RotaryEmbedding", "Llama-2-7B-dynamic-4-seq-len-4096"): "linear",
    ("keras-hub:RotaryEmbedding", "Llama-2-7B-dynamic-4-seq-len-16384"): "linear",
    # tests/rope/test_integration_keras_hub.py::test_keras_hub_dynamic_frequencies_against_mpmath
    ("mlx-lm:phi3", "Phi-3.5-mini-instruct-seq-len-4096"): "long_factor",
    # tests/clients/test_libraries.py::test_mlx_lm_suscaled_rope_keeps_the_long_factors_at_...
    ("transformers:phimoe", "Phi-3.5-MoE-instruct-per-call"): "short_factor",
    # tests/rope/test_per_call.py::test_real_phimoe_module_uses_the_short_factors_past_l0
    (
        "rotary-embedding-torch:RotaryEmbedding-pixel",
        "rotary-embedding-torch-pixel-64-max-freq-10",
    ): "",  # the diagnosis names no slip: the declaration's finding does (test below)
    # tests/rope/test_integration_schedules.py::test_ret_pixel_against_exact_linspace_is_a_...
    ("equinox:nn.RotaryPositionalEmbedding-second-theta", "Llama-2-7B"): "θ measured",
    # tests/clients/test_libraries.py::test_equinox_rotary_cache_ignores_theta
}


@pytest.mark.parametrize(("key", "words"), FINDINGS.items(), ids=[k[0] for k in FINDINGS])
def test_library_findings_are_rows_with_named_causes(key: tuple[str, str], words: str) -> None:
    rows = [r for r in _table()["rows"] if (r["client"], r["config"]) == key]
    assert rows, f"no row for {key}"
    for row in rows:
        assert row["verdict"] == "NON-CONFORMANT", (key, row["dtype"], row["verdict"])
        assert words in cause(row), (key, cause(row))


def test_markdown_groups_a_shared_cause_into_one_line() -> None:
    table = _table()
    groups = cause_groups(table)
    text = render_markdown(table)
    for number, (named, rows) in enumerate(groups, 1):
        line = next(x for x in text.splitlines() if x.startswith(f"- **C{number}** "))
        assert f"({len(rows)} rows)" in line and named.split()[0] in line
        if len(rows) > 1:  # the rows point at their group instead of repeating the sentence
            assert text.count(f"| C{number} — `") == len(rows)
    # every row keeps its line
    assert sum(x.startswith("| `") for x in text.splitlines()) == len(table["rows"])


def test_cli_coverage_of_the_committed_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["table", "--coverage", str(TABLE)]) == 0
    out = capsys.readouterr().out
    assert "declared schedules and knobs" in out and NO_ROW not in out


def test_cli_coverage_of_a_bad_file(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "t.json"
    bad.write_text("[]", encoding="utf-8")
    assert main(["table", "--coverage", str(bad)]) == 2
    assert "--coverage" in capsys.readouterr().err


def test_the_pixel_finding_is_named_in_the_matrix() -> None:
    cell = next(
        c
        for c in coverage(_table())
        if c["client"] == "rotary-embedding-torch:RotaryEmbedding" and "pixel" in c["schedule"]
    )
    assert cell["status"] == "NON-CONFORMANT"
    assert cell["detail"].startswith("ω = π·linspace(1, max_freq/2, d/2) computed in float32")
