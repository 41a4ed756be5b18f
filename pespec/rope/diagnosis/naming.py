"""The sentence from the fit, and the measured-vs-declared table (SPEC Annex D.9).

:func:`measured_causes` names the best-fitting parameter with its measured value ("θ
measured 1.00000e6, the config says 1.00000e4": one quantity written one way); where none
fits it says which pairs deviate and how ("pairs 32–63 are 2× too slow"; a ratio within
its precision of 1 is not printed, a negative one is "rotates the other way"), a frequency
added to every pair (a phase error growing linearly with the position), a constant phase
offset, or a phase that departs from a line at some position (with its measured growth law).
:func:`pair_table` is the per-pair table.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig
from pespec.rope.diagnosis.fit import ATTENTION, NAMES, SPREAD, Fit, fit_parameters
from pespec.rope.diagnosis.measure import Measurement

__all__ = ["deviating", "measured_causes", "pair_table"]

F64 = NDArray[np.float64]


def _num(value: float, digits: int = 7) -> str:
    """``value`` with ``digits`` significant digits, exponent written e6 (not e+06)."""
    text = f"{value:.{max(digits - 1, 0)}e}" if abs(value) >= 1e5 else f"{value:.{digits}g}"
    mantissa, _, exponent = text.partition("e")
    return mantissa + ("e" + str(int(exponent)) if exponent else "")


def _same_style(measured: float, declared: float, digits: int) -> tuple[str, str]:
    """One quantity written one way: both in exponent form when either is ≥ 1e5, the
    declared value with the digits it needs (at most ``digits``). A measured value that the
    fit named as the cause but that prints as the declared one gets more digits (up to 10)
    until the two differ: ggml's running-product θ̂ = 1.000004e6 against θ = 1e6 printed
    "1.00000e6, the config says 1.00000e6"."""
    for more in range(digits, max(digits, 10) + 1):
        pair = _pair(measured, declared, more)
        if pair[0] != pair[1] or measured == declared:
            return pair
    return pair


def _pair(measured: float, declared: float, digits: int) -> tuple[str, str]:
    """The two values of :func:`_same_style` at ``digits`` significant digits."""
    if max(abs(measured), abs(declared)) < 1e5:
        return _num(measured, digits), _num(declared, 7)
    text = f"{measured:.{max(digits - 1, 0)}e}"
    mantissa, _, exponent = text.partition("e")
    shown = f"{declared:.{max(digits - 1, 0)}e}"
    d_mantissa, _, d_exponent = shown.partition("e")
    return f"{mantissa}e{int(exponent)}", f"{d_mantissa}e{int(d_exponent)}"


def _digits(fit: Fit) -> int:
    """Significant digits the fitted interval supports (3 to 7)."""
    lo, hi = fit.interval
    width = abs(hi - lo) / max(abs(fit.value), 1e-300)
    return 7 if width <= 0 else int(min(7, max(3, math.floor(-math.log10(width)) + 1)))


def deviating(m: Measurement, declared: F64) -> NDArray[np.bool_]:
    """Pairs whose ω̂_j is further than its precision allows from the declared ω_j."""
    with np.errstate(invalid="ignore"):
        far = np.abs(m.omega - declared) > SPREAD * m.precision + 1e-12 * np.abs(declared)
    return np.asarray(far & np.isfinite(m.omega), dtype=bool)


def _relation(value: float, config: RopeConfig) -> str:
    """How a fitted factor relates to the configuration's s (or its value)."""
    s, d = config.factor, config.d_r
    if s is not None and d > 2:
        for text, v in (("s", s), ("s^(d/(d−2))", s ** (d / (d - 2)))):
            if math.isclose(value, v, rel_tol=1e-4):
                return text
    return _num(value, 4)


def _uniform(m: Measurement, declared: F64) -> float | None:
    """ω̂_j/ω_j when it is one number for every pair (within the precisions), else None."""
    ok = np.isfinite(m.omega) & (declared > 0)
    if not np.any(ok):
        return None
    ratio = m.omega[ok] / declared[ok]
    middle = float(np.median(ratio))
    spread = SPREAD * m.precision[ok] / declared[ok] + 1e-12
    return middle if bool(np.all(np.abs(ratio - middle) <= spread)) else None


def _sentence(fit: Fit, config: RopeConfig, uniform: float | None = None) -> str:
    """The cause named by a fitting candidate."""
    name = NAMES.get(fit.parameter, fit.parameter)
    value = _num(fit.value, _digits(fit))
    if fit.schedule == config.rope_type:
        declared = float(fit.declared or 0)
        shown, said = _same_style(fit.value, declared, _digits(fit))
        if fit.parameter == "theta" and fit.value > 1 and config.theta > 1:
            d_prime = config.d_r * math.log(config.theta) / math.log(fit.value)
            width = round(d_prime)  # d' = d_r is no width slip: the measured θ itself differs
            whole = abs(d_prime - width) < 1e-3 and width % 2 == 0 and width != config.d_r
            if whole and fit.digits > 3:  # a round θ is a θ slip (1e4 is 1e6 over d = 192)
                return (
                    f"ω computed over d = {round(d_prime)} instead of d_r = {config.d_r} "
                    f"(θ^(−2j/{round(d_prime)}); as θ it measures {value})"
                )
            if whole:  # θ^k: both readings are one fact
                return (
                    f"{name} measured {shown}, the config says {said} (the same frequencies "
                    f"as ω computed over d = {round(d_prime)} instead of d_r = {config.d_r})"
                )
        return f"{name} measured {shown}, the config says {said}"
    if fit.schedule == "ntk" and config.rope_type == "default" and fit.parameter == "factor":
        theta = config.theta * fit.value ** (config.d_r / (config.d_r - 2))  # θ·s^(d/(d−2))
        return _theta_reading(theta, config, _digits(fit))
    if fit.schedule == "ntk" and config.rope_type == "dynamic" and fit.parameter == "factor":
        return _dynamic_ratio(fit.value, config)
    if uniform is not None and uniform > 0 and fit.parameter == "factor":
        return (
            f"every frequency divided by {_num(1 / uniform, 3)}: a {fit.schedule} scaling "
            f"by {_relation(fit.value, config)} where the config says {config.rope_type}"
        )
    return (
        f"the frequencies of a {fit.schedule} schedule with {name} = {value} where the config "
        f"says {config.rope_type}"
    )


def _dynamic_ratio(ratio: float, config: RopeConfig) -> str:
    """The base ratio R of θ' = θ·R^(d_r/(d_r − 2)) measured, against the dynamic rule's."""
    s, big_l, length = config.factor, config.max_position_embeddings, config.seq_len
    if s is None or big_l is None or length is None:
        return f"the dynamic NTK ratio measured R = {_num(ratio, 4)}"
    rule = s * length / big_l - (s - 1) if length > big_l else 1.0
    return (
        f"the dynamic NTK ratio measured R = {_num(ratio, 4)} (θ' = θ·R^(d_r/(d_r − 2))), "
        f"the config's rule gives R = {_num(rule, 4)} at ℓ = {length} "
        f"(s·ℓ/L − (s − 1) when ℓ > L = {big_l}, else 1)"
    )


def _ratio_text(r: float, precision: float) -> str | None:
    """How a pair's ω̂/ω reads: None when indistinguishable from 1 at ``precision``
    (relative); no rotation, the other direction, or r× too slow/fast with enough digits
    that the printed ratio is not 1."""
    if not math.isfinite(r) or abs(r - 1) <= max(precision, 1e-12):
        return None
    if abs(r) <= max(precision, 1e-12):
        return "does not rotate (ω̂ = 0)"
    if r < 0:
        return f"rotates the other way (ω̂/ω = −{_num(-r, 3)})"
    value = 1 / r if r < 1 else r
    for digits in range(3, 8):
        text = _num(value, digits)
        if float(text) != 1.0:
            return f"{text}× too slow" if r < 1 else f"{text}× too fast"
    return None


def _theta_reading(theta: float, config: RopeConfig, digits: int) -> str:
    """θ measured (one plain θ^(−2j/d_r) schedule explains every pair), and the width d it
    equals when θ̂ = θ^(d_r/d) for an even d."""
    shown, said = _same_style(theta, config.theta, digits)
    text = f"θ measured {shown}, the config says {said}"
    if theta > 1 and config.theta > 1:
        d_prime = config.d_r * math.log(config.theta) / math.log(theta)
        whole = abs(d_prime - round(d_prime)) < 1e-3 and round(d_prime) % 2 == 0
        if whole and round(d_prime) != config.d_r:  # d' = d_r says nothing: no width slip
            text += (
                f" (the same frequencies as ω computed over d = {round(d_prime)} instead of "
                f"d_r = {config.d_r})"
            )
    return text


def geometric_width(m: Measurement, declared: F64, config: RopeConfig) -> str:
    """' (the same frequencies as ω computed over d = d′ …)' when the declared ω_j and the
    measured ω̂_j are both geometric in j (a power law B^(−2j/d_r), as default, linear,
    ntk and dynamic are) and their log-slopes stand in the ratio d_r/d′ for an even d′ ≠ d_r;
    else ''. The output cannot tell a base change from the exponent's width here."""
    j = np.arange(declared.size, dtype=np.float64)
    ok = np.isfinite(m.omega) & (m.omega > 0) & (declared > 0)
    if int(ok.sum()) < 3 or not np.all(np.isfinite(declared) & (declared > 0)):
        return ""
    slope, icept = np.polyfit(j, np.log(declared), 1)
    if np.max(np.abs(np.log(declared) - (slope * j + icept))) > 1e-9 or slope >= 0:
        return ""
    got, start = np.polyfit(j[ok], np.log(m.omega[ok]), 1)
    residual = np.abs(np.log(m.omega[ok]) - (got * j[ok] + start))
    if np.any(residual > SPREAD * m.precision[ok] / m.omega[ok] + 1e-9) or got >= 0:
        return ""
    d_prime = config.d_r * slope / got
    if not math.isfinite(d_prime):
        return ""
    whole = round(d_prime)
    if abs(d_prime - whole) > 1e-2 or whole % 2 or whole in (0, config.d_r):
        return ""
    return (
        f" (the same frequencies as ω computed over d = {whole} instead of d_r = {config.d_r}"
        f", the base as declared)"
    )


def off_by_one(ratio: float, config: RopeConfig) -> str:
    """' (…: the exponent 2(j+1)/d_r …)' when ``ratio`` (ω̂/ω) is θ^(−2/d_r) within 1e-3,
    else ''."""
    step = config.theta ** (2 / config.d_r) if config.theta > 0 and config.d_r > 0 else 0.0
    if ratio > 0 and step > 0 and math.isclose(1 / ratio, step, rel_tol=1e-3):
        return (
            f" (θ^(2/d_r) = {_num(step, 4)}: the exponent 2(j+1)/d_r instead of 2j/d_r, off by one)"
        )
    return ""


def _runs(
    bad: NDArray[np.bool_], ratio: F64, precision: F64, config: RopeConfig | None = None
) -> list[str]:
    """'pairs a–b are r× too slow/fast' for runs of deviating pairs with one ratio (1%);
    ``precision`` the relative precision of each ratio."""
    out, j, n = [], 0, len(bad)
    while j < n:
        if not bad[j]:
            j += 1
            continue
        k = j
        while k + 1 < n and bad[k + 1] and math.isclose(ratio[k + 1], ratio[j], rel_tol=1e-2):
            k += 1
        r = float(np.median(ratio[j : k + 1]))
        text = _ratio_text(r, float(np.max(precision[j : k + 1])))
        if text is not None:
            verb = text if j == k else text.replace("does", "do").replace("rotates", "rotate")
            pairs = f"pair {j}" if j == k else f"pairs {j}–{k}"
            joined = f"{pairs} {verb}" if not verb[0].isdigit() else ""
            if not joined:
                joined = f"{pairs} {'is' if j == k else 'are'} {verb}"
            # an exponent off by one slows every pair from pair 0 on by θ^(2/d_r)
            whole_run = j == 0 and k > 0 and config is not None
            out.append(joined + (off_by_one(r, config) if whole_run and config else ""))
        j = k + 1
    return out[:4]


def _pattern(
    m: Measurement,
    declared: F64,
    bad: NDArray[np.bool_],
    noise: float,
    growth: str | None,
    config: RopeConfig | None = None,
) -> list[str]:
    """What the deviation looks like when no schedule fits; ``growth`` the measured growth
    law of the phase error, if any."""
    out = []
    offset = float(np.median(m.offset))
    if abs(offset) > 4 * noise:
        out.append(f"a constant phase offset of {_num(offset, 4)} rad at every position")
    delta = m.omega - declared
    ok = np.isfinite(delta)
    step = float(np.median(delta[ok])) if np.any(ok) else 0.0
    spread = SPREAD * m.precision[ok] + 1e-12
    if bad.any() and step != 0 and np.all(np.abs(delta[ok] - step) <= spread):
        out.append(
            f"every pair's phase grows by an extra {_num(step, 4)}·p rad (the same frequency "
            "added to every pair: a phase error growing linearly with the position)"
        )
    elif bad.any():
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio, precision = m.omega / declared, SPREAD * m.precision / np.abs(declared)
            out += _runs(bad, ratio, precision, config)
    breaks = m.breaks[m.breaks > 0]
    if breaks.size:
        shape = growth if growth is not None else "its shape not measured"
        out.append(
            f"the phase departs from a line from position {int(breaks.min())} on "
            f"({breaks.size} pairs; {shape})"
        )
    return out


def _attention_causes(
    m: Measurement, config: RopeConfig, attention: float
) -> tuple[list[str], bool, list[Fit]]:
    """The attention parameter fitted to Â, else Â against the declared A."""
    fits = fit_parameters(m, config, ATTENTION)
    if fits and fits[0].fits:
        return [_sentence(fits[0], config)], True, fits
    finite = m.attention[np.isfinite(m.attention)]
    measured = float(np.median(finite)) if finite.size else math.nan
    return (
        [
            f"the attention factor measured {_num(measured, 6)}, the config says "
            f"{_num(attention, 6)}"
        ],
        False,
        fits,
    )


def measured_causes(
    m: Measurement,
    config: RopeConfig,
    declared: tuple[F64, float],
    noise: float,
    attention_ok: bool = True,
    growth: str | None = None,
) -> tuple[list[str], bool, list[Fit]]:
    """(causes, whether a fitted model explains ω̂, the fits ranked) for a measurement
    against the declared (ω_j, A); ``attention_ok``: Â matched some attention model."""
    omegas, attention = declared
    bad = deviating(m, omegas)
    if not bad.any():
        if not attention_ok:
            return _attention_causes(m, config, attention)
        return _pattern(m, omegas, bad, noise, growth, config), False, []
    fits = fit_parameters(m, config)
    if fits and fits[0].fits:
        uniform = _uniform(m, omegas)
        text = _sentence(fits[0], config, uniform)
        if "d = " not in text:
            text += geometric_width(m, omegas, config)
        return [text + (off_by_one(uniform, config) if uniform else "")], True, fits
    width = geometric_width(m, omegas, config)
    if width and config.rope_type == "default":  # beyond every fitted range, still a law
        return [f"the measured frequencies are a power law{width}"], True, fits
    return _pattern(m, omegas, bad, noise, growth, config), False, fits


def pair_table(m: Measurement, declared: F64, attention: float) -> dict[str, Any]:
    """The measured-vs-declared table: one row per pair (j, ω̂, ω, ω̂/ω, Â, A, σ, deviates)."""
    bad = deviating(m, declared)
    rows = []
    for j in range(len(declared)):
        ratio = m.omega[j] / declared[j] if declared[j] else math.nan
        rows.append(
            [
                j,
                float(m.omega[j]),
                float(declared[j]),
                float(ratio),
                float(m.attention[j]),
                attention,
                float(m.precision[j]),
                bool(bad[j]),
            ]
        )
    return {
        "columns": [
            "pair",
            "omega_measured",
            "omega_declared",
            "ratio",
            "attention_measured",
            "attention_declared",
            "precision",
            "deviates",
        ],
        "rows": rows,
    }
