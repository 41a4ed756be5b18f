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
from pespec.rope.diagnosis.degenerate import changed_width, degenerate, rotated_width
from pespec.rope.diagnosis.fit import ATTENTION
from pespec.rope.diagnosis.formats import UNIT_ROUNDOFF
from pespec.rope.diagnosis.growth import growth_law, position_shift, shift_cause
from pespec.rope.diagnosis.layout import (
    detect_pairing,
    layout_slip,
    pair_values,
    pass_through_changed,
)
from pespec.rope.diagnosis.measure import Measurement, measure_pairs, phase_errors
from pespec.rope.diagnosis.naming import deviating, measured_causes, pair_table
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


def _failed(
    config: RopeConfig,
    calls: int,
    why: str,
    *,
    explained: bool = False,
    reach: int | None = None,
) -> RopeDiagnosis:
    """The diagnosis when no rotation is fitted: ``why`` is the cause when ``explained``
    (a measured shape of the output), else what was measured before giving up."""
    stages = dict.fromkeys(STAGES, UNDETERMINED)
    where = (
        "not within 1e-2 of exact even at position 0"
        if reach is None
        else f"within 1e-2 of exact up to position {reach} of the probes"
    )
    text = f"The cause is: {why}; {where}." if explained else f"Not explained: {why}."
    return RopeDiagnosis(
        "undetermined", "undetermined", {}, stages, reach, text, explained, calls, (why,)
    )


def _before_pairing(
    backend: Callable[..., Any],
    probes: list[Probe],
    state: tuple[RopeConfig, int],
    options: tuple[float | None, float | None, str | None],
) -> RopeDiagnosis | str:
    """The diagnosis when the output has no rotation to fit (:mod:`.degenerate`) or a
    rotated width other than d_r; else the pairing found."""
    config, calls = state
    matrices = np.concatenate([p.matrices for p in probes])
    mixed = np.concatenate([p.mixed for p in probes])
    finite = np.all(np.isfinite(matrices), axis=(1, 2))
    shape = degenerate(matrices, mixed, config)
    if shape is not None:
        return _failed(config, calls, shape, explained=True, reach=_reach(probes, config))
    # A proportional config (rotated_pairs < d_r/2) has pass-through pairs inside d_r, so its
    # unchanged columns are no trailing run: the width is measured only where the config
    # rotates every pair of d_r.
    width = rotated_width(matrices[finite]) if config.rotated_pairs is None else None
    if width is not None and width != config.d_r and width % 2 == 0 and width > 0:
        return _width(backend, config, width, options, (calls, _reach(probes, config)))
    if width is None and config.rotated_pairs is None:
        # the last changed column moves by < 1e-2 (a slow pair): wider than d_r still counts
        wide = changed_width(matrices[finite])
        if wide > config.d_r and wide % 2 == 0:
            return _width(backend, config, wide, options, (calls, _reach(probes, config)))
    pairing, _ = detect_pairing(matrices[finite], config)
    if pairing == "undetermined":
        return _failed(
            config,
            calls,
            f"no pairing (halves, interleaved or interleaved in / halves out, either output "
            f"layout) explains the rotated basis vectors (rotated width measured "
            f"{'undetermined' if width is None else width}, the config says d_r = {config.d_r})",
        )
    return pairing


def _width(
    backend: Callable[..., Any],
    config: RopeConfig,
    width: int,
    options: tuple[float | None, float | None, str | None],
    done: tuple[int, int | None],
) -> RopeDiagnosis:
    """The backend rotates ``width`` columns where the config rotates d_r: diagnosed
    against the config with rotary_dim = width, the width named first."""
    timeout, max_position, output_dtype = options
    calls, reach = done
    cause = f"the rotated width measured {width} columns, the config says d_r = {config.d_r}"
    try:
        wide = dataclasses.replace(config, rotary_dim=width)
        # the schedule of the wider config is θ^(−2j/width); the declared one θ^(−2j/d_r)
        inner = diagnose(
            backend, wide, timeout=timeout, max_position=max_position, output_dtype=output_dtype
        )
    except (ValueError, TypeError):
        return _failed(config, calls, cause, explained=True, reach=reach)
    causes = (cause, *inner.causes)
    where = (
        "not within 1e-2 of exact even at position 0"
        if reach is None
        else f"within 1e-2 of exact up to position {reach} of the probes"
    )
    return dataclasses.replace(
        inner,
        sentence=f"The cause is: {'; '.join(causes)}; {where}.",
        explained=True,
        backend_calls=calls + inner.backend_calls,
        causes=causes,
        max_position_within_1e_2=reach,
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
    pairing = _before_pairing(
        backend, probes, (config, calls), (timeout, max_position, output_dtype)
    )
    if isinstance(pairing, RopeDiagnosis):
        return pairing
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
    if not explained and attention is not None:
        explained = _fast_math(angles, positions, fit, noise, causes)
    measured = measure_pairs(cos, sin, positions, noise, _phase_roundoff(rotation))
    declared = (models[0].omegas, attentions[0].value)
    rope_type = fit.model.rope_type
    if not explained:
        base = _causes(config, pairing, models[0], fit.sign, attention, measured_a)
        causes = _shifted(measured, declared[0], noise, base, stages) or causes
        growth = growth_law(_errors(cos, sin, positions, declared), positions, noise)
        causes, explained, rope_type = _refit(
            measured,
            config,
            (declared, noise),
            (base, [c for c in causes if c != fit.model.slip], rope_type),
            (attention is not None, growth),
        )
    if not finite.all():
        causes.append(_nonfinite(positions[~finite], matrices))
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
    state: tuple[bool, str | None],
) -> tuple[list[str], bool, str]:
    """(causes, explained, rope_type) once the measurement is fitted (SPEC Annex D.9):
    ``against`` the declared (ω_j, A) and the noise; ``found`` the causes with the
    configured schedule, those of the closest model tried, and its schedule."""
    (declared, noise), (base, closest, rope_type) = against, found
    attention_ok, growth = state
    shifted = any(c.startswith("positions shifted by") for c in base)
    if shifted:  # the offset is explained; the frequencies measured against the declared
        measured = dataclasses.replace(measured, offset=np.zeros_like(measured.offset))
    named, fitted, fits = measured_causes(measured, config, declared, noise, attention_ok, growth)
    if shifted and not deviating(measured, declared[0]).any():
        return base + named, attention_ok, rope_type
    if not fitted:
        return closest + named, False, rope_type
    if not attention_ok and fits and fits[0].parameter in ATTENTION:
        base = [c for c in base if "matches no attention factor" not in c]
        attention_ok = True
    return base + named, attention_ok, fits[0].schedule if fits else rope_type


def _fast_math(angles: F64, positions: F64, fit: Any, noise: float, causes: list[str]) -> bool:
    """Whether the phase shows a fast-math sine/cosine (its cause then appended)."""
    if not fast_math_signature(angles, positions, fit, noise):
        return False
    causes.append(
        "a fast-math sine/cosine: exact while |φ| ≤ π, its error growing with "
        "|φ| beyond (no full range reduction)"
    )
    return True


def _shifted(
    measured: Measurement, omegas: F64, noise: float, base: list[str], stages: dict[str, str]
) -> list[str] | None:
    """``base`` with the measured position shift appended (the stages that read the
    positions then undetermined), or None when the offsets show no shift."""
    shift = position_shift(measured.offset, omegas, noise)
    if shift is None:
        return None
    base.append(shift_cause(shift, omegas))
    stages.update(positions=UNDETERMINED, phase=UNDETERMINED)
    return base


def _nonfinite(where: F64, matrices: F64) -> str:
    """The cause naming the probe positions whose outputs hold NaN or inf."""
    count = int(np.sum(~np.isfinite(matrices)))
    shown = ", ".join(f"{int(p)}" for p in where[:4]) + (", …" if where.size > 4 else "")
    return f"{count} NaN or infinite output values at {where.size} probed positions ({shown})"


def _errors(cos: F64, sin: F64, positions: F64, declared: tuple[F64, float]) -> F64:
    """φ̂_j(p) − ω_j·p per position and pair (m, d_r/2), wrapped (NaN where not finite)."""
    exact = positions[:, None] * declared[0][None, :]
    return phase_errors(cos, sin, np.cos(exact), np.sin(exact))


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
