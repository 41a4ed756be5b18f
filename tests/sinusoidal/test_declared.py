"""Conformance to a declared convention (SPEC §6.1): the verdict against the convention a
backend declares, its statement in every report form, and the diagnosis of a wrong one.

Expected outcomes are fixed by construction: catalog/ports.py holds a correct float32 port
of Whisper's published formula and five ports that each change one thing (layout, shift,
offset, bfloat16 positions, float16 arithmetic); each must fail its declared convention
with a diagnosis naming that one thing, and the correct port must pass.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from catalog import ports
from numpy.typing import NDArray
from paths import CATALOG

from pespec.cli import main
from pespec.conformance import check
from pespec.conformance.report import REPORT_SCHEMA_VERSION
from pespec.sinusoidal.properties.registry import PROPERTIES
from pespec.sinusoidal.reference.conventions import PRESETS, TIMESTEP_PRESETS, Convention, preset
from pespec.sinusoidal.reference.encoding import encode

GOLDEN_ONLY: dict[str, Any] = {"stages": ("contract", "golden")}


@pytest.mark.slow
def test_correct_whisper_port_is_conformant_to_whisper_in_the_default_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = f"{CATALOG / 'ports.py'}:whisper_port"
    out_json, out_md = tmp_path / "r.json", tmp_path / "r.md"
    code = main(
        ["check", spec, "--convention", "whisper", "--json", str(out_json),
         "--markdown", str(out_md)]
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0
    assert "CONFORMANT at level float32, convention whisper (declared)" in printed
    doc = json.loads(out_json.read_text())
    assert doc["schema_version"] == REPORT_SCHEMA_VERSION == "1.5"
    assert doc["convention"] == {**PRESETS["whisper"].to_dict(), "declared": True}
    assert "convention `whisper` (declared)" in out_md.read_text()
    checks = {c["id"]: c for c in doc["checks"]}
    assert checks["golden:convention-whisper"]["status"] == "passed"
    assert checks["golden:timesteps"]["status"] == "passed"
    assert "certified by the oracle for convention 'whisper'" in checks["golden:d64-L128"]["title"]
    assert doc["backend_calls"]["suite_calls"] > 0
    assert all(checks[f"property:{name}"]["status"] == "passed" for name in PROPERTIES)


def test_the_same_port_is_not_canonical() -> None:
    report = check(ports.whisper_port, **GOLDEN_ONLY)
    assert not report.conformant
    assert report.to_dict()["convention"]["declared"] is False
    assert "matches the tensor2tensor/whisper/diffusers convention" in str(
        report.diagnosis_sentence
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "diagnosis"),
    [
        ("wrong_layout", "interleaved sin/cos, ω_k = base^(−k/(d/2−1))), not the declared whisper"),
        ("shift_zero", "Output computes the marian convention"),
        ("offset_two", "Output computes the fairseq convention"),
        ("bfloat16_timesteps", "timesteps rounded to bfloat16 before the embedding"),
        ("float16_angles", "angles computed in float16 at every stage"),
    ],
)
def test_each_port_bug_fails_whisper_with_its_diagnosis(name: str, diagnosis: str) -> None:
    report = check(getattr(ports, name), convention="whisper", **GOLDEN_ONLY)
    assert not report.conformant
    assert report.failed[0].stage == "golden"
    sentence = str(report.diagnosis_sentence)
    assert diagnosis in sentence, sentence
    if name == "float16_angles":
        assert "timesteps rounded" not in sentence  # the positions' rounding is part of it
    assert report.diagnosis is not None
    assert report.diagnosis["declared"]["name"] == "whisper"


@pytest.mark.slow
def test_convention_from_a_json_file_and_from_the_capabilities(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({**PRESETS["whisper"].to_dict(), "name": "my-port"}))
    by_file = check(ports.whisper_port, convention=str(path), **GOLDEN_ONLY)
    assert by_file.conformant
    assert by_file.convention is not None and by_file.convention["name"] == "my-port"

    def declared(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        return ports.whisper_port(positions, d_model, base)

    declared.pespec_capabilities = {"convention": "whisper"}  # type: ignore[attr-defined]
    by_caps = check(declared, **GOLDEN_ONLY)
    assert by_caps.conformant
    assert "convention whisper (declared)" in by_caps.summary()
    # the argument wins over the capability: judged against marian, the port fails
    assert not check(declared, convention="marian", **GOLDEN_ONLY).conformant


def test_bad_convention_arguments_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = f"{CATALOG / 'ports.py'}:whisper_port"
    assert main(["check", spec, "--convention", "whisperr", "--quiet"]) == 2
    assert "'whisperr'" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"layout": "diagonal"}')
    assert main(["check", spec, "--convention", str(bad), "--quiet"]) == 2
    assert "bad.json" in capsys.readouterr().err
    with pytest.raises(ValueError, match="convention"):
        check(ports.whisper_port, convention="nope")


def _reference(convention: Convention) -> Any:
    """The exact reference at ``convention``, rounded once to float32: a conformant backend."""

    def backend(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float32]:
        return encode(positions, d_model, base=base, convention=convention).astype(np.float32)

    backend.pespec_capabilities = {"max_position": 2.0**31}  # type: ignore[attr-defined]
    return backend  # (the exact reference's domain of SPEC Annex C.2 with room for o)


ALL_PRESETS = {**PRESETS, **TIMESTEP_PRESETS}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(ALL_PRESETS))
def test_every_property_runs_for_every_preset(name: str) -> None:
    """Each property of §5 is checked for each preset (applicable), or says why not."""
    report = check(_reference(ALL_PRESETS[name]), convention=name, stages=("property",), examples=4)
    results = {c.id.partition(":")[2]: c for c in report.checks}
    assert list(results) == list(PROPERTIES)
    for prop, result in results.items():
        assert result.status == "passed", (prop, result.message)
        applicable = result.details["applicable"]
        if prop == "low_precision":
            assert applicable is False
            assert "§5.7" in result.details["reason"]
        else:
            assert applicable is True, prop


@pytest.mark.slow
def test_a_backend_of_another_convention_fails_the_properties_of_the_declared_one() -> None:
    report = check(
        _reference(PRESETS["marian"]),
        convention="whisper",
        stages=("property",),
        examples=4,
        diagnose=False,
    )
    assert report.get("property:accuracy").status == "failed"


@pytest.mark.slow
def test_bfloat16_timesteps_in_a_diffusion_pipeline_are_named() -> None:
    """A pipeline casting timesteps to bfloat16 before diffusers-unet's embedding (937 → 936,
    998.39 → 1000) is non-conformant at float32; the diagnosis says where the rounding is."""
    exact = _reference(preset("diffusers-unet"))

    def pipeline(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float32]:
        t = np.asarray(positions, dtype=np.float64).astype(ml_dtypes.bfloat16)
        return exact(t.astype(np.float64), d_model, base)

    report = check(pipeline, convention="diffusers-unet", **GOLDEN_ONLY)
    assert report.get("golden:timesteps").status == "failed"
    assert "timesteps rounded to bfloat16 before the embedding" in str(report.diagnosis_sentence)
    assert "angles are computed in bfloat16" not in str(report.diagnosis_sentence)


@pytest.mark.slow
def test_reproductions_of_a_declared_convention_compare_with_it() -> None:
    from pespec.conformance import reproduce

    report = check(ports.shift_zero, convention="whisper", diagnose=False, **GOLDEN_ONLY)
    failed = report.failed[0]
    assert failed.reproduction is not None and "convention='whisper'" in failed.reproduction
    assert failed.worst_position is not None and failed.worst_column is not None
    d_model = 128 if failed.id.endswith("d128") else None
    assert d_model is not None, failed.id  # the first canonical set is a d = 128 one

    def judged(convention: str) -> dict[str, object]:
        return reproduce(
            ports.shift_zero,
            [failed.worst_position],
            d_model,
            100.0 if "base-100" in failed.id else 10000.0,
            column=failed.worst_column,
            level="float32",
            convention=convention,
            echo=False,
        )[0]

    row = judged("whisper")
    assert row["abs_error"] == failed.max_error
    assert not row["within_bound"]
    # judged against marian, which shift_zero computes, the same element is within its bound
    assert judged("marian")["within_bound"]


@pytest.mark.slow
def test_the_plugin_judges_the_declared_convention(tmp_path: Path) -> None:
    from pluginrun import run_plugin

    spec = f"{CATALOG / 'ports.py'}:whisper_port"
    out = tmp_path / "plugin.json"
    passed = run_plugin(
        spec, "--pe-convention", "whisper", "--pe-stages", "contract,golden", "--pe-json", str(out)
    )
    assert passed.returncode == 0, passed.stdout[-2000:]
    assert json.loads(out.read_text())["convention"]["name"] == "whisper"
    failed = run_plugin(spec, "--pe-convention", "marian", "--pe-stages", "contract,golden")
    assert failed.returncode == 1, failed.stdout[-2000:]


def test_position_rounding_probe_sees_only_rounded_positions() -> None:
    from pespec.sinusoidal.diagnosis.rounding import position_rounding

    exact = _reference(PRESETS["whisper"])

    def rounded(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float32]:
        return exact(
            np.asarray(positions).astype(ml_dtypes.bfloat16).astype(np.float64), d_model, base
        )

    def constant(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float32]:
        return np.zeros((len(positions), d_model), dtype=np.float32)

    kw: dict[str, Any] = {"d_model": 64, "base": 10000.0, "integer_positions_only": False}
    assert position_rounding(rounded, max_position=None, **kw) == "bfloat16"
    assert position_rounding(rounded, max_position=1.0, **kw) == "bfloat16"  # Flux's t ∈ [0, 1]
    assert position_rounding(exact, max_position=None, **kw) is None
    assert position_rounding(constant, max_position=None, **kw) is None

    def table(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float32]:
        return exact(np.trunc(np.asarray(positions, dtype=np.float64)), d_model, base)

    for top in (None, 1.0, 5000.0):  # a table indexed by position.long() rounds to integers
        assert position_rounding(table, max_position=top, **kw) is None
