"""The diagnosis entry point: probes → pairing → stage formats → models → sentence."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig
from pespec.rope.diagnosis.candidates import (
    AttentionModel,
    FrequencyModel,
    attention_models,
    frequency_models,
)
from pespec.rope.diagnosis.fit import ATTENTION
from pespec.rope.diagnosis.formats import UNIT_ROUNDOFF
from pespec.rope.diagnosis.layout import (
    detect_pairing,
    layout_slip,
    pair_values,
    pass_through_changed,
)
from pespec.rope.diagnosis.measure import Measurement, measure_pairs
from pespec.rope.diagnosis.naming import measured_causes, pair_table
from pespec.rope.diagnosis.probes import (
    Probe,
    declared_max_position,
    probe_inputs,
    run_probes,
)
from pespec.rope.diagnosis.report import STAGES, RopeDiagnosis, low_stages, sentence
from pespec.rope.diagnosis.stages import (
    UNDETERMINED,
    cache_format,
    fast_math_signature,
    fit_phase,
    rotation_format,
)
from pespec.rope.reference import rotate

__all__ = ["diagnose"]

F64 = NDArray[np.float64]
EXPLAINED_FRACTION = 0.95
"""The best model must match at least this fraction of the (position, pair) angles."""
REACH_TOLERANCE = 1e-2


def _reach(probes: list[Probe], config: RopeConfig) -> int | None:
    """Largest probe position up to which every probed output is within 1e-2 of exact."""
    reach = None
    for probe in probes:
        x, p = probe_inputs(probe.positions.tolist(), config.head_dim)
        exact = rotate(x, p, config).reshape(len(probe.positions), config.head_dim + 1, -1)
        measured = np.concatenate(
            [np.transpose(probe.matrices, (0, 2, 1)), probe.mixed[:, None, :]], axis=1
        )
        with np.errstate(invalid="ignore"):
            error = np.abs(measured - exact)
        for position, rows in zip(probe.positions.tolist(), error, strict=True):
            if not np.all(rows <= REACH_TOLERANCE):  # NaN fails too
                return reach
            reach = position
    return reach


def _attention(amplitude: float, models: list[AttentionModel], rel: float) -> AttentionModel | None:
    for model in models:
        if abs(amplitude - model.value) <= rel * model.value:
            return model
    return None


def _failed(config: RopeConfig, calls: int, why: str) -> RopeDiagnosis:
    stages = dict.fromkeys(STAGES, UNDETERMINED)
    return RopeDiagnosis(
        "undetermined",
        "undetermined",
        {},
        stages,
        None,
        f"Not explained: {why}.",
        False,
        calls,
        (why,),
    )


def diagnose(
    backend: Callable[..., Any],
    config: RopeConfig,
    *,
    timeout: float | None = None,
    max_position: float | None = None,
    output_dtype: str | None = None,
) -> RopeDiagnosis:
    """Diagnose ``backend(x, positions, rope) -> (n, head_dim)`` against ``config``.

    Never raises for a misbehaving backend: a probe that fails only shortens the range
    probed. ``timeout`` bounds the seconds spent in the backend over all calls; no position
    beyond ``max_position`` (default: the backend's declared ``pespec_capabilities``
    ``max_position``, else 2^20) is probed. ``output_dtype`` names the dtype whose default
    level applies (default: the dtype the backend returns).
    """
    if not isinstance(config, RopeConfig):
        raise TypeError(f"config must be a pespec.rope.RopeConfig; got {type(config).__name__}")
    if max_position is None:
        max_position = declared_max_position(backend)
    if config.xpos_scale_base is not None:  # γ, b, role, c measured first (Annex J)
        return _diagnose_xpos(backend, config, timeout, max_position, output_dtype)
    probes, calls = run_probes(backend, config, timeout, max_position)
    if not probes:
        return _failed(config, calls, "the backend failed on the first probe call")
    matrices = np.concatenate([p.matrices for p in probes])
    mixed = np.concatenate([p.mixed for p in probes])
    positions = np.concatenate([p.positions for p in probes]).astype(np.float64)
    finite = np.all(np.isfinite(matrices), axis=(1, 2))
    pairing, _ = detect_pairing(matrices[finite], config)
    if pairing == "undetermined":
        return _failed(
            config,
            calls,
            "no pairing (halves, interleaved or interleaved in / "
            "halves out, either output layout) explains the rotated basis vectors",
        )
    cos, sin = pair_values(matrices, config, pairing)
    attentions = attention_models(config)
    rotation = rotation_format(mixed)
    cache = cache_format(np.concatenate([cos, sin]), rotation, attentions)
    noisiest = rotation if cache == UNDETERMINED else cache
    noise = 8 * max(UNIT_ROUNDOFF[noisiest], UNIT_ROUNDOFF[rotation]) + 1e-12
    with np.errstate(invalid="ignore"):
        amplitude = np.hypot(cos, sin)
        angles = np.where(np.isfinite(amplitude), np.arctan2(sin, cos), np.nan)
    measured_a = float(np.nanmedian(amplitude)) if np.any(np.isfinite(amplitude)) else 0.0
    attention = _attention(measured_a, attentions, 2 * noise)
    models = frequency_models(config)
    fit, stages = fit_phase(angles, positions, models, noise)
    stages.update(cache=cache, rotation=rotation)
    output = probes[0].dtype if output_dtype is None else output_dtype
    causes = _causes(config, pairing, fit.model, fit.sign, attention, measured_a)
    causes += low_stages(stages, output)
    if pass_through_changed(matrices[finite], config):
        causes.append(f"the pass-through components k ≥ d_r = {config.d_r} are changed")
    explained = fit.score >= EXPLAINED_FRACTION and attention is not None
    if (
        not explained
        and attention is not None
        and fast_math_signature(angles, positions, fit, noise)
    ):
        causes.append(
            "a fast-math sine/cosine: exact while |φ| ≤ π, its error growing with "
            "|φ| beyond (no full range reduction)"
        )
        explained = True
    measured = measure_pairs(cos, sin, positions, noise, _phase_roundoff(rotation))
    declared = (models[0].omegas, attentions[0].value)
    rope_type = fit.model.rope_type
    if not explained:
        base = _causes(config, pairing, models[0], fit.sign, attention, measured_a)
        causes, explained, rope_type = _refit(
            measured, config, (declared, noise), (base, causes, rope_type), attention is not None
        )
    reach = _reach(probes, config)
    parameters = dict(fit.model.parameters)
    parameters["attention_factor"] = attention.value if attention else measured_a
    text = sentence(pairing, rope_type, stages, causes, explained, reach)
    return RopeDiagnosis(
        pairing,
        rope_type,
        parameters,
        stages,
        reach,
        text,
        explained,
        calls,
        tuple(causes),
        output,
        round(fit.score, 6),
        {"measured": measured.to_dict(), "pairs": pair_table(measured, *declared)},
    )


def _diagnose_xpos(
    backend: Callable[..., Any],
    config: RopeConfig,
    timeout: float | None,
    max_position: float | None,
    output_dtype: str | None,
) -> RopeDiagnosis:
    """xPos measured; when it matches the declaration, the descaled backend diagnosed."""
    from pespec.rope.diagnosis import xpos

    found = xpos.measure_xpos(backend, config, max_position)
    if found is None or xpos.xpos_causes(config, found):
        return xpos.xpos_diagnosis(config, found, 1)
    inner = diagnose(
        xpos.descaled(backend, config),
        xpos.plain(config),
        timeout=timeout,
        max_position=max_position,
        output_dtype=output_dtype,
    )
    return dataclasses.replace(
        inner,
        backend_calls=inner.backend_calls + 1,
        parameters={**inner.parameters, **{k: v for k, v in found.items() if k[:5] == "xpos_"}},
    )


def _refit(
    measured: Measurement,
    config: RopeConfig,
    against: tuple[tuple[F64, float], float],
    found: tuple[list[str], list[str], str],
    attention_ok: bool,
) -> tuple[list[str], bool, str]:
    """(causes, explained, rope_type) once the measurement is fitted (SPEC Annex D.9):
    ``against`` the declared (ω_j, A) and the noise; ``found`` the causes with the
    configured schedule, those of the closest model tried, and its schedule."""
    (declared, noise), (base, closest, rope_type) = against, found
    named, fitted, fits = measured_causes(measured, config, declared, noise, attention_ok)
    if not fitted:
        return closest + named, False, rope_type
    if not attention_ok and fits[0].parameter in ATTENTION:
        base = [c for c in base if "matches no attention factor" not in c]
        attention_ok = True
    return base + named, attention_ok, fits[0].schedule


def _phase_roundoff(rotation: str) -> float:
    """u of the phase's format at the level: float64 for a float64 rotation, else float32."""
    return UNIT_ROUNDOFF["float64" if rotation == "float64" else "float32"]


def _causes(
    config: RopeConfig,
    pairing: str,
    model: FrequencyModel,
    sign: int,
    attention: AttentionModel | None,
    measured: float,
) -> list[str]:
    out = []
    slip = layout_slip(config, pairing)
    if slip:
        out.append(slip)
    if model.slip:
        out.append(model.slip)
    if sign < 0:
        out.append("the rotation goes the other way (sin φ with the wrong sign)")
    if attention is None:
        out.append(f"the amplitude {measured:.6g} matches no attention factor tried")
    elif attention.slip:
        out.append(attention.slip)
    return out
