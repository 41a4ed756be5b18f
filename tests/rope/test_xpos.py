"""xPos (SPEC §8.2, Annex J): the declaration, the scale oracle, the reference and its
bound, rotary-embedding-torch's ``use_xpos`` through the suite, and the diagnosis.

Expected values: an independent mpmath transcription at 400 bits written from
rotary-embedding-torch's formula (``scale = (arange(0, dim, 2) + 0.4·dim)/(1.4·dim)``,
``power = (t − len(t)//2)/scale_base``, queries × scale^power, keys × scale^(−power)) and
tests/rope_mpmath.py for ω'; the wrong ports are the real module with one parameter changed,
and the diagnosis must name that parameter.
"""

from __future__ import annotations

import dataclasses
import math

import mpmath
import numpy as np
import pytest
import rope_implementations as impl
from rope_mpmath import mp_schedule

from pespec.rope import RopeConfig, check
from pespec.rope import reference as ref
from pespec.rope.backends import RopeCapabilities
from pespec.rope.diagnosis import diagnose
from pespec.rope.domain import position_domain
from pespec.rope.properties import unplanned
from pespec.rope.xpos import pair_scales, reference_scale_error, scale_oracle
from pespec.sinusoidal.reference._oracle_mpmath import mpf_to_float

BITS = 400
QUERY = RopeConfig(head_dim=64, rotary_dim=32, pairing="interleaved", xpos_scale_base=512)
KEY = RopeConfig(
    head_dim=48,
    theta=500000.0,
    xpos_scale_base=100.5,
    xpos_gamma=0.5,
    xpos_center=7,
    xpos_role="key",
)
POSITIONS = np.array([0, 1, 7, 16, 1000, 4095, 30000], dtype=np.int64)


def mp_scales(positions: list[int], config: RopeConfig) -> list[list[mpmath.mpf]]:
    """σ_j(p) = ζ_j^(±(p − c)/b), ζ_j = (2j + γ·d)/((1 + γ)·d), transcribed at 400 bits."""
    mpf, d = mpmath.mpf, config.d_r
    gamma, base = mpf(config.xpos_gamma), mpf(config.xpos_scale_base)
    c = len(positions) // 2 if config.xpos_center is None else config.xpos_center
    sign = -1 if config.xpos_role == "key" else 1
    zeta = [(2 * j + gamma * d) / ((1 + gamma) * d) for j in range(d // 2)]
    return [[mpmath.power(z, sign * (p - c) / base) for z in zeta] for p in positions]


@pytest.mark.parametrize("config", [QUERY, KEY], ids=["query", "key"])
def test_scale_oracle_agrees_with_mpmath(config: RopeConfig) -> None:
    mpmath.mp.prec = BITS  # restored by the conftest fixture
    expected = mp_scales(POSITIONS.tolist(), config)
    got = scale_oracle(POSITIONS, config)
    assert got.tolist() == [[mpf_to_float(v) for v in row] for row in expected]


@pytest.mark.parametrize("config", [QUERY, KEY], ids=["query", "key"])
def test_reference_within_its_bound_of_mpmath(config: RopeConfig) -> None:
    mpmath.mp.prec = BITS
    sigma = mp_scales(POSITIONS.tolist(), config)
    exact_sigma = np.array([[float(v) for v in row] for row in sigma])
    err = np.abs(pair_scales(POSITIONS, config) - exact_sigma)
    assert np.all(err <= reference_scale_error(POSITIONS, config) * exact_sigma)
    omega, attention = mp_schedule(config)
    rng = np.random.default_rng(5)
    x = rng.integers(-127, 128, size=(POSITIONS.size, config.head_dim)) / 64.0
    want = x.copy()
    half = config.d_r // 2
    for row, p in enumerate(POSITIONS.tolist()):
        for j, w in enumerate(omega):
            ia, ib = (2 * j, 2 * j + 1) if config.pairing == "interleaved" else (j, j + half)
            a, b = mpmath.mpf(x[row, ia]), mpmath.mpf(x[row, ib])
            c, s = mpmath.cos(p * w), mpmath.sin(p * w)
            scale = attention * sigma[row][j]
            want[row, ia] = float(scale * (a * c - b * s))
            want[row, ib] = float(scale * (a * s + b * c))
    got = ref.rotate(x, POSITIONS, config)
    bound = ref.rotation_bound(x, config, POSITIONS) + np.spacing(np.abs(want)) / 2
    assert np.all(np.abs(got - want) <= bound)
    with pytest.raises(ValueError, match="positions must be given for an xPos"):
        ref.rotation_bound(x, config)


def test_score_depends_on_m_minus_n_only() -> None:
    # ⟨σ_q(m)R(m)q, σ_k(n)R(n)k⟩: ζ^((m − c)/b)·ζ^(−(n − c)/b) = ζ^((m − n)/b), any c
    query = RopeConfig(head_dim=16, xpos_scale_base=64, xpos_center=3)
    key = RopeConfig(head_dim=16, xpos_scale_base=64, xpos_center=3, xpos_role="key")
    q, k = np.linspace(-1, 1, 16)[None, :], np.cos(np.arange(16.0))[None, :]
    scores = [
        float(np.sum(ref.rotate(q, [m], query) * ref.rotate(k, [m - 5], key))) for m in (5, 40, 300)
    ]
    assert scores[1] == pytest.approx(scores[0], rel=1e-12)
    assert scores[2] == pytest.approx(scores[0], rel=1e-12)


def test_declaration_checked() -> None:
    assert QUERY.xpos_gamma == 0.4 and QUERY.xpos_role == "query"
    assert RopeConfig.from_dict(KEY.to_dict()) == KEY
    with pytest.raises(ValueError, match="xpos_gamma is only allowed with xpos_scale_base"):
        RopeConfig(head_dim=8, xpos_gamma=0.4)
    with pytest.raises(ValueError, match=r"xpos_role must be one of \['query', 'key'\]; got 'q'"):
        RopeConfig(head_dim=8, xpos_scale_base=512, xpos_role="q")
    with pytest.raises(ValueError, match=r"xpos_scale_base must be a finite real number > 0"):
        RopeConfig(head_dim=8, xpos_scale_base=-1.0)
    with pytest.raises(ValueError, match="xpos_scale_base"):
        ref.rotate(np.ones((1, 8)), [2**20], RopeConfig(head_dim=8, xpos_scale_base=64))


def test_default_context_keeps_sigma_within_float32() -> None:
    # |p·ln ζ_0|/b ≤ 80 with ζ_0 = 0.4/1.4: p ≤ 80·512/ln 3.5 = 32695.4, so N = 32696
    assert position_domain(QUERY, RopeCapabilities()).max_position == 32695
    assert math.floor(80 * 512 / math.log(3.5)) == 32695
    declared = dataclasses.replace(QUERY, context_length=4096)
    assert position_domain(declared, RopeCapabilities()).max_position == 4095


def test_properties_stated_with_a_alone_are_not_planned() -> None:
    assert unplanned(RopeConfig(head_dim=8)) == {"accuracy"}
    assert {"norm", "r-zero", "relative-position", "row-independence"} <= unplanned(QUERY)
    assert "row-independence" not in unplanned(KEY)  # a fixed centre


torch = pytest.importorskip("torch")
pytest.importorskip("rotary_embedding_torch")


@pytest.mark.parametrize("role", ["query", "key"])
def test_rotary_embedding_torch_xpos_conformant(role: str) -> None:
    config = RopeConfig(
        head_dim=64, rotary_dim=32, pairing="interleaved", xpos_scale_base=512, xpos_role=role
    )
    fn = impl.rotary_embedding_torch_xpos("float32")
    report = check(fn, config, level="float32")  # the default domain: 0 .. 32695
    assert report.conformant, report.summary()
    assert report.to_dict()["domain"]["max_position"] == 32695
    found = diagnose(fn, config, max_position=4096)  # xPos as declared, then the rotation
    assert found.causes == () and "no bug found" in found.sentence, found.sentence
    assert found.parameters["xpos_gamma"] == pytest.approx(0.4, rel=1e-4)


def test_adapter_is_rotate_queries_and_keys() -> None:
    # t = 0..n − 1: the adapter's path is the library's own rotate_queries_and_keys
    ret = pytest.importorskip("rotary_embedding_torch")
    module = ret.RotaryEmbedding(dim=32, use_xpos=True, cache_if_possible=False)
    q = torch.linspace(-1, 1, 40 * 64).reshape(40, 64)
    k = torch.cos(torch.arange(40 * 64.0)).reshape(40, 64)
    with torch.no_grad():
        want_q, want_k = module.rotate_queries_and_keys(q[None, None], k[None, None])
    positions = np.arange(40, dtype=np.int64)
    fn = impl.rotary_embedding_torch_xpos("float32")
    for x, want, role in ((q, want_q, "query"), (k, want_k, "key")):
        config = _config(role)
        got = fn(x.double().numpy(), positions, config)
        assert torch.equal(got, want[0, 0])


def _config(role: str) -> RopeConfig:
    """rotary-embedding-torch's default xPos (γ 0.4, b 512) on a head of 64, d_r = 32."""
    return RopeConfig(
        head_dim=64, rotary_dim=32, pairing="interleaved", xpos_scale_base=512, xpos_role=role
    )


@pytest.mark.parametrize(
    ("wrong", "role", "words"),
    [
        ({"gamma": 0.5}, "query", "xpos_gamma: ζ_j = (2j + γ·d_r)/((1 + γ)·d_r) with γ = 0.5"),
        ({"scale_base": 256}, "key", "xpos_scale_base: the power (p − c)/b with b = 256"),
        ({"invert_key": False}, "key", "xpos_role: the key's power is not inverted"),
    ],
    ids=["gamma", "scale_base", "key-not-inverted"],
)
def test_one_parameter_wrong_is_named(wrong: dict[str, float], role: str, words: str) -> None:
    config = _config(role)
    fn = impl.rotary_embedding_torch_xpos("float32", **wrong)  # type: ignore[arg-type]
    report = check(fn, config, level="float32", max_position=4096, diagnose=False)
    assert not report.conformant
    result = diagnose(fn, config, max_position=4096)
    assert result.explained and len(result.causes) == 1, result.sentence
    assert words in result.sentence, result.sentence


def test_centre_per_call_declared_fixed_is_named() -> None:
    # rotary-embedding-torch centres each call at n//2 (16 for the 33 probe rows), not at 0
    config = dataclasses.replace(_config("query"), xpos_center=0)
    result = diagnose(impl.rotary_embedding_torch_xpos("float32"), config, max_position=4096)
    assert result.causes == ("xpos_center: the power is zero at p = 16, not the declared centre 0",)


def test_diagnosis_probes_inside_the_domain() -> None:
    seen: list[int] = []
    inner = impl.rotary_embedding_torch_xpos("float32")

    def recording(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> object:
        seen.extend(positions.tolist())
        return inner(x, positions, rope)

    result = diagnose(recording, _config("key"), max_position=20)
    assert seen and max(seen) <= 20, result.sentence
