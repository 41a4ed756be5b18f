"""Attention-score conformance (issue 26 item 3; SPEC R8.14, Annex A.9; pespec.rope.scores).

The exact scores agree with an independent mpmath computation at 400 bits (R(m)q and R(n)k
rotated separately, no relative-position identity); a backend that permutes its outputs alike
for q and k (mlx-lm's DeepSeek-V3, interleaved out where the configuration says halves) is
NON-CONFORMANT in element mode with the permutation named and CONFORMANT in score mode; correct
casts pass score mode (the bound is sound); a wrong θ, a wrong input pairing and a float16
cache fail it.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import mpmath
import numpy as np
import pytest
import rope_implementations as impl
from clirun import run_cli
from pluginrun import run_plugin
from rope_mpmath import mp_schedule

from pespec.rope import PRESETS, RopeConfig, check, frequencies
from pespec.rope.diagnosis.examples import numpy_backend
from pespec.rope.errormodel import rope_level_for_dtype
from pespec.rope.inputs import SUITE_HALF, rotary_x
from pespec.rope.scores import (
    check_mode,
    exact_scores,
    reference_error,
    score_bound,
    score_plan,
)

DEEPSEEK = PRESETS["DeepSeek-V3"]  # interleaved pairs in, halves out (its config.json)
MLX_PORT = numpy_backend(np.float32, pairing="interleaved")  # interleaved in and out
CLAIM = "q·k scores conform; the element layout was not judged"
PAIRS = np.array([[0, 0], [5, 3], [3, 5], [4095, 17], [65536, 1], [131071, 0], [7, 100_000]])


def _mp_pairs(config: RopeConfig) -> list[tuple[int, int]]:
    """Input column indices (a_j, b_j), written from SPEC §8.1 (not pespec's pair_views)."""
    half = config.d_r // 2
    if config.input_pairing == "interleaved":
        return [(2 * j, 2 * j + 1) for j in range(half)]
    return [(j, j + half) for j in range(half)]


def _mp_score(q: np.ndarray, k: np.ndarray, m: int, n: int, config: RopeConfig) -> mpmath.mpf:
    """⟨R(m)q, R(n)k⟩ at the current mpmath precision, each vector rotated at its own position
    (the output layout does not change a dot product taken in one layout)."""
    omega, big_a = mp_schedule(config)
    total = mpmath.mpf(0)
    for j, (ia, ib) in enumerate(_mp_pairs(config)):
        qa, qb, ka, kb = (mpmath.mpf(float(v)) for v in (q[ia], q[ib], k[ia], k[ib]))
        cm, sm = mpmath.cos(m * omega[j]), mpmath.sin(m * omega[j])
        cn, sn = mpmath.cos(n * omega[j]), mpmath.sin(n * omega[j])
        ya_q, yb_q = big_a * (qa * cm - qb * sm), big_a * (qa * sm + qb * cm)
        ya_k, yb_k = big_a * (ka * cn - kb * sn), big_a * (ka * sn + kb * cn)
        total += ya_q * ya_k + yb_q * yb_k
    for i in range(config.d_r, config.head_dim):
        total += mpmath.mpf(float(q[i])) * mpmath.mpf(float(k[i]))
    return total


@pytest.mark.parametrize(
    "config",
    [
        PRESETS["Llama-2-7B"],
        DEEPSEEK,
        PRESETS["gpt-oss-20b"],
        RopeConfig(head_dim=16, rotary_dim=8, theta=10000.0, pairing="interleaved"),
    ],
    ids=["llama2", "deepseek-yarn", "gpt-oss-yarn", "partial-interleaved"],
)
def test_exact_scores_agree_with_mpmath_at_400_bits(config: RopeConfig) -> None:
    q = rotary_x(PAIRS.shape[0], config.head_dim, seed=31, half=SUITE_HALF)
    k = rotary_x(PAIRS.shape[0], config.head_dim, seed=32, half=SUITE_HALF)
    got = exact_scores(q, k, PAIRS[:, 0], PAIRS[:, 1], config)
    allowed = reference_error(q, k, config)
    with mpmath.workprec(400):
        for r, (m, n) in enumerate(PAIRS.tolist()):
            expected = _mp_score(q[r], k[r], m, n, config)
            error = abs(mpmath.mpf(float(got[r])) - expected)
            assert error <= allowed[r], (config, m, n, float(error), allowed[r])
    scale = np.sum(np.abs(q * k), axis=1) + 1.0
    assert np.all(allowed < 2.0**-38 * scale * config.head_dim)  # the bound stays tiny


def test_exact_scores_refuse_fractional_positions() -> None:
    q = rotary_x(2, 8, seed=1, half=SUITE_HALF)
    with pytest.raises(ValueError, match="m must hold integer positions"):
        exact_scores(q, q, np.array([0.5, 1.0]), np.array([0, 1]), RopeConfig(head_dim=8))


def test_a_map_applied_alike_to_q_and_k_keeps_the_bound() -> None:
    """The bound is stated for the exact layout; the score of P·ŷ is the score of ŷ."""
    config = DEEPSEEK
    m, n = PAIRS[:, 0], PAIRS[:, 1]
    q = rotary_x(m.shape[0], config.head_dim, seed=3, half=SUITE_HALF)
    k = rotary_x(m.shape[0], config.head_dim, seed=4, half=SUITE_HALF)
    bound = score_bound(q, k, m, n, config, rope_level_for_dtype("float32"), "float32")
    yq, yk = MLX_PORT(q, m, config), MLX_PORT(k, n, config)
    got = np.sum(yq.astype(np.float64) * yk.astype(np.float64), axis=1)
    assert np.all(np.abs(got - exact_scores(q, k, m, n, config)) <= bound)


def test_interleaved_out_deepseek_fails_elements_with_the_permutation_and_passes_scores() -> None:
    elements = check(MLX_PORT, DEEPSEEK, level="float32", max_position=65536)
    assert not elements.conformant
    assert elements.to_dict()["mode"] == "elements"
    assert "output written as interleaved pairs where the configuration says halves" in str(
        elements.diagnosis_sentence
    ), elements.summary()
    scores = check(MLX_PORT, DEEPSEEK, level="float32", max_position=65536, mode="scores")
    assert scores.conformant, scores.summary()
    data = scores.to_dict()
    assert data["mode"] == "scores" and data["schema_version"] == "1.5"
    assert CLAIM in scores.summary()
    ids = [c.id for c in scores.checks]
    assert "scores:0..65536" in ids and not any(i.startswith("golden:") for i in ids)
    assert "property:r-zero" not in ids and "property:norm" not in ids


def test_the_score_plan_keeps_the_contract_and_the_layout_free_properties() -> None:
    from pespec.rope.suite import RopeRun

    run = RopeRun("numpy-float32", "Llama-2-7B")
    planned = [c.id for c in score_plan(run.plan())]
    assert planned[:5] == [c.id for c in run.plan()][:5]  # the contract as it is
    assert [i for i in planned if i.startswith("property:")] == [
        "property:relative-position",
        "property:linearity",
        "property:row-independence",
    ]


@pytest.mark.parametrize(
    ("backend", "preset"),
    [
        ("numpy", "Llama-3.1-8B"),
        ("numpy-float32", "gpt-oss-20b"),
        ("numpy-float32", "Phi-3.5-mini-instruct-seq-len-4096"),
        ("torch-bfloat16", "Llama-2-7B"),
        ("torch-float16", "DeepSeek-V3"),
    ],
)
def test_correct_backends_are_conformant_in_score_mode(backend: str, preset: str) -> None:
    if backend.startswith("torch"):
        pytest.importorskip("torch")
    report = check(backend, preset, mode="scores", diagnose=False)
    assert report.conformant, report.summary()


@pytest.mark.parametrize(
    "fn",
    [impl.gptj_numpy, impl.halves_float64],
    ids=["gptj-float32", "rotate-half-float64"],
)
def test_independent_stacks_are_conformant_in_score_mode(fn: object) -> None:
    config = PRESETS["Llama-2-7B"]
    if fn is impl.gptj_numpy:
        config = dataclasses.replace(config, pairing="interleaved")
    report = check(fn, config, mode="scores", diagnose=False)
    assert report.conformant, report.summary()


def test_the_same_orthogonal_map_on_q_and_k_passes_score_mode_only() -> None:
    """Negating every output (a sign that cancels in q·k) is no element conformance."""
    config = PRESETS["Llama-2-7B"]
    correct = numpy_backend(np.float32)

    def negated(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> np.ndarray:
        return -np.asarray(correct(x, positions, rope))

    assert check(negated, config, mode="scores", diagnose=False).conformant
    assert not check(negated, config, diagnose=False).conformant


def _float16_cache(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> np.ndarray:
    """A float32 stack whose cos/sin cache alone is float16 (issue 17's cache slip): its
    largest errors are at small positions, where the element bounds are small."""
    omega, big_a = frequencies(rope)
    phase = positions.astype(np.float32)[:, None] * omega.astype(np.float32)[None, :]
    cos = (np.cos(phase) * np.float32(big_a)).astype(np.float16).astype(np.float32)
    sin = (np.sin(phase) * np.float32(big_a)).astype(np.float16).astype(np.float32)
    xs = x.astype(np.float32)
    out = xs.copy()
    a, b = impl._pairs(xs, rope, output=False)
    ya, yb = impl._pairs(out, rope, output=True)
    ya[...], yb[...] = a * cos - b * sin, a * sin + b * cos
    return out


def _slips(config: RopeConfig) -> dict[str, object]:
    other = "interleaved" if config.input_pairing == "halves" else "halves"
    return {
        "theta x2": impl.bug_schedule(dataclasses.replace(config, theta=2 * config.theta)),
        "input pairing": impl.bug_pairing(config, other),
        "float16 cache": _float16_cache,
        "bfloat16 inverse frequencies": impl.bug_bf16_inv_freq(config),
    }


@pytest.mark.parametrize("preset", ["Llama-2-7B", "gpt-oss-20b"])
@pytest.mark.parametrize(
    "slip", ["theta x2", "input pairing", "float16 cache", "bfloat16 inverse frequencies"]
)
def test_slips_fail_score_mode(preset: str, slip: str) -> None:
    config = PRESETS[preset]
    report = check(_slips(config)[slip], config, mode="scores", diagnose=False)
    assert not report.conformant
    result = next(c for c in report.checks if c.id.startswith("scores:"))
    assert result.status == "failed", result.message
    assert result.details["max_ratio"] > 5, result.message


def test_a_wrong_schedule_fails_score_mode() -> None:
    config = PRESETS["Llama-3.1-8B"]  # llama3; the same frequencies without the rescaling
    plain = RopeConfig(head_dim=config.head_dim, theta=config.theta)
    report = check(impl.bug_schedule(plain), config, mode="scores", diagnose=False)
    result = next(c for c in report.checks if c.id.startswith("scores:"))
    assert result.status == "failed" and result.details["max_ratio"] > 5, result.message


@pytest.mark.parametrize("value", ["x", "Scores", None, 1])
def test_a_bad_mode_is_refused_naming_the_allowed_values(value: object) -> None:
    with pytest.raises(ValueError, match=r"mode must be one of elements, scores; got"):
        check_mode(value)
    with pytest.raises(ValueError, match="mode must be one of"):
        check("numpy", "Llama-2-7B", mode=value)  # type: ignore[arg-type]


def test_cli_mode_scores_and_a_bad_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_json = tmp_path / "r.json"
    args = ["rope", "check", "numpy-float32", "--config", "Llama-2-7B", "--quiet"]
    code, out, err = run_cli([*args, "--mode", "scores", "--json", str(out_json)], capsys)
    assert code == 0, out + err
    assert CLAIM in out
    assert json.loads(out_json.read_text())["mode"] == "scores"
    code, out, err = run_cli([*args, "--mode", "x"], capsys)
    assert code == 2 and out == ""
    assert err.strip() == (
        "pespec rope check: error: --mode must be one of elements, scores; got 'x'"
    )
    code, out, err = run_cli(["check", "--family", "rope", *args[2:], "--mode", "scores"], capsys)
    assert code == 0, out + err


def test_cli_mode_scores_does_not_apply_to_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "out.npy"
    np.save(saved, np.zeros((4, 128)))
    argv = ["rope", "check", "--from-file", str(saved), "--config", "Llama-2-7B"]
    code, _, err = run_cli([*argv, "--mode", "scores"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--mode scores does not apply to --from-file" in err


@pytest.mark.slow
def test_pytest_plugin_passes_mode_through(tmp_path: Path) -> None:
    options = ["--pe-family", "rope", "--pe-option", "config=Llama-2-7B"]
    written = tmp_path / "report.json"
    done = run_plugin(
        "numpy-float32", *options, "--pe-option", "mode=scores", "--pe-json", str(written)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(written.read_text())
    assert data["mode"] == "scores" and "scores:0..4095" in [c["id"] for c in data["checks"]]
    bad = run_plugin("numpy-float32", *options, "--pe-option", "mode=x")
    assert bad.returncode != 0 and "mode must be one of elements, scores" in bad.stdout + bad.stderr


@pytest.mark.slow
def test_pytest_plugin_rope_backend_takes_the_mode_option(tmp_path: Path) -> None:
    written = tmp_path / "report.json"
    command = [
        *("python", "-m", "pytest", "--pyargs", "pespec.conformance", "-q"),
        *("-p", "no:cacheprovider", "--pe-rope-backend", "numpy-float32"),
        *("--pe-rope-config", "Llama-2-7B", "--pe-option", "mode=scores"),
        *("--pe-json", str(written)),
    ]
    command[0] = sys.executable
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(written.read_text())["mode"] == "scores"
