"""A family's golden format as one declaration (pespec.conformance.preset_sets, issue 38).

Two toy formats, declared as a family declares its own, are written, read back, checked and
exported by the engine. The expected bytes are written out by hand from the format's rule
(SPEC §7: the head, then the declared fields in order; ``dump`` separators ", " and ": ",
matrix rows one per line with "," and ":", every float also as ``float.hex``), never taken
from the code under test. The toy formats are never registered (the registry is global).
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from pespec._version import SPEC_VERSION
from pespec.conformance.fixtures import FixtureCheck, FixtureError, with_manifest
from pespec.conformance.preset_sets import (
    PresetRows,
    PresetSetFormat,
    computed,
    constant,
    floats,
    grid_csv,
    hexes,
    ints,
    value,
)


@dataclass(frozen=True)
class Grid(PresetRows):
    """A toy grid set: rows (n,), positions (n, 1), values (n, 2)."""

    positions: NDArray[np.float64]
    values: NDArray[np.float64]


GRID_SET = Grid(
    "toy-a",
    "a",
    {"d": 2},
    np.array([0, 3], dtype=np.int64),
    np.array([[0.5], [1.25]]),
    np.array([[0.1, 3.0], [-2.0, 0.0]]),
)


def _grid_built(file: str, parsed: dict[str, Any]) -> Grid:
    fixture = Grid(**parsed)
    if fixture.values.shape != (fixture.rows.size, 2):
        raise FixtureError(f"{file}: values must be (n, 2)")
    return fixture


def _certified(fixture: Grid) -> NDArray[np.float64]:
    """The toy's "oracle": the set's own values but values[1][0] = -2 (row id 3)."""
    return np.array([[0.1, 3.0], [-2.0, 0.0]])


GRID: PresetSetFormat[Grid] = PresetSetFormat(
    tag="toy-golden/1",
    description="toy sets",
    noun="toy set",
    generator={"name": "toy"},
    definition="values[r] = f(positions[r])",
    fields=(*PresetRows.FIELDS, floats("positions"), floats("values")),
    presets={"a": None},
    prefix="toy-",
    compute=lambda preset: GRID_SET,
    build=_grid_built,
    npz={"rows": "rows", "positions": "positions", "values": "values"},
    csv=grid_csv("rows", "positions", "values", "c"),
    certify=_certified,
    row_word="grid",
)

GRID_TEXT = (
    "{\n"
    ' "format": "toy-golden/1",\n'
    f' "spec_version": "{SPEC_VERSION}",\n'
    ' "generator": {"name": "toy"},\n'
    ' "name": "toy-a",\n'
    ' "preset": "a",\n'
    ' "definition": "values[r] = f(positions[r])",\n'
    ' "preset_config": {"d": 2},\n'
    ' "rows": [0, 3],\n'
    ' "positions": [\n  [0.5],\n  [1.25]\n ],\n'
    ' "positions_hex": [\n  ["0x1.0000000000000p-1"],\n  ["0x1.4000000000000p+0"]\n ],\n'
    ' "values": [\n  [0.1,3.0],\n  [-2.0,0.0]\n ],\n'
    ' "values_hex": [\n  ["0x1.999999999999ap-4","0x1.8000000000000p+1"],\n'
    '  ["-0x1.0000000000000p+1","0x0.0p+0"]\n ]\n'
    "}\n"
)


def test_a_grid_set_renders_to_the_stated_bytes() -> None:
    assert GRID.render(GRID_SET) == GRID_TEXT.encode("ascii")
    assert GRID.render_files() == {"toy-a.json": GRID_TEXT.encode("ascii")}


def test_file_and_set_names_are_prefix_and_slug() -> None:
    assert (GRID.file_name("a"), GRID.set_name("a")) == ("toy-a.json", "toy-a")
    assert (VECTOR.file_name("b"), VECTOR.set_name("b")) == ("vec-B.json", "vec-B")


def test_a_grid_set_reads_back_bit_for_bit() -> None:
    fixture = GRID.parse("toy-a.json", GRID_TEXT.encode("ascii"))
    assert (fixture.name, fixture.preset, fixture.data) == ("toy-a", "a", {"d": 2})
    assert fixture.rows.dtype == np.int64 and fixture.rows.tolist() == [0, 3]
    for got, want in ((fixture.positions, GRID_SET.positions), (fixture.values, GRID_SET.values)):
        assert got.dtype == np.float64 and got.tobytes() == want.tobytes()


def _edited(text: str, key: str, item: Any) -> bytes:
    doc = json.loads(text)
    doc[key] = item
    return json.dumps(doc).encode("ascii")


@pytest.mark.parametrize(
    ("key", "item", "message"),
    [
        ("values", [[0.1, 3.0], [-2.0, 1.0]], "toy.json: values decimals differ from values_hex"),
        ("format", "toy-golden/2", "toy.json: format must be 'toy-golden/1'"),
        ("values_hex", [["0x1p0", "zz"]], r"toy.json: malformed toy set \(ValueError: "),
        ("values", [[0.1, 3.0, 1.0], [-2.0, 0.0, 1.0]], "values decimals differ"),
    ],
)
def test_a_malformed_grid_file_is_named(key: str, item: Any, message: str) -> None:
    with pytest.raises(FixtureError, match=message):
        GRID.parse("toy.json", _edited(GRID_TEXT, key, item))


def test_a_missing_key_and_a_wrong_shape_are_named() -> None:
    doc = json.loads(GRID_TEXT)
    del doc["rows"]
    with pytest.raises(FixtureError, match=r"toy.json: malformed toy set \(KeyError: 'rows'\)"):
        GRID.parse("toy.json", json.dumps(doc).encode("ascii"))
    doc = json.loads(GRID_TEXT)
    doc["values"], doc["values_hex"] = [[3.0]], [["0x1.8p+1"]]
    with pytest.raises(FixtureError, match=r"toy.json: values must be \(n, 2\)"):
        GRID.parse("toy.json", json.dumps(doc).encode("ascii"))


def test_verification_names_each_wrong_value_with_its_row_id() -> None:
    assert GRID.differences(GRID_SET) == (0, [])
    values = GRID_SET.values.copy()
    values[1, 0] = np.nextafter(-2.0, 0.0)  # -0x1.fffffffffffffp+0
    wrong, messages = GRID.differences(replace(GRID_SET, values=values))
    stored, certified = "-0x1.fffffffffffffp+0", "-0x1.0000000000000p+1"
    assert (wrong, messages) == (
        1,
        [f"toy-a: values[1][0] (grid row 3): stored {stored}, certified {certified}"],
    )
    check = GRID.handler.verify(replace(GRID_SET, values=values), "toy-a.json", 20)
    assert check == FixtureCheck(4, 1, tuple(messages))


def test_the_handler_joins_the_declaration() -> None:
    handler = GRID.handler
    assert (handler.format, handler.description, handler.planned()) == (
        "toy-golden/1",
        "toy sets",
        1,
    )
    assert handler.parse("toy-a.json", GRID_TEXT.encode("ascii")).rows.tolist() == [0, 3]
    assert handler.render(None) == {"toy-a.json": GRID_TEXT.encode("ascii")}
    csv_text = "row,axis0,c0,c1\n0,0.5,0.1,3.0\n3,1.25,-2.0,0.0\n"
    assert handler.writers["csv"](GRID_SET) == csv_text.encode("ascii")


def test_matching_compares_the_computed_configuration(tmp_path: Path) -> None:
    assert computed({"d": 2, "source": "a paper"}) == {"d": 2}
    for name, data in with_manifest({"toy-a.json": GRID_TEXT.encode("ascii")}).items():
        (tmp_path / name).write_bytes(data)
    found = GRID.matching({"d": 2, "source": "elsewhere"}, tmp_path)
    assert found is not None and found.name == "toy-a"
    assert GRID.matching({"d": 3}, tmp_path) is None
    assert GRID.matching({"d": 3}, tmp_path, key=lambda data: {}) is not None


def test_a_declaration_needs_exactly_one_verification() -> None:
    with pytest.raises(ValueError, match="toy-golden/1: declare one of certify and verify"):
        replace(GRID, verify=_vector_check)
    with pytest.raises(ValueError, match="its sets are checked by its own verify"):
        VECTOR.differences(VECTOR_SET)


def test_the_npz_export_holds_the_declared_members_and_config(tmp_path: Path) -> None:
    path = tmp_path / "toy-a.npz"
    path.write_bytes(GRID.npz_bytes(GRID_SET))
    with np.load(path) as npz:
        assert list(npz.files) == ["rows", "positions", "values", "config"]
        assert npz["values"].tobytes() == GRID_SET.values.tobytes()
        assert json.loads(str(npz["config"])) == {"d": 2}


def test_load_verifies_the_folder_and_find_picks_by_predicate(tmp_path: Path) -> None:
    other = b'{\n "format": "other/1"\n}\n'
    files = with_manifest({"toy-a.json": GRID_TEXT.encode("ascii"), "z.json": other})
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    (loaded,) = GRID.load(tmp_path)
    assert loaded.name == "toy-a"
    assert GRID.find(lambda f: f.data == {"d": 2}, tmp_path) is not None
    assert GRID.find(lambda f: f.data == {"d": 3}, tmp_path) is None
    (tmp_path / "toy-a.json").write_bytes(GRID_TEXT.replace("1.25", "1.5").encode("ascii"))
    with pytest.raises(FixtureError, match=r"toy-a\.json: SHA-256 differs"):
        GRID.load(tmp_path)


class ToyError(FixtureError):
    """The second toy's own error class."""


@dataclass(frozen=True)
class Vector:
    """A toy set of other field kinds: a configuration, a vector, a float, ints."""

    name: str
    preset: str
    k: int
    omega: NDArray[np.float64]
    omega_lo: NDArray[np.float64]
    attention: float
    ids: NDArray[np.int64]


VECTOR_SET = Vector(
    "vec-b",
    "b",
    7,
    np.array([0.5, 3.0]),
    np.array([1.25]),
    0.5,
    np.array([[1, 2], [3, 4]], dtype=np.int64),
)


def _vector_check(fixture: Vector, limit: int) -> FixtureCheck:
    return FixtureCheck(1, 0, ())


VECTOR: PresetSetFormat[Vector] = PresetSetFormat(
    tag="toy-vector/1",
    description="toy vectors",
    noun="toy vector",
    generator={"name": "toy"},
    definition="d",
    fields=(
        value("config", "k", write=lambda k: {"k": k}, read=lambda item: int(item["k"])),
        floats("omega"),
        hexes("omega_lo_hex", "omega_lo"),
        floats("attention", scalar=True),
        ints("ids"),
        constant("x_formula", "x = r"),
    ),
    presets={"b": None},
    prefix="vec-",
    slug=lambda preset: preset.upper(),
    compute=lambda preset: VECTOR_SET,
    build=lambda file, parsed: Vector(**parsed),
    npz={"omega": "omega", "attention": "attention"},
    csv=lambda fixture: b"",
    config_key="config",
    verify=_vector_check,
    error=ToyError,
)

VECTOR_TEXT = (
    "{\n"
    ' "format": "toy-vector/1",\n'
    f' "spec_version": "{SPEC_VERSION}",\n'
    ' "generator": {"name": "toy"},\n'
    ' "name": "vec-b",\n'
    ' "preset": "b",\n'
    ' "definition": "d",\n'
    ' "config": {"k": 7},\n'
    ' "omega": [0.5, 3.0],\n'
    ' "omega_hex": ["0x1.0000000000000p-1", "0x1.8000000000000p+1"],\n'
    ' "omega_lo_hex": ["0x1.4000000000000p+0"],\n'
    ' "attention": 0.5,\n'
    ' "attention_hex": "0x1.0000000000000p-1",\n'
    ' "ids": [\n  [1,2],\n  [3,4]\n ],\n'
    ' "x_formula": "x = r"\n'
    "}\n"
)


def test_vector_scalar_hex_and_constant_fields_render_and_read_back() -> None:
    assert VECTOR.render(VECTOR_SET) == VECTOR_TEXT.encode("ascii")
    fixture = VECTOR.parse("v.json", VECTOR_TEXT.encode("ascii"))
    assert fixture.k == 7 and fixture.attention == 0.5 and type(fixture.attention) is float
    assert fixture.omega.tolist() == [0.5, 3.0] and fixture.omega_lo.tolist() == [1.25]
    assert fixture.ids.dtype == np.int64 and fixture.ids.tolist() == [[1, 2], [3, 4]]
    assert VECTOR.handler.verify(fixture, "v.json", 5) == FixtureCheck(1, 0, ())
    with np.load(io.BytesIO(VECTOR.npz_bytes(VECTOR_SET))) as npz:
        assert json.loads(str(npz["config"])) == {"k": 7} and float(npz["attention"]) == 0.5


@pytest.mark.parametrize(
    ("key", "item", "message"),
    [
        ("x_formula", "x = 2r", "v.json: x_formula must be 'x = r'"),
        ("attention", 0.25, "v.json: attention decimals differ from attention_hex"),
        ("omega", [0.5, 3.5], "v.json: omega decimals differ from omega_hex"),
        ("config", {}, r"v.json: malformed toy vector \(KeyError: 'k'\)"),
    ],
)
def test_the_declared_error_class_names_the_file(key: str, item: Any, message: str) -> None:
    with pytest.raises(ToyError, match=message):
        VECTOR.parse("v.json", _edited(VECTOR_TEXT, key, item))
