"""The clients of mlx, mlx-lm, torchtune, keras-hub, x-transformers, equinox, onnx and
onnxruntime (issue 29): coverage of the catalog, refusals before any import, and each
library's real entry point against independent values (each test skips when its library is
not installed; the CI's table pass installs them, the ``[table]`` extra).

Tolerances of the float32 checks: ω' within 4 ulp (pow/exp) and the product p·ω' rounded give
|Δφ| ≤ p·ω'·10u with ω' ≤ 1; cos/sin and the rotation add a few u per output, so
|Δy| ≤ (|a| + |b|)·u·(10·p + 6) with u = 2⁻²⁴ (SPEC §8.7's float32 level, loosened to one
bound for every pair).
"""

from __future__ import annotations

import json
import math
import os
import sys

import mpmath
import numpy as np
import pytest

from pespec.clients import CLIENTS, get_client
from pespec.clients.adapter_rows import occurrences
from pespec.clients.table import planned_rows
from pespec.clients.torchtune_clients import halves_to_pairs, pairs_to_halves
from pespec.conformance.host import to_host
from pespec.rope.presets import published_config, read_config
from pespec.rope.reference import rotate

os.environ.setdefault("KERAS_BACKEND", "jax")  # before any test imports keras (its clients' own)
U32 = 2.0**-24
POSITIONS = np.array([0, 1, 7, 1000, 4095, 7], dtype=np.int64)


def _x(head_dim: int) -> np.ndarray:
    """Rows of small integers / 8: exact in bfloat16 and float16."""
    rng = np.random.default_rng(29)
    return rng.integers(-8, 9, size=(POSITIONS.size, head_dim)).astype(np.float64) / 8


def _importorskip(module: str) -> None:
    """Skip without ``module``; for keras-hub, also when this process's keras already runs
    another backend (another test module imported it first; the table runs each row in its
    own process with KERAS_BACKEND=jax)."""
    pytest.importorskip(module)
    if module == "keras_hub":
        backend = sys.modules["keras"].backend.backend()
        if backend != "jax":
            pytest.skip(f"keras runs the {backend} backend in this process; these need jax")


def _assert_rotates(name: str, config: str, dtype: str = "float32") -> None:
    rope = read_config(config)
    x = _x(rope.head_dim)
    got = to_host(get_client(name).build(dtype, config)(x, POSITIONS, rope)).astype(np.float64)
    exact = rotate(x, POSITIONS, rope)
    tol = 2 * np.abs(x).max() * U32 * (10 * POSITIONS.max() + 6)
    assert got.shape == exact.shape
    np.testing.assert_allclose(got, exact, rtol=0, atol=tol)


def test_the_catalog_covers_ten_libraries_and_sixty_rows() -> None:
    libraries = {c.library for c in CLIENTS.values()}
    assert len(libraries) >= 10, sorted(libraries)
    assert len(planned_rows(CLIENTS.values())) >= 60


def test_occurrences_counts_earlier_rows_of_the_same_position() -> None:
    assert occurrences(np.array([5, 3, 5, 5, 0, 3])).tolist() == [0, 0, 1, 2, 0, 1]


def test_the_torchtune_permutation_moves_halves_pairs_to_consecutive_pairs() -> None:
    x = np.arange(8.0)[None]  # pairs (0, 4), (1, 5), (2, 6), (3, 7) in halves layout
    assert halves_to_pairs(x, 8).tolist() == [[0, 4, 1, 5, 2, 6, 3, 7]]
    assert pairs_to_halves(halves_to_pairs(x, 8), 8).tolist() == x.tolist()


@pytest.mark.parametrize(
    ("name", "config", "message"),
    [
        ("mlx:nn.RoPE", "Llama-3.1-8B", "rope_type 'llama3'"),
        ("mlx:fast.rope", "DeepSeek-V3", "interleaved_in_halves_out"),
        ("torchtune:RotaryPositionalEmbeddings", "gpt-oss-20b", "rope_type 'yarn'"),
        ("keras-hub:RotaryEmbedding", "GPT-J-6B", "interleaved pairs"),
        ("x-transformers:RotaryEmbedding", "Llama-2-7B", "halves pairs"),
        ("equinox:nn.RotaryPositionalEmbedding", "GPT-J-6B", "interleaved pairs"),
        ("onnx:RotaryEmbedding", "Qwen2.5-7B-Instruct", r"θ 1e\+06"),
        ("mlx-lm:llama", "Qwen2.5-7B-Instruct", "'qwen2' configuration"),
        ("diffusers:get_1d_rotary_pos_embed", "Llama-3.1-8B", "rope_type 'llama3'"),
    ],
)
def test_a_configuration_the_library_cannot_express_is_refused(
    name: str, config: str, message: str
) -> None:
    if name == "mlx-lm:llama":
        pytest.importorskip("mlx_lm")  # the model type is read before the library is called
    with pytest.raises(ValueError, match=message):
        get_client(name).build("float32", config)


@pytest.mark.parametrize(
    ("module", "name", "config"),
    [
        ("mlx.core", "mlx:nn.RoPE", "Llama-2-7B"),
        ("mlx.core", "mlx:nn.RoPE", "GPT-J-6B"),
        ("mlx.core", "mlx:fast.rope", "Gemma-3-4B global layers"),
        ("mlx_lm", "mlx-lm:llama", "Llama-3.1-8B"),
        ("mlx_lm", "mlx-lm:phi3", "Phi-3.5-mini-instruct-seq-len-131072"),
        ("torchtune", "torchtune:RotaryPositionalEmbeddings", "Llama-2-7B"),
        ("torchtune", "torchtune:RotaryPositionalEmbeddings", "GPT-J-6B"),
        ("torchtune", "torchtune:Llama3ScaledRoPE", "Llama-3.1-8B"),
        ("keras_hub", "keras-hub:RotaryEmbedding", "Gemma-3-4B global layers"),
        ("keras_hub", "keras-hub:RotaryEmbedding", "gpt-oss-20b"),
        ("x_transformers", "x-transformers:RotaryEmbedding", "GPT-J-6B"),
        ("equinox", "equinox:nn.RotaryPositionalEmbedding", "Llama-2-7B"),
        ("onnx", "onnx:RotaryEmbedding", "GPT-J-6B"),
        ("onnxruntime", "onnxruntime:RotaryEmbedding", "Llama-2-7B"),
        ("diffusers", "diffusers:get_1d_rotary_pos_embed", "GPT-J-6B"),
        ("diffusers", "diffusers:get_1d_rotary_pos_embed", "Gemma-3-4B global layers"),
    ],
)
def test_the_real_entry_point_rotates_as_the_reference(module: str, name: str, config: str) -> None:
    _importorskip(module)
    _assert_rotates(name, config)


def test_mlx_lm_bfloat16_rows_come_back_in_bfloat16() -> None:
    pytest.importorskip("mlx_lm")
    rope = read_config("Llama-2-7B")
    out = get_client("mlx-lm:llama").build("bfloat16", "Llama-2-7B")(
        _x(rope.head_dim), POSITIONS, rope
    )
    assert str(to_host(out).dtype) == "bfloat16"


@pytest.mark.parametrize(
    ("module", "name", "exact"),
    [
        (  # mlx: [sin(p·σ_k), cos(p·σ_k)]·√(2/d), σ_k = 10^(−4·k/(d/2 − 1))
            "mlx.core",
            "mlx:nn.SinusoidalPositionalEncoding",
            lambda p, k, d: (
                mpmath.sin(p * mpmath.mpf(10) ** (-4 * mpmath.mpf(k) / (d // 2 - 1))),
                mpmath.cos(p * mpmath.mpf(10) ** (-4 * mpmath.mpf(k) / (d // 2 - 1))),
                mpmath.sqrt(mpmath.mpf(2) / d),
                "halves",
            ),
        ),
        (  # keras-hub: PE[2k] = sin(p/10000^(2k/d)), PE[2k + 1] = cos(·) (canonical)
            "keras_hub",
            "keras-hub:SinePositionEncoding",
            lambda p, k, d: (
                mpmath.sin(p / mpmath.mpf(10000) ** (mpmath.mpf(2 * k) / d)),
                mpmath.cos(p / mpmath.mpf(10000) ** (mpmath.mpf(2 * k) / d)),
                mpmath.mpf(1),
                "interleaved",
            ),
        ),
    ],
)
def test_the_sinusoidal_entry_points_match_mpmath(module: str, name: str, exact: object) -> None:
    _importorskip(module)
    d, positions = 64, np.array([0, 3, 100, 2047])
    got = np.asarray(to_host(get_client(name).build("float32", None)(positions, d, 10000.0)))
    for row, p in enumerate(positions):
        for k in range(d // 2):
            s, c, scale, layout = exact(int(p), k, d)  # type: ignore[operator]
            at = (k, k + d // 2) if layout == "halves" else (2 * k, 2 * k + 1)
            tol = U32 * (10 * int(p) + 6)  # the float32 phase bound of the module docstring
            assert abs(got[row, at[0]] - float(s * scale)) <= tol
            assert abs(got[row, at[1]] - float(c * scale)) <= tol


def _yarn_omega(truncate: bool) -> list[mpmath.mpf]:
    """ω_j of gpt-oss-20b's YaRN (published config.json: d 64, θ 150000, s 32, L0 4096,
    β 32/1), transcribed in mpmath from the YaRN paper / transformers'
    ``_compute_yarn_parameters``: the ramp bounds floored/ceiled only when ``truncate``."""
    mpmath.mp.dps = 40
    d, theta, s, l0 = 64, mpmath.mpf(150000), mpmath.mpf(32), mpmath.mpf(4096)

    def bound(rotations: int) -> mpmath.mpf:
        return d * mpmath.log(l0 / (rotations * 2 * mpmath.pi)) / (2 * mpmath.log(theta))

    low, high = bound(32), bound(1)
    if truncate:
        low, high = mpmath.floor(low), mpmath.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    omega = []
    for j in range(d // 2):
        ramp = min(max((j - low) / (high - low), 0), 1)  # 1 − the extrapolation factor
        extrapolated = theta ** (-mpmath.mpf(2 * j) / d)
        omega.append(extrapolated / s * ramp + extrapolated * (1 - ramp))
    return omega


def test_mlx_lm_yarn_floors_the_ramp_where_gpt_oss_says_truncate_false() -> None:
    """The cause of the mlx-lm:gpt_oss rows (NON-CONFORMANT): mlx-lm's ``YarnRoPE`` takes no
    ``truncate`` and always floors/ceils the correction range; gpt-oss-20b's config.json says
    ``"truncate": false``. Its frequencies match the truncated mpmath schedule to float32 and
    miss the configured one by far more than any rounding."""
    mx = pytest.importorskip("mlx.core")
    from pespec.clients.mlx_clients import mlx_lm_rotary

    data = json.loads(published_config("gpt-oss-20b").read_text(encoding="utf-8"))
    assert data["rope_scaling"]["truncate"] is False
    rotary = mlx_lm_rotary("gpt_oss", data)
    periods = np.array(rotary._freqs.astype(mx.float32), dtype=np.float64)
    library = 1.0 / periods  # mx.fast.rope's freqs are periods 1/ω
    truncated, configured = _yarn_omega(True), _yarn_omega(False)
    for j, omega in enumerate(library):
        assert abs(omega - float(truncated[j])) <= 8 * U32 * float(truncated[j])
    worst = max(abs(float(t - c)) / float(c) for t, c in zip(truncated, configured, strict=True))
    assert worst > 0.05  # up to tens of percent in the ramp: a schedule, not a rounding
    # and the rotation itself, in the pair whose phase the two schedules move most apart
    rope, p = read_config("gpt-oss-20b"), 131071
    j = int(np.argmax([abs(float(t - c)) for t, c in zip(truncated, configured, strict=True)]))
    x = np.zeros((1, 64))
    x[0, j] = 1.0
    backend = get_client("mlx-lm:gpt_oss").build("float32", "gpt-oss-20b")
    y = to_host(backend(x, np.array([p]), rope))[0]
    attention = 0.1 * math.log(32) + 1  # mscale, as transformers and mlx-lm both apply it
    tol = 2 * attention * U32 * (10 * p * float(truncated[j]) + 6)  # the float32 bound above

    def miss(omega: mpmath.mpf) -> float:
        phase = p * omega
        return abs(y[j] - attention * float(mpmath.cos(phase))) + abs(
            y[j + 32] - attention * float(mpmath.sin(phase))
        )

    assert miss(truncated[j]) <= tol
    assert miss(configured[j]) > 100 * tol


def _halves_or_pairs(row: np.ndarray, k: int, d: int, layout: str) -> tuple[float, float]:
    at = (k, k + d // 2) if layout == "halves" else (2 * k, 2 * k + 1)
    return float(row[at[0]]), float(row[at[1]])


@pytest.mark.parametrize(
    ("name", "offset", "shift", "layout"),
    [  # fairseq: ω_k = 10^4^(−k/(d/2 − 1)) at row p + 2; Marian/CTRL: ω_k = 10^4^(−2k/d) halves;
        # DistilBERT: the same ω interleaved (Vaswani et al. §3.5)
        ("transformers:fsmt", 2, 1, "halves"),
        ("transformers:speech_to_text", 2, 1, "halves"),
        ("transformers:xglm", 2, 1, "halves"),
        ("transformers:trocr", 2, 1, "halves"),
        ("transformers:pegasus", 0, 0, "halves"),
        ("transformers:ctrl", 0, 0, "halves"),
        ("transformers:distilbert", 0, 0, "interleaved"),
    ],
)
def test_more_transformers_tables_match_mpmath(
    name: str, offset: int, shift: int, layout: str
) -> None:
    pytest.importorskip("transformers")
    d, positions = 64, np.array([0, 3, 100, 255])
    got = to_host(get_client(name).build("float32", None)(positions, d, 10000.0))
    for row, p in enumerate(positions):
        for k in range(d // 2):
            omega = mpmath.mpf(10000) ** (-mpmath.mpf(k) / (d // 2 - shift))
            angle = (int(p) + offset) * omega
            s, c = _halves_or_pairs(got[row], k, d, layout)
            tol = U32 * (10 * (int(p) + offset) + 6)  # the float32 phase bound above
            assert abs(s - float(mpmath.sin(angle))) <= tol
            assert abs(c - float(mpmath.cos(angle))) <= tol


def test_equinox_rotary_cache_ignores_theta() -> None:
    """A library finding, a row of the table since issue 36
    (``equinox:nn.RotaryPositionalEmbedding-second-theta`` Llama-2-7B after Qwen2.5-7B-Instruct,
    NON-CONFORMANT "θ measured 1e6"): equinox 0.13.8's ``RotaryPositionalEmbedding`` caches its
    cos/sin table by (embedding_size, dtype) only, so a second module with another θ (Gemma 3's
    local θ = 10⁴ and global θ = 10⁶ layers, both head_dim 256) rotates with the first one's
    table. mpmath values of both θ decide which."""
    eqx = pytest.importorskip("equinox")
    jnp = pytest.importorskip("jax.numpy")
    from importlib.metadata import version

    if version("equinox") != "0.13.8":
        pytest.skip("the finding is pinned to equinox 0.13.8")
    x = jnp.zeros((8, 64)).at[:, 1].set(1.0)  # pair 1 (features 1, 33) at positions 0 … 7
    eqx.nn.RotaryPositionalEmbedding(64, theta=1e4, dtype=jnp.float32)(x)
    second = np.asarray(eqx.nn.RotaryPositionalEmbedding(64, theta=1e6, dtype=jnp.float32)(x))
    p = 7
    for theta, used in ((1e4, True), (1e6, False)):
        angle = p * mpmath.mpf(theta) ** (mpmath.mpf(-2) / 64)
        close = bool(abs(second[p, 1] - float(mpmath.cos(angle))) <= U32 * (10 * p + 6))
        assert close is used


def test_mlx_lm_suscaled_rope_keeps_the_long_factors_at_every_length() -> None:
    """A library finding, rows of the table (``mlx-lm:phi3`` Phi-3.5-mini-instruct-seq-len-4096,
    NON-CONFORMANT "LongRoPE's long_factor used at ℓ = 4096"; issue 36): mlx-lm's
    ``SuScaledRoPE`` stores ``long_factor · θ^(2j/d)`` as its only frequencies, so a context of
    ℓ ≤ L0 = 4096 is rotated with the long factors where LongRoPE takes the short ones. mpmath
    decides which factors its periods are: each within float32 rounding of the long-factor
    value, and far from the short-factor one wherever the two factors differ."""
    pytest.importorskip("mlx.core")
    from pespec.clients.mlx_clients import mlx_lm_rotary

    data = json.loads(published_config("phi-3.5-mini-instruct").read_text(encoding="utf-8"))
    rotary = mlx_lm_rotary("phi3", data)
    periods = np.array(rotary._freqs.tolist(), dtype=np.float64)  # 1/ω_j as mlx-lm holds them
    block, d = data["rope_scaling"], 96
    theta = mpmath.mpf(data.get("rope_theta", 10000.0))
    with mpmath.workprec(200):
        for j, period in enumerate(periods):
            base = theta ** (mpmath.mpf(2 * j) / d)
            long, short = (
                base * mpmath.mpf(block["long_factor"][j]),
                base * block["short_factor"][j],
            )
            assert abs(period / long - 1) <= 4 * U32  # pow, product: a few float32 roundings
            if block["long_factor"][j] != block["short_factor"][j]:
                assert abs(period / short - 1) > 1e-3


@pytest.mark.slow
def test_mlx_lm_dynamic_as_a_prefill_follows_the_call() -> None:
    """mlx-lm's DynamicNTKScalingRoPE takes ℓ = max(T + offset, L0) from its call (issue 36's
    row ``mlx-lm:llama-prefill``): CONFORMANT per call (calls inside and beyond L0 = 4096),
    NON-CONFORMANT against one fixed ℓ (its calls of T ≤ L0 keep θ)."""
    pytest.importorskip("mlx.core")
    from pespec.rope import check
    from pespec.rope.presets import load_config

    client = get_client("mlx-lm:llama-prefill")
    config = "Llama-2-7B-dynamic-4-per-call"
    report = check(client.build("float32", config), load_config(config).config, diagnose=False)
    assert report.conformant, report.summary()
    fixed = load_config("Llama-2-7B-dynamic-4-seq-len-16384").config
    assert not check(client.build("float32", config), fixed, diagnose=False).conformant
