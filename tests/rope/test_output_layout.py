"""The output layout as part of a declared configuration (issue 26, item 2; SPEC §8.2).

mlx-lm runs DeepSeek-V3 with pairs interleaved in the input and the outputs written
interleaved (``mlx_lm/models/deepseek_v3.py``: ``mx.fast.rope(..., traditional=True)``);
transformers reads the same pairs and writes the outputs as halves. Both give the same
attention scores (q and k permuted alike), so each is right once its layout is declared: the
port below is CONFORMANT with ``output_layout="interleaved"`` and, undeclared, NON-CONFORMANT
with a diagnosis that names the permutation and the declaration to make.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from clirun import run_cli

from pespec.rope import PRESETS, RopeCapabilities, RopeConfig, check, oracle
from pespec.rope.diagnosis import diagnose
from pespec.rope.diagnosis.examples import numpy_backend
from pespec.rope.golden import fixture_for
from pespec.rope.reference import rotate

DEEPSEEK = PRESETS["DeepSeek-V3"]  # pairing interleaved_in_halves_out, as config.json reads
DECLARED = dataclasses.replace(DEEPSEEK, output_layout="interleaved")
# mlx-lm's DeepSeek-V3 in float32: pairs (2j, 2j+1) read and written back in place.
MLX_PORT = numpy_backend(np.float32, pairing="interleaved")
# transformers' DeepSeek-V3 in float32: pairs (2j, 2j+1) read, outputs written as halves.
HF_PORT = numpy_backend(np.float32, pairing="interleaved_in_halves_out")
MAX_POSITION = 65536


def test_interleaved_out_port_fails_undeclared_and_the_permutation_is_named() -> None:
    report = check(MLX_PORT, DEEPSEEK, level="float32", max_position=MAX_POSITION)
    assert not report.conformant
    result = diagnose(MLX_PORT, DEEPSEEK)
    expected = (
        "output written as interleaved pairs where the configuration says halves "
        "(declare output_layout='interleaved')"
    )
    assert result.causes == (expected,), result.sentence
    assert result.explained


def test_interleaved_out_port_is_conformant_when_declared() -> None:
    report = check(MLX_PORT, DECLARED, level="float32", max_position=MAX_POSITION)
    assert report.conformant, report.summary()
    assert "golden:rope-deepseek-v3" in [c.id for c in report.checks]  # the preset's fixture
    assert diagnose(MLX_PORT, DECLARED).causes == ()


def test_halves_out_port_fails_the_interleaved_declaration_and_is_named() -> None:
    report = check(HF_PORT, DECLARED, level="float32", max_position=MAX_POSITION)
    assert not report.conformant
    failed = {c.id for c in report.checks if c.status == "failed"}
    assert "golden:rope-deepseek-v3" in failed, report.summary()
    result = diagnose(HF_PORT, DECLARED)
    expected = (
        "output written as halves pairs where the configuration says interleaved "
        "(declare output_layout='halves')"
    )
    assert result.causes == (expected,), result.sentence


def test_halves_in_interleaved_out_is_declarable_and_diagnosed() -> None:
    llama = PRESETS["Llama-2-7B"]
    declared = dataclasses.replace(llama, output_layout="interleaved")
    assert check(numpy_backend(np.float32), declared, level="float32").conformant
    port = numpy_backend(np.float32, pairing="halves")  # writes halves whatever is declared
    assert not check(port, declared, level="float32", max_position=4096).conformant
    result = diagnose(port, declared)
    assert result.causes == (
        "output written as halves pairs where the configuration says interleaved "
        "(declare output_layout='halves')",
    ), result.sentence


def test_the_reference_output_is_the_permutation_and_nothing_else() -> None:
    """Same values, other places: the outputs of pair j go to (2j, 2j+1) instead of
    (j, j + d_r/2); the oracle agrees with the reference on the declared layout."""
    rng = np.random.default_rng(26)
    x = rng.standard_normal((5, DEEPSEEK.head_dim))
    positions = np.array([0, 1, 17, 4095, 65535])
    halves, interleaved = rotate(x, positions, DEEPSEEK), rotate(x, positions, DECLARED)
    half = DEEPSEEK.d_r // 2
    np.testing.assert_array_equal(interleaved[:, 0::2], halves[:, :half])
    np.testing.assert_array_equal(interleaved[:, 1::2], halves[:, half:])
    exact = oracle.rotate(x, positions, DECLARED)
    np.testing.assert_allclose(interleaved, exact, rtol=0, atol=1e-12)


def test_the_preset_fixture_is_moved_to_the_declared_layout() -> None:
    """The stored correctly rounded y values, in the declared places: equal bit for bit to the
    oracle's rotation for the declared configuration."""
    fixture = fixture_for(DECLARED)
    assert fixture is not None and fixture.config == DECLARED
    expected = oracle.rotate(fixture.x, fixture.positions, DECLARED)
    np.testing.assert_array_equal(fixture.y, expected)
    assert fixture_for(dataclasses.replace(DEEPSEEK, theta=20000.0)) is None


@pytest.mark.parametrize("value", ["Interleaved", "interleaved_in_halves_out", 1, ""])
def test_a_bad_output_layout_is_refused_with_the_allowed_values(value: object) -> None:
    with pytest.raises(ValueError) as info:
        RopeConfig(head_dim=64, output_layout=value)  # type: ignore[arg-type]
    text = str(info.value)
    assert "output_layout" in text and repr(value) in text
    assert "'halves'" in text and "'interleaved'" in text


def test_to_dict_round_trip_and_omission() -> None:
    assert "output_layout" not in DEEPSEEK.to_dict()
    assert DECLARED.to_dict()["output_layout"] == "interleaved"
    assert RopeConfig.from_dict(DECLARED.to_dict()) == DECLARED
    assert DECLARED != DEEPSEEK
    # a declaration equal to what the pairing implies is the configuration without it
    same = RopeConfig(head_dim=64, pairing="interleaved", output_layout="interleaved")
    assert same == RopeConfig(head_dim=64, pairing="interleaved")
    assert same.output_layout is None and "output_layout" not in same.to_dict()
    assert (DECLARED.input_pairing, DECLARED.output_pairing) == ("interleaved", "interleaved")
    assert (DEEPSEEK.input_pairing, DEEPSEEK.output_pairing) == ("interleaved", "halves")


def test_capabilities_configs_accept_the_field() -> None:
    caps = RopeCapabilities(configs=(DECLARED.to_dict(),))
    assert caps.supports(DECLARED) and not caps.supports(DEEPSEEK)


def test_cli_check_reads_the_field_from_a_config_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deepseek.json"
    path.write_text(json.dumps(DECLARED.to_dict()), encoding="utf-8")
    code, out, err = run_cli(
        ["rope", "check", "numpy", "--config", str(path), "--quiet", "--max-position", "4096"],
        capsys,
    )
    assert code == 0, out + err
    assert "CONFORMANT" in out.splitlines()[0]


def test_cli_output_layout_option_declares_it_on_a_preset(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["rope", "check", "numpy", "--config", "DeepSeek-V3", "--quiet"]
    code, out, err = run_cli(
        [*args, "--max-position", "4096", "--output-layout", "interleaved"], capsys
    )
    assert code == 0, out + err
    code, out, err = run_cli([*args, "--output-layout", "diagonal"], capsys)
    assert code == 2 and "Traceback" not in err
    assert "--output-layout" in err and "'diagonal'" in err


def test_pespec_check_family_rope_takes_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    code, out, err = run_cli(
        [
            "check",
            "numpy",
            "--family",
            "rope",
            "--config",
            "DeepSeek-V3",
            "--output-layout",
            "interleaved",
            "--max-position",
            "4096",
            "--quiet",
            "--json",
            str(report),
        ],
        capsys,
    )
    assert code == 0, out + err
    doc = json.loads(report.read_text(encoding="utf-8"))
    assert json.dumps(doc).count('"output_layout": "interleaved"') >= 1
