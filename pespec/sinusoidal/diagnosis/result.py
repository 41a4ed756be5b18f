"""The result of a diagnosis (SPEC Annex D): :class:`Diagnosis`, its JSON form and its sentence."""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

from pespec.numerics.formats import SIGNIFICAND_BITS
from pespec.sinusoidal.diagnosis.probes import FIT_DIMS, PRIMARY_BASE
from pespec.sinusoidal.reference.conventions import PRESETS, Convention, diffusers_convention

__all__ = ["Diagnosis"]


def _finite_or_null(value: Any) -> Any:
    """``value`` with every non-finite float, at any depth, replaced by None."""
    if isinstance(value, dict):
        return {key: _finite_or_null(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite_or_null(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass(frozen=True)
class Diagnosis:
    """What a failing backend computes (SPEC Annex D).

    ``convention``: the fitted family member (``layout``, ``frequency_shift``, ``base``,
    ``base_follows_argument``, ``position_offset``, ``argument_scale``, ``output_scale`` at
    the first fit dimension (d = 64 unless a smaller max_d_model is declared) with its
    ``output_scale_rule``, ``preset``, ``matching_presets``), or None when no member explains
    the output. ``working_precision``: the format the angles are effectively
    computed in, or "unknown". ``known_mistake``: when no member explains the output but a
    named mistake of SPEC Annex D.4 does (sin and cos swapped within each pair, the exponent
    4i/d or i/d), its ``name``, ``description``, ``working_precision`` and
    ``max_error_over_bound``. ``meaningful_position_limit``: the largest probed position up
    to which every probed row stays within 1e-2 (relative to the output scale) of the exact
    encoding of the fitted convention; ``limit_is_lower_bound`` when no probed row failed.
    """

    convention: dict[str, Any] | None
    explained: bool
    working_precision: str
    meaningful_position_limit: float | None
    candidates: list[dict[str, Any]] = field(default_factory=list)
    limit_is_lower_bound: bool = False
    departs_from_position: float | None = None
    non_finite_positions: list[float] = field(default_factory=list)
    non_deterministic: dict[str, Any] | None = None
    explained_at_integers_only: bool = False
    known_mistake: dict[str, Any] | None = None
    level: str = "float64"
    level_working_precision: str = "float64"
    evidence: dict[str, Any] = field(default_factory=dict)
    declared: dict[str, Any] | None = None
    """The convention the backend declared (``Convention.to_dict()``), when one was."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the report's ``diagnosis`` object), with the sentence; a
        non-finite number (a residual of an absurd output) becomes null."""
        data: dict[str, Any] = _finite_or_null({**asdict(self), "sentence": self.sentence()})
        return data

    @property
    def precision_is_cause(self) -> bool:
        """True when the backend works in a coarser format than its level assumes."""
        return (
            self.working_precision in SIGNIFICAND_BITS
            and SIGNIFICAND_BITS[self.working_precision]
            < SIGNIFICAND_BITS[self.level_working_precision]
        )

    def _reach(self) -> str:
        limit = self.meaningful_position_limit
        if limit is None:
            return "is not within 1e-2 of exact even at the first probed position"
        if self.limit_is_lower_bound:
            return f"stays within 1e-2 of exact at every probed position (up to {limit:.0f})"
        return f"stays within 1e-2 of exact only up to position ~{limit:.0f}"

    @property
    def positions_rounded_in(self) -> str | None:
        """The format the positions (timesteps) are rounded to before the embedding, when
        that, not the angle arithmetic, is the coarse step: integer positions merge in a
        format coarser than the level's working precision while the error growth of the
        angles shows a finer one (a pipeline casting timesteps to bfloat16, SPEC Annex D.3)."""
        growth = self.evidence.get("precision_from_error_growth")
        probed = self.evidence.get("positions_rounded_to")
        merged = self.evidence.get("positions_merged_in")
        if probed in SIGNIFICAND_BITS:
            found = str(probed)
        elif merged in SIGNIFICAND_BITS and self.precision_is_cause:
            found = str(merged)
        else:
            return None
        if SIGNIFICAND_BITS[found] >= SIGNIFICAND_BITS[self.level_working_precision]:
            return None
        if growth in SIGNIFICAND_BITS and SIGNIFICAND_BITS[growth] <= SIGNIFICAND_BITS[found]:
            return None  # the angles themselves are that coarse: the rounding is part of it
        return found

    def _clauses(self) -> list[str]:
        """The precision and large-position findings, as clauses."""
        clauses = []
        rounded = self.positions_rounded_in
        scaled = self.evidence.get("scaled_rounding")
        if isinstance(scaled, dict) and self.explained:
            return [
                f"{scaled['text']} before the embedding (measured at t = {scaled['t']:g}: "
                f"{scaled['scale']:g}·t = {scaled['scaled']:g} is used as {scaled['used']:g}, "
                f"an error of {scaled['error']:.3g}; a timestep embedding's inputs are "
                "fractional, so no integer_positions_only declaration applies)"
            ]
        if rounded is not None and self.explained:
            growth = self.evidence.get("precision_from_error_growth")
            angles = f"; the angles are computed in {growth}" if growth in SIGNIFICAND_BITS else ""
            clauses.append(
                f"timesteps rounded to {rounded} before the embedding (each position p is "
                f"used as {rounded}(p){angles}): the encoding {self._reach()}"
            )
        elif self.precision_is_cause:
            stage = self.evidence.get("stage_format")
            what = (
                stage["text"]
                if isinstance(stage, dict)
                else f"angles are computed in {self.working_precision}"
            )
            clauses.append(f"{what}: the encoding {self._reach()}")
        if self.non_finite_positions:
            shown = ", ".join(f"{p:g}" for p in self.non_finite_positions[:4])
            more = ", …" if len(self.non_finite_positions) > 4 else ""
            clauses.append(f"it returns non-finite values at position {shown}{more}")
        if self.explained_at_integers_only:
            clauses.append(
                "only at integer positions: at fractional positions its output is not their "
                "encoding (a table looked up by integer index? declare integer_positions_only)"
            )
        if self.departs_from_position is not None:
            reach = "" if clauses else f" (the encoding {self._reach()})"
            if self.evidence.get("departure_row_failed"):
                clauses.append(
                    f"from position ~{self.departs_from_position:.0f} on the backend fails "
                    f"(raises or returns nothing usable){reach}"
                )
            else:
                growth = self.evidence.get("phase_error_growth")
                law = f" ({growth})" if isinstance(growth, str) else ""
                clauses.append(
                    f"from position ~{self.departs_from_position:.0f} on the output departs "
                    f"from it by more than {self.working_precision} rounding explains"
                    f"{law}{reach}"
                )
        return clauses

    def _dims_note(self) -> str | None:
        """What a declared max_d_model ≤ 4 leaves undetermined (None: nothing)."""
        dims = self.evidence.get("fit_dims") or list(FIT_DIMS)
        if len(dims) > 1:
            return None
        declared = self.evidence.get("max_d_model")
        if dims[0] <= 2:
            return (
                f"at the declared max_d_model={declared} the only frequency is ω_0 = 1, so "
                "neither the base nor the frequency shift affects the output and neither can "
                "be determined"
            )
        return (
            f"at the declared max_d_model={declared} only ln(base)/(d/2 − s) is observable "
            "(two model dimensions ≥ 4 are needed to separate base and frequency shift s), "
            "so the base is taken to be the one requested and s follows from it"
        )

    def sentence(self) -> str:
        """One sentence for the terminal report."""
        text = self._sentence()
        note = self._dims_note()
        return text if note is None else f"{text[:-1]}; {note}."

    def _sentence(self) -> str:
        """:meth:`sentence` without the note on undetermined parameters."""
        if self.non_deterministic is not None:
            found = self.non_deterministic
            return (
                "Output is not deterministic: two identical calls "
                f"({found['probe']}) differ by up to {found['max_difference']:.3g} "
                f"(position {found['position']:g}, column {found['column']}), so neither a "
                "convention nor a working precision can be inferred from it."
            )
        if self.known_mistake is not None:
            return (
                f"Output is the canonical encoding with {self.known_mistake['description']}, "
                f"computed in {self.working_precision}: a mistake, not a convention of the "
                "family."
            )
        if not self.explained or self.convention is None:
            return self._unexplained_sentence()
        clauses = self._clauses()
        if self.declared is not None:
            return self._declared_sentence(clauses)
        if _is_canonical(self.convention):
            if clauses:
                return f"Output follows the canonical convention, but {'; '.join(clauses)}."
            return (
                f"Output matches the canonical convention computed in {self.working_precision}; "
                "the failure is neither a different convention nor a lower working precision."
            )
        if _is_canonical({**self.convention, "base_follows_argument": True}):
            base = self.convention["base"]
            computed = "" if self.precision_is_cause else f" computed in {self.working_precision}"
            text = (
                f"Output follows the canonical convention{computed}, but with the base fixed "
                f"at {base:g} whatever base is requested (the base argument is ignored)"
            )
            return "; ".join([text, *clauses]) + "."
        text = (
            f"Output matches {_convention_name(self.convention)} ({_details(self.convention)}), "
            f"not the canonical encoding that was expected{_shared_with_presets(self.convention)}"
        )
        return "; ".join([text, *clauses, *_how_to_declare(self.convention)]) + "."

    def _unexplained_sentence(self) -> str:
        """The sentence when no member of the family explains the output."""
        notes = self.evidence.get("probe_notes") or {}
        if not self.candidates and notes:  # no fit probe was usable
            label, note = next(iter(notes.items()))
            return (
                "Output matches no known convention of the sinusoidal family: no diagnosis "
                f"probe gave a usable output ({label}: {note})."
            )
        text = "Output matches no known convention of the sinusoidal family"
        if self.candidates:
            best = self.candidates[0]
            text += (
                f" (closest: {_convention_name(best['convention'])}, max error "
                f"{best['max_abs_error']:.3g})"
            )
        if self.declared is not None:
            text += f", not the declared {self.declared.get('name', 'custom')} convention"
        rounded = self.positions_rounded_in
        if rounded is not None:
            text += f"; timesteps rounded to {rounded} before the embedding"
        return text + "."

    def _declared_sentence(self, clauses: list[str]) -> str:
        """The sentence relative to a declared convention (the fit explained the output)."""
        assert self.declared is not None and self.convention is not None
        declared = Convention.from_dict(self.declared)
        name = f"the declared {declared.name} convention"
        if _is_member(self.convention, declared):
            if clauses:
                return f"Output follows {name}, but {'; '.join(clauses)}."
            return (
                f"Output matches {name} computed in {self.working_precision}; the failure is "
                "neither a different convention nor a lower working precision."
            )
        wanted = {**declared.to_dict(), "base_follows_argument": True, "base": PRIMARY_BASE}
        rule = "sqrt(2/d)" if declared.output_scale == "sqrt(2/d)" else "constant"
        scale = 1.0 if rule != "constant" else float(declared.output_scale)
        wanted |= {"output_scale": scale, "output_scale_rule": rule}
        text = (
            f"Output computes {_convention_name(self.convention)} "
            f"({_details(self.convention)}), not {name} ({_details(wanted)})"
        )
        return "; ".join([text, *clauses]) + "."


def _is_member(data: dict[str, Any], declared: Convention) -> bool:
    """True when the fitted convention ``data`` is ``declared`` (unit output, base honoured)."""
    if declared.output_scale == "sqrt(2/d)":
        scaled_as_declared = data["output_scale_rule"] == "sqrt(2/d)"
    else:
        scaled_as_declared = (
            data["output_scale_rule"] == "constant"
            and data["output_scale"] == declared.output_scale
        )
    unscaled = dataclasses.replace(declared, output_scale=1.0)
    return (
        _convention_of(data) == unscaled
        and scaled_as_declared
        and (data["base_follows_argument"] or data["base"] == PRIMARY_BASE)
    )


def _is_canonical(data: dict[str, Any]) -> bool:
    return (
        _convention_of(data).is_canonical
        and data["output_scale_rule"] == "constant"
        and data["output_scale"] == 1.0
        and data["base_follows_argument"]
    )


def _convention_of(data: dict[str, Any]) -> Convention:
    keys = ("layout", "frequency_shift", "position_offset", "argument_scale")
    return Convention.from_dict({key: data[key] for key in keys} | {"name": "fitted"})


def _convention_name(data: dict[str, Any]) -> str:
    """ "the tensor2tensor/whisper/diffusers convention", a diffusers parameterisation, or
    "a convention of the family"."""
    names = data.get("matching_presets") or []
    if names == ["canonical"]:
        canonical = _is_canonical(data)
        return "the canonical convention" if canonical else "a variant of the canonical convention"
    if names:
        return f"the {'/'.join(names)} convention"
    convention = _convention_of(data)
    if convention.layout != "interleaved" and convention.position_offset == 0:
        name = diffusers_convention(
            convention.layout == "cos_sin_halves",
            float(convention.frequency_shift),
            float(convention.argument_scale),
        ).name
        return f"the {name} convention"
    return "a convention of the family"


_PARAMETER_WORDS = {
    "layout": "layout",
    "frequency_shift": "frequency law",
    "position_offset": "position offset",
    "argument_scale": "angle scale",
}


def _shared_with_presets(data: dict[str, Any]) -> str:
    """``: its position offset is fairseq-style`` for a fit that matches no preset: each
    departure from the canonical encoding that a preset convention shares, named by the
    presets (a non-zero offset is "-style": fairseq's is +2), so that an off-by-one position
    or a d/2 − 1 denominator is recognised as the convention it comes from."""
    if data.get("matching_presets"):
        return ""
    fitted = _convention_of(data)
    parts = []
    for key, word in _PARAMETER_WORDS.items():
        value = getattr(fitted, key)
        if value == getattr(Convention(), key):
            continue
        if key == "position_offset":
            names = [n for n, p in PRESETS.items() if p.position_offset != 0]
            shown = ", ".join(f"{n}'s is {PRESETS[n].position_offset:+d}" for n in names)
            if names and value not in [PRESETS[n].position_offset for n in names]:
                parts.append(f"its {word} is {'/'.join(names)}-style ({shown})")
                continue
        names = [n for n, p in PRESETS.items() if getattr(p, key) == value]
        if names:
            parts.append(f"its {word} is that of the {'/'.join(names)} convention")
    return f": {'; '.join(parts)}" if parts else ""


def _how_to_declare(data: dict[str, Any]) -> list[str]:
    """How to declare the fitted convention when it is the one intended (none when the fit
    has an output scale or a fixed base, which no convention declares)."""
    names = data.get("matching_presets") or []
    scaled_preset = data["output_scale_rule"] == "sqrt(2/d)" and names
    if not (
        (scaled_preset or (data["output_scale_rule"] == "constant" and data["output_scale"] == 1.0))
        and data["base_follows_argument"]
    ):
        return []
    if names:
        return [
            f"if the {names[0]} convention is intended, declare it: --convention {names[0]} "
            f"(or the capability convention={names[0]!r})"
        ]
    fitted = {k: v for k, v in _convention_of(data).to_dict().items() if k != "name"}
    return [
        "if that convention is intended, declare it: --convention FILE.json holding "
        f"{json.dumps(fitted)} (or that dict as the capability convention)"
    ]


_LAYOUT_WORDS = {
    "interleaved": "interleaved sin/cos",
    "sin_cos_halves": "sines|cosines halves",
    "cos_sin_halves": "cosines|sines halves",
}


def _details(data: dict[str, Any]) -> str:
    """Layout, frequency law and every non-default parameter, in words."""
    shift = float(data["frequency_shift"])
    if shift == 0:
        law = "ω_k = base^(−2k/d)"
    elif shift == 1:
        law = "ω_k = base^(−k/(d/2−1))"
    else:
        law = f"ω_k = base^(−k/(d/2{-shift:+g}))".replace("-", "−")
    parts = [_LAYOUT_WORDS[data["layout"]], law]
    if not data["base_follows_argument"]:
        parts.append(f"base fixed at {data['base']:g} whatever base is requested")
    if data["position_offset"]:
        parts.append(f"positions shifted by {data['position_offset']:+d}")
    if data["argument_scale"] != 1.0:
        parts.append(f"angles scaled by {data['argument_scale']:g}")
    if data["output_scale_rule"] == "sqrt(2/d)":
        parts.append("outputs scaled by √(2/d)")
    elif data["output_scale"] != 1.0:
        parts.append(f"outputs scaled by {data['output_scale']:g}")
    return ", ".join(parts)
