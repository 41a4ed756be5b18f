"""docs/fixtures.md describes the shipped fixtures: its field table names exactly the keys of
the files, and its plain-Python reader returns exactly what pespec's own loader returns."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
from paths import ROOT

from pespec.conformance.fixtures import files_of_format, fixture_directory
from pespec.rope import PRESETS
from pespec.sinusoidal.golden import load_fixture_sets

DOC = ROOT / "docs" / "fixtures.md"


def _documented_fields() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Fields", 1)[1].split("## ", 1)[0]
    return re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE)


def _reader() -> Any:
    """The ``read_fixture`` function defined by the document's first Python block."""
    text = DOC.read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert code is not None
    imports = re.findall(r"^\s*(?:import|from)\s+(\w+)", code.group(1), flags=re.MULTILINE)
    assert set(imports) <= {"json", "pathlib"}, (
        f"the reader must use the standard library only: {imports}"
    )
    namespace: dict[str, Any] = {}
    exec(compile(code.group(1), "fixtures.md", "exec"), namespace)
    assert len(code.group(1).strip().splitlines()) <= 16
    return namespace["read_fixture"]


def test_field_table_matches_every_shipped_file() -> None:
    documented = _documented_fields()
    files = files_of_format(fixture_directory(), "pespec-golden/1")  # the absolute sets
    assert files
    for file in files:
        keys = list(json.loads(file.read_text(encoding="utf-8")))
        # Documented in file order; positions_hex appears only for fractional positions.
        assert keys == [k for k in documented if k in keys], file.name
        assert set(documented) - set(keys) <= {"positions_hex"}, file.name


def test_plain_reader_agrees_with_the_loader_bit_for_bit() -> None:
    read_fixture = _reader()
    sets = load_fixture_sets()
    assert sets
    for fixture in sets:
        path = fixture_directory() / f"{fixture.name}.json"
        d_model, base, convention, positions, columns, values = read_fixture(path)
        assert d_model == fixture.d_model and base == fixture.base
        assert convention["layout"] == fixture.convention.layout
        assert np.array_equal(np.array(positions, dtype=fixture.positions.dtype), fixture.positions)
        assert columns == fixture.columns.tolist()
        got = np.array(values, dtype=np.float64)
        assert got.tobytes() == fixture.values.tobytes(), fixture.name


def _rope_section() -> str:
    return DOC.read_text(encoding="utf-8").split("## Rotary sets", 1)[1]


def test_rotary_field_table_matches_every_rotary_file() -> None:
    documented = re.findall(r"^\| `(\w+)` \|", _rope_section(), flags=re.MULTILINE)
    files = sorted(fixture_directory().glob("rope-*.json"))
    assert len(files) == len(PRESETS)  # one per preset
    for file in files:
        assert list(json.loads(file.read_text(encoding="utf-8"))) == documented, file.name


def test_plain_rotary_reader_agrees_with_the_loader_bit_for_bit() -> None:
    from pespec.rope.golden import GOLDEN

    code = re.search(r"```python\n(.*?)```", _rope_section(), flags=re.DOTALL)
    assert code is not None
    imports = re.findall(r"^\s*(?:import|from)\s+(\w+)", code.group(1), flags=re.MULTILINE)
    assert set(imports) <= {"json", "pathlib"}
    namespace: dict[str, Any] = {}
    exec(compile(code.group(1), "fixtures.md", "exec"), namespace)
    for path in sorted(fixture_directory().glob("rope-*.json")):
        fixture = GOLDEN.parse(path.name, path.read_bytes())
        config, omega, attention, positions, cos, sin, x, y = namespace["read_rope_fixture"](path)
        assert config == fixture.config.to_dict() and attention == fixture.attention
        for got, want in (
            (omega, fixture.omega),
            (positions, fixture.positions),
            (cos, fixture.cos),
            (sin, fixture.sin),
            (x, fixture.x),
            (y, fixture.y),
        ):
            assert np.array(got, dtype=np.float64).tobytes() == want.tobytes(), path.name
