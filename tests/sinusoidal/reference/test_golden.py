"""Golden fixtures (SPEC §7): byte-identical regeneration, verification that catches
tampering, atomic regeneration, export round trips, and no pickle anywhere."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
import pickle
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from pespec.cli import main as cli_main
from pespec.conformance.fixtures import MANIFEST, PROVENANCE, FixtureError, fixture_directory
from pespec.rope import PRESETS as ROPE_PRESETS
from pespec.sinusoidal.golden import FixtureSet, load_fixture_sets, parse_fixture
from pespec.sinusoidal.golden_catalog import CATALOG
from pespec.sinusoidal.golden_write import export_fixture_sets, regenerate, render_fixture
from pespec.sinusoidal.reference._oracle_mpmath import mpmath_row
from pespec.sinusoidal.reference.conventions import PRESETS


@pytest.fixture(scope="module")
def shipped() -> list[FixtureSet]:
    return load_fixture_sets()


@pytest.fixture
def copy_dir(tmp_path: Path) -> Path:
    target = tmp_path / "golden"
    shutil.copytree(fixture_directory(), target)
    return target


@pytest.mark.slow
def test_regenerate_check_is_byte_identical(capsys: pytest.CaptureFixture[str]) -> None:
    """CI's check: a fresh in-memory regeneration equals the shipped files byte for byte."""
    assert cli_main(["golden", "regenerate", "--check"]) == 0
    assert "byte-identical" in capsys.readouterr().out


@pytest.mark.slow
def test_regenerate_check_names_a_differing_file(
    copy_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (copy_dir / "tiny-d4-L3.json").write_bytes(b"{}\n")
    (copy_dir / "stray.json").write_bytes(b"{}\n")
    assert cli_main(["golden", "regenerate", "--check", "--fixtures", str(copy_dir)]) == 1
    out = capsys.readouterr().out
    assert "tiny-d4-L3.json" in out and "stray.json" in out
    assert "d64-L128.json" not in out


def test_catalog_covers_the_issue_and_fits_in_5_mb(shipped: list[FixtureSet]) -> None:
    names = {f.name for f in shipped}
    assert names == {spec.name for spec in CATALOG}
    by_name = {f.name: f for f in shipped}
    assert by_name["tiny-d4-L3"].values.shape == (3, 4)
    assert by_name["d64-L128"].values.shape == (128, 64)
    assert by_name["gpt2-d768-L1024"].d_model == 768
    assert int(by_name["gpt2-d768-L1024"].positions.max()) == 1023
    assert int(by_name["transformer-d512-L5000"].positions.max()) == 4999
    assert int(by_name["long-context-d128"].positions.max()) == 2**31
    assert by_name["fractional-d64"].positions.dtype == np.float64
    assert float(by_name["fractional-d64"].positions.min()) < 0
    assert int(by_name["negative-d64"].positions.min()) == -(2**31)
    assert {f.base for f in shipped} >= {100.0, 1e4, 1e5, 5e5, 1e6}
    assert max(f.d_model for f in shipped) == 8192
    assert by_name["large-d8192"].columns.size < 8192
    assert {f.convention for f in shipped} >= set(PRESETS.values())
    assert sum(size_by_family().get(f, 0) for f in ("absolute", "rotary")) < 5_000_000


def size_by_family() -> dict[str, int]:
    """Bytes of the shipped fixture files per family (by file name prefix; MANIFEST files
    count with the absolute sets, as before the multi-axis families)."""
    sizes: dict[str, int] = {}
    for path in fixture_directory().iterdir():
        name = path.name
        family = (
            "fourier"
            if name.startswith("fourier-")
            else "multiaxis-rope"
            if name.startswith("multiaxis-rope-")
            else "multiaxis"
            if name.startswith("multiaxis-")
            else "rotary"
            if name.startswith("rope-")
            else "absolute"
        )
        sizes[family] = sizes.get(family, 0) + path.stat().st_size
    return sizes


def test_each_family_keeps_its_fixture_budget() -> None:
    # The 5 MB of the absolute and rotary catalogs (above) is the golden-fixture issue's; the
    # multi-axis families (issue 28) have their own: 7 rows of 2-D grids with up to 1,536
    # columns are 1.9 MB (decimal and hex of every value, as every set stores them), so 2 MB
    # for multiaxis and 0.5 MB for multiaxis-rope; the whole folder (the wheel) under 7.5 MB.
    sizes = size_by_family()
    assert sizes.get("multiaxis", 0) < 2_000_000
    assert sizes.get("multiaxis-rope", 0) < 500_000
    # fourier (issue 43): 10 sets of at most 64 rows, 0.1 MB today; 0.5 MB leaves room for
    # as many again.
    assert sizes.get("fourier", 0) < 500_000
    assert sum(sizes.values()) < 7_500_000


def test_tiny_set_matches_hand_values(shipped: list[FixtureSet]) -> None:
    tiny = next(f for f in shipped if f.name == "tiny-d4-L3")
    # d=4: ω_0 = 1, ω_1 = 10000^(-1/2) = 0.01. Published/hand values, correctly rounded:
    # sin 1 = 0.8414709848078965, cos 1 = 0.5403023058681398 (correctly rounded libm and
    # mpmath agree), sin 0.01 = 0.009999833334166664, cos 0.01 = 0.9999500004166653.
    assert tiny.values[0].tolist() == [0.0, 1.0, 0.0, 1.0]
    assert tiny.values[1].tolist() == [
        0.8414709848078965,
        0.5403023058681398,
        0.009999833334166664,
        0.9999500004166653,
    ]


@pytest.mark.slow
def test_every_value_matches_the_independent_method(shipped: list[FixtureSet]) -> None:
    """Every stored value (51812) recomputed with mpmath at 400 bits, not the oracle, bit for
    bit (about 2 s). |θ| < 2^32 here, so a wrong rounding would need the exact value within
    about 2^-350 of a rounding boundary."""
    for fixture in shipped:
        columns = fixture.columns.tolist()
        for i, position in enumerate(fixture.positions.tolist()):
            row = mpmath_row(
                position, fixture.d_model, fixture.base, fixture.convention, 400, columns
            )
            expected = np.array(row)
            assert fixture.values[i].tobytes() == expected.tobytes(), (fixture.name, position)


def _tamper(directory: Path, name: str, row: int, column_index: int) -> tuple[float, float]:
    """Replace one value by its float64 neighbour, keeping the file well-formed."""
    path = directory / name
    fixture = parse_fixture(name, path.read_bytes())
    values = fixture.values.copy()
    original = float(values[row, column_index])
    values[row, column_index] = np.nextafter(original, np.inf)
    path.write_bytes(render_fixture(dataclasses.replace(fixture, values=values)))
    return original, float(values[row, column_index])


@pytest.mark.slow
def test_verify_reports_a_tampered_value(
    copy_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(["golden", "verify", "--fixtures", str(copy_dir)]) == 0
    capsys.readouterr()
    original, tampered = _tamper(copy_dir, "d64-L128.json", 5, 7)
    assert cli_main(["golden", "verify", "--fixtures", str(copy_dir)]) == 1
    out = capsys.readouterr().out
    assert "d64-L128.json: SHA-256 differs" in out
    assert (
        f"wrong value: d64-L128.json: position 5, column 7: stored {tampered!r} "
        f"({tampered.hex()}), certified {original!r} ({original.hex()})"
    ) in out
    assert "1 wrong value(s)" in out


@pytest.mark.slow
def test_verify_reports_a_value_tampered_even_with_a_fixed_manifest(
    copy_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _tamper(copy_dir, "convention-fairseq.json", 3, 0)
    files = {p.name: p.read_bytes() for p in copy_dir.glob("*.json")}
    lines = [f"{hashlib.sha256(files[n]).hexdigest()}  {n}\n" for n in sorted(files)]
    (copy_dir / MANIFEST).write_text("".join(lines), encoding="ascii")
    assert cli_main(["golden", "verify", "--fixtures", str(copy_dir)]) == 1
    out = capsys.readouterr().out
    assert "SHA-256" not in out
    assert "wrong value: convention-fairseq.json: position 3, column 0" in out


@pytest.mark.slow
def test_bad_checksum_is_reported_and_blocks_loading(
    copy_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = (copy_dir / MANIFEST).read_text(encoding="ascii")
    line = next(x for x in manifest.splitlines() if x.endswith("  base-1e5-d128.json"))
    flipped = ("0" if line[0] != "0" else "1") + line[1:]
    (copy_dir / MANIFEST).write_text(manifest.replace(line, flipped), encoding="ascii")
    assert cli_main(["golden", "verify", "--fixtures", str(copy_dir)]) == 1
    assert "base-1e5-d128.json: SHA-256 differs from MANIFEST" in capsys.readouterr().out
    with pytest.raises(FixtureError, match=r"base-1e5-d128\.json"):
        load_fixture_sets(copy_dir)


def test_inconsistent_decimal_and_hex_is_rejected(copy_dir: Path) -> None:
    path = copy_dir / "tiny-d4-L3.json"
    text = path.read_text(encoding="ascii").replace("0.8414709848078965", "0.8414709848078966")
    with pytest.raises(
        FixtureError,
        match=re.escape("tiny-d4-L3.json: position 1, column 0: decimal 0.8414709848078966"),
    ):
        parse_fixture("tiny-d4-L3.json", text.encode("ascii"))
    with pytest.raises(FixtureError, match=re.escape("tiny-d4-L3.json: not valid ASCII JSON")):
        parse_fixture("tiny-d4-L3.json", b"{")


@pytest.mark.slow
def test_regenerate_is_atomic_when_interrupted(tmp_path: Path) -> None:
    target = tmp_path / "golden"
    small = CATALOG[:3]
    regenerate(target, small)
    before = {p.name: p.read_bytes() for p in target.iterdir()}
    assert set(before) == {*(f"{s.name}.json" for s in small), MANIFEST, PROVENANCE}

    def interrupt(spec: object) -> None:
        if spec is small[1]:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        regenerate(target, small, interrupt)
    assert {p.name: p.read_bytes() for p in target.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["golden"]  # no leftovers
    assert len(load_fixture_sets(target)) == 3


@pytest.mark.slow
def test_export_round_trips_without_pickle(
    shipped: list[FixtureSet], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("pickle must never be used")

    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    loaded = load_fixture_sets()
    assert [f.name for f in loaded] == [f.name for f in shipped]
    subset = [f for f in loaded if f.name in {"tiny-d4-L3", "fractional-d64", "large-d2048"}]
    assert cli_main(["golden", "export", "--format", "npz", str(tmp_path / "npz")]) == 0
    assert cli_main(["golden", "export", "--format", "csv", str(tmp_path / "csv")]) == 0
    exported = [p.name for p in (tmp_path / "npz").glob("*.npz")]
    absolute = [n for n in exported if not n.startswith(("rope-", "multiaxis-", "fourier-"))]
    assert len(absolute) == len(shipped)
    assert len([n for n in exported if n.startswith("rope-")]) == len(ROPE_PRESETS)  # SPEC §8.6
    from pespec.multiaxis.rope.presets import PRESETS as MROPE_PRESETS
    from pespec.multiaxis.sinusoidal.presets import PRESETS as MULTIAXIS_PRESETS

    multi = [n for n in exported if n.startswith("multiaxis-")]  # R9.7, R9.14: one per preset
    assert len(multi) == len(MULTIAXIS_PRESETS) + len(MROPE_PRESETS)
    for fixture in subset:
        with np.load(tmp_path / "npz" / f"{fixture.name}.npz", allow_pickle=False) as data:
            assert data["values"].tobytes() == fixture.values.tobytes()
            assert data["positions"].tobytes() == fixture.positions.tobytes()
            assert data["columns"].tolist() == fixture.columns.tolist()
            assert int(data["d_model"]) == fixture.d_model
            assert float(data["base"]) == fixture.base
            assert json.loads(str(data["convention"])) == {
                k: v for k, v in sorted(fixture.convention.to_dict().items())
            }
        with open(tmp_path / "csv" / f"{fixture.name}.csv", newline="") as handle:
            rows = list(csv.reader(handle))
        assert rows[0] == ["position", *(str(c) for c in fixture.columns.tolist())]
        positions = np.array([float(r[0]) for r in rows[1:]])
        values = np.array([[float(v) for v in r[1:]] for r in rows[1:]])
        assert np.array_equal(positions, fixture.positions.astype(np.float64))
        assert values.tobytes() == fixture.values.tobytes()
    with pytest.raises(ValueError, match="file_format must be one of"):
        export_fixture_sets(subset, tmp_path, "pickle")
