"""The family of sinusoidal encoding conventions found in real implementations (SPEC §3).

A :class:`Convention` fixes everything except ``d_model`` and ``base``:

* ``layout``: where the sine and cosine of pair k go among the d columns.
  ``"interleaved"`` (canonical, Vaswani et al. 2017): column 2k = sin, 2k+1 = cos.
  ``"sin_cos_halves"``: columns [0, d/2) are the sines, [d/2, d) the cosines.
  ``"cos_sin_halves"``: columns [0, d/2) are the cosines, [d/2, d) the sines.
* ``frequency_shift`` s: ω_k = base^(−k/(d/2 − s)), k = 0 .. d/2−1. s = 0 is the
  canonical ω_k = base^(−2k/d); s = 1 is the tensor2tensor/fairseq form whose
  lowest frequency is exactly 1/base. Undefined when d/2 − s ≤ 0.
* ``position_offset`` o: the encoding of position p is computed at p + o
  (fairseq-style tables start real tokens at padding_idx + 1).
* ``argument_scale`` c: the angle is c·(p + o)·ω_k (diffusers' ``scale``).
* ``output_scale`` A: both columns are multiplied by A, a float64 in (0, 1] or the
  exact irrational ``"sqrt(2/d)"`` (mlx's default; SPEC §3.1, Annex F.8).
* ``frequency_formula``: how a backend of this convention computes ω_k, for the error model
  only (the exact values do not depend on it, so it is not compared): ``"power"`` (SPEC §4.1
  A3: exp(−k·ln(base)/(d/2 − s)) or a power) or ``"log-linear"`` (mlx: exp of a linspace
  from ln base down to 0, minus ln base; SPEC §4.1 A8, Annex A.8). Needs an integer s.

So for pair k, with θ = c·(p + o)·ω_k, the pair's two columns hold A·sin θ and
A·cos θ, placed by ``layout``. ``base`` is not part of the convention: every
function takes it as its own parameter.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.rotation import TableLayout
from pespec.sinusoidal.reference.validation import check_d_model

__all__ = [
    "CANONICAL",
    "DIFFUSERS_DEFAULT",
    "FAIRSEQ",
    "FREQUENCY_FORMULAS",
    "GUIDED_DIFFUSION",
    "LAYOUTS",
    "MARIAN",
    "MLX",
    "OUTPUT_SCALE_RULES",
    "PRESETS",
    "PRESET_SOURCES",
    "TENSOR2TENSOR",
    "TIMESTEP_PRESETS",
    "TIMESTEP_SOURCES",
    "WHISPER",
    "Convention",
    "Layout",
    "diffusers_convention",
    "preset",
    "preset_names",
    "preset_source",
]

Layout = Literal["interleaved", "sin_cos_halves", "cos_sin_halves"]
LAYOUTS: tuple[Layout, ...] = ("interleaved", "sin_cos_halves", "cos_sin_halves")
OUTPUT_SCALE_RULES: tuple[str, ...] = ("sqrt(2/d)",)
"""The symbolic output scales: exact irrational values that depend on d (SPEC §3.1)."""
FREQUENCY_FORMULAS: tuple[str, ...] = ("power", "log-linear")
"""How ω_k is computed, for the error model (SPEC §4.1 A3, A8); not part of the exact values."""


@dataclass(frozen=True)
class Convention:
    """One member of the sinusoidal-encoding family; hashable, immutable (SPEC §3)."""

    layout: Layout = "interleaved"
    frequency_shift: float = 0.0
    position_offset: int = 0
    argument_scale: float = 1.0
    name: str = field(default="canonical", compare=False)
    output_scale: float | str = 1.0
    frequency_formula: str = field(default="power", compare=False)

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {LAYOUTS}; got {self.layout!r}")
        for field_name in ("frequency_shift", "argument_scale"):
            value = getattr(self, field_name)
            allowed = "a finite real number exactly representable in float64"
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
                raise TypeError(f"{field_name} must be {allowed}; got {value!r}")
            try:
                as_float = float(value)
            except OverflowError:
                raise ValueError(f"{field_name} must be {allowed}; got {value!r}") from None
            if not math.isfinite(as_float) or as_float != value:
                raise ValueError(f"{field_name} must be {allowed}; got {value!r}")
            object.__setattr__(self, field_name, as_float)  # normalised: JSON is stable
        if isinstance(self.position_offset, (bool, np.bool_)) or not isinstance(
            self.position_offset, numbers.Integral
        ):
            raise TypeError(f"position_offset must be an int; got {self.position_offset!r}")
        object.__setattr__(self, "position_offset", int(self.position_offset))
        if self.argument_scale == 0.0:
            raise ValueError("argument_scale must be non-zero; got 0")
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a str; got {self.name!r}")
        object.__setattr__(self, "output_scale", _check_output_scale(self.output_scale))
        _check_frequency_formula(self.frequency_formula, self.frequency_shift)
        if self.name == "canonical" and not self.is_canonical:
            object.__setattr__(self, "name", "custom")  # the default name would mislead

    @property
    def is_canonical(self) -> bool:
        """True when this convention gives the canonical Vaswani encoding."""
        return (
            self.layout == "interleaved"
            and self.frequency_shift == 0
            and self.position_offset == 0
            and self.argument_scale == 1
            and self.output_scale == 1.0
        )

    def amplitude_squared(self, d_model: int) -> Fraction:
        """A², exactly: the output scale A = √(A²) at ``d_model`` (A² = 2/d for "sqrt(2/d)")."""
        d = check_d_model(d_model)
        if self.output_scale == "sqrt(2/d)":
            return Fraction(2, d)
        return Fraction(self.output_scale) ** 2

    def amplitude(self, d_model: int) -> float:
        """The output scale A at ``d_model``, correctly rounded to float64 (1.0 when unscaled)."""
        return _sqrt_nearest(self.amplitude_squared(d_model))

    def denominator(self, d_model: int) -> float:
        """d/2 − s, the denominator of the frequency exponent; raises if ≤ 0."""
        d = check_d_model(d_model)
        denominator = d / 2 - float(self.frequency_shift)
        if not denominator > 0:
            raise ValueError(
                f"convention {self.name!r} is undefined for d_model={d}: the frequency "
                f"exponent denominator d/2 - frequency_shift = {d // 2} - "
                f"{self.frequency_shift} must be > 0"
            )
        return denominator

    def exponent_fraction(self, d_model: int) -> tuple[int, int] | None:
        """(numerator factor, denominator) as ints when s is an integer, else None.

        ω_k = base^(−k/den) with den = d/2 − s; exact arithmetic (the oracle) uses this.
        """
        den = self.denominator(d_model)
        if float(self.frequency_shift).is_integer():
            return 1, int(den)
        return None

    def sin_columns(self, d_model: int) -> NDArray[np.intp]:
        """Column index of sin θ_k for k = 0 .. d/2−1, shape (d/2,) (the layout's order in
        :class:`~pespec.numerics.rotation.TableLayout`, one rule for every family)."""
        return TableLayout(self.layout).sin_columns(check_d_model(d_model))

    def cos_columns(self, d_model: int) -> NDArray[np.intp]:
        """Column index of cos θ_k for k = 0 .. d/2−1, shape (d/2,)."""
        return TableLayout(self.layout).cos_columns(check_d_model(d_model))

    def column_roles(self, d_model: int) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
        """For every column j: (pair index k, True where the column holds a sine); shapes (d,)."""
        d = check_d_model(d_model)
        pair = np.empty(d, dtype=np.intp)
        is_sin = np.zeros(d, dtype=bool)
        k = np.arange(d // 2, dtype=np.intp)
        pair[self.sin_columns(d)] = k
        pair[self.cos_columns(d)] = k
        is_sin[self.sin_columns(d)] = True
        return pair, is_sin

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description (used by fixtures and reports); ``output_scale`` only when
        it is not 1 and ``frequency_formula`` only when it is not "power", so the other
        conventions keep their JSON of spec 1.1 byte for byte."""
        data: dict[str, Any] = {
            "name": self.name,
            "layout": self.layout,
            "frequency_shift": self.frequency_shift,
            "position_offset": self.position_offset,
            "argument_scale": self.argument_scale,
        }
        if self.output_scale != 1.0:
            data["output_scale"] = self.output_scale
        if self.frequency_formula != "power":
            data["frequency_formula"] = self.frequency_formula
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Convention:
        """Inverse of :meth:`to_dict`; a missing or unknown key raises ValueError naming it."""
        required = ("layout", "frequency_shift", "position_offset", "argument_scale")
        missing = [key for key in required if key not in data]
        unknown = sorted(set(data) - {*required, "name", "output_scale", "frequency_formula"})
        if missing or unknown:
            raise ValueError(
                f"convention dict must have keys {required} (and optionally 'name', "
                f"'output_scale', 'frequency_formula'); missing {missing}, unknown {unknown}"
            )
        return cls(
            layout=data["layout"],
            frequency_shift=data["frequency_shift"],
            position_offset=data["position_offset"],
            argument_scale=data["argument_scale"],
            name=data.get("name", "custom"),
            output_scale=data.get("output_scale", 1.0),
            frequency_formula=data.get("frequency_formula", "power"),
        )


def _check_output_scale(value: Any) -> float | str:
    """The output scale normalised: a float64 in (0, 1] or a name of OUTPUT_SCALE_RULES.

    A ≤ 1 keeps every output in [−1, 1] (a rounded Â ≤ 1 times |v̂| ≤ 1 rounds to ≤ 1), so
    the bounds of SPEC §4–§5 that use |x| ≤ 1 stay sound."""
    if isinstance(value, str):
        if value in OUTPUT_SCALE_RULES:
            return value
        raise ValueError(
            f"output_scale must be a float in (0, 1] or one of {OUTPUT_SCALE_RULES}; got {value!r}"
        )
    allowed = "a float64 number in (0, 1] or one of " + repr(OUTPUT_SCALE_RULES)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"output_scale must be {allowed}; got {value!r}")
    try:
        as_float = float(value)
    except OverflowError:
        raise ValueError(f"output_scale must be {allowed}; got {value!r}") from None
    if as_float != value or not 0.0 < as_float <= 1.0:
        raise ValueError(f"output_scale must be {allowed}; got {value!r}")
    return as_float


def _check_frequency_formula(value: Any, frequency_shift: float) -> None:
    """ValueError unless ``value`` is one of FREQUENCY_FORMULAS; "log-linear" needs an integer
    frequency_shift (its linspace divides by d/2 − s exactly, SPEC §4.1 A8)."""
    if value not in FREQUENCY_FORMULAS:
        raise ValueError(f"frequency_formula must be one of {FREQUENCY_FORMULAS}; got {value!r}")
    if value == "log-linear" and not float(frequency_shift).is_integer():
        raise ValueError(
            "frequency_formula 'log-linear' needs an integer frequency_shift (mlx: 1); got "
            f"{frequency_shift!r}"
        )


def _sqrt_nearest(square: Fraction) -> float:
    """√square (0 < square ≤ 1) correctly rounded to float64: the integer square root with
    ≥ 118 bits, and a sticky half when it is inexact, then one rounding (no double rounding;
    A below 2^-1022 rounds twice)."""
    shift = 2 * (121 + (square.denominator.bit_length() - square.numerator.bit_length()) // 2)
    scaled, remainder = divmod(square.numerator << shift, square.denominator)
    root = math.isqrt(scaled)
    sticky = 0 if remainder == 0 and root * root == scaled else 1
    return math.ldexp(float(Fraction(2 * root + sticky, 2)), -shift // 2)


CANONICAL = Convention()
"""Vaswani et al. (2017), "Attention Is All You Need", §3.5: PE(pos, 2i) = sin(pos/10000^(2i/d)),
PE(pos, 2i+1) = cos(pos/10000^(2i/d)); interleaved, ω_i = base^(−2i/d)."""

TENSOR2TENSOR = Convention(layout="sin_cos_halves", frequency_shift=1, name="tensor2tensor")
"""tensor2tensor ``common_attention.get_timing_signal_1d`` (min_timescale 1, max_timescale =
base): log_timescale_increment = log(max_timescale/min_timescale) / max(num_timescales − 1, 1)
(so s = 1) and signal = concat([sin, cos], axis=1); the halves layout is discussed in
tensor2tensor issues #177, #1591 and #1925. lucidrains' ``SinusoidalPosEmb`` and the HF
annotated-diffusion ``SinusoidalPositionEmbeddings`` use the same formula."""

FAIRSEQ = Convention(layout="sin_cos_halves", frequency_shift=1, position_offset=2, name="fairseq")
"""fairseq ``SinusoidalPositionalEmbedding.get_embedding``: emb = log(10000)/(half_dim − 1),
concat([sin, cos]); ``make_positions`` numbers real tokens from padding_idx + 1, and with
the usual padding_idx = 1 the first token sits at position 2. Also HF M2M100
(``M2M100SinusoidalPositionalEmbedding``, offset = 2)."""

WHISPER = Convention(layout="sin_cos_halves", frequency_shift=1, name="whisper")
"""OpenAI Whisper ``model.sinusoids``: log_timescale_increment =
log(max_timescale)/(channels//2 − 1), concat([sin, cos]) over positions 0 .. length−1."""

GUIDED_DIFFUSION = Convention(layout="cos_sin_halves", name="guided-diffusion")
"""openai/guided-diffusion ``nn.timestep_embedding``: freqs = exp(−log(max_period)·k/half),
embedding = cat([cos, sin]) (canonical frequencies, cosines first; fractional timesteps
allowed). DiT's ``TimestepEmbedder.timestep_embedding`` is the same."""

MARIAN = Convention(layout="sin_cos_halves", name="marian")
"""HF ``MarianSinusoidalPositionalEmbedding._init_weight``: angle pos/10000^(2(j//2)/d)
(canonical frequencies); out[:, :d/2] = sin(even-j angles), out[:, d/2:] = cos(odd-j angles).
Transformer-XL's ``PositionalEmbedding`` (inv_freq = 1/10000^(arange(0, d, 2)/d),
cat([sin, cos])) has the same layout and frequencies."""


def diffusers_convention(
    flip_sin_to_cos: bool = False, downscale_freq_shift: float = 1.0, scale: float = 1.0
) -> Convention:
    """diffusers ``get_timestep_embedding``: exponent = −log(max_period)·k/(half − shift),
    emb = scale·t·exp(exponent), concat([sin, cos]), swapped to [cos, sin] by flip_sin_to_cos.
    ``max_period`` is the base. Defaults as in diffusers (shift 1, scale 1, no flip)."""
    return Convention(
        layout="cos_sin_halves" if flip_sin_to_cos else "sin_cos_halves",
        frequency_shift=downscale_freq_shift,
        argument_scale=scale,
        name=(
            f"diffusers(flip_sin_to_cos={flip_sin_to_cos}, "
            f"downscale_freq_shift={downscale_freq_shift}, scale={scale})"
        ),
    )


DIFFUSERS_DEFAULT = diffusers_convention()
"""diffusers ``get_timestep_embedding`` with its default arguments."""

MLX = Convention(
    layout="sin_cos_halves",
    frequency_shift=1,
    output_scale="sqrt(2/d)",
    name="mlx",
    frequency_formula="log-linear",
)
"""mlx ``nn.SinusoidalPositionalEncoding(dims)`` with its defaults (mlx 0.32.4,
``python/mlx/nn/layers/positional_encoding.py``, lines 78-128): ``min_freq=1e-4``,
``max_freq=1``, ``scale=None`` → ``(2/dims)**0.5``, ``cos_first=False``,
``full_turns=False``. sigmas = exp((1 − k/(dims/2 − 1))·(ln max_freq − ln min_freq) +
ln min_freq) = 10^4^(−k/(d/2 − 1)) (s = 1, base 1/min_freq = 10^4), y = x[..., None]·sigmas,
concatenate([sin y, cos y]), then y·scale. The module computes the scale in float64 and
multiplies in the input's format (float32): the exact √(2/d) is the convention, that rounding
belongs to the error model (SPEC Annex F.8). So does the float32 linspace (1 − k/(d/2 − 1))
·ln(10^4) − ln(10^4) under the exp: ``frequency_formula="log-linear"`` (SPEC Annex A.8)."""

PRESETS: dict[str, Convention] = {
    "canonical": CANONICAL,
    "tensor2tensor": TENSOR2TENSOR,
    "fairseq": FAIRSEQ,
    "whisper": WHISPER,
    "guided-diffusion": GUIDED_DIFFUSION,
    "marian": MARIAN,
    "diffusers": DIFFUSERS_DEFAULT,
    "mlx": MLX,
}
"""Named presets by name; each documented above from its public source."""

PRESET_SOURCES: dict[str, str] = {
    "canonical": "Vaswani et al. 2017, §3.5",
    "tensor2tensor": "tensor2tensor `common_attention.get_timing_signal_1d`",
    "fairseq": "fairseq `SinusoidalPositionalEmbedding` + `make_positions` (padding_idx 1); "
    "HF `M2M100SinusoidalPositionalEmbedding`",
    "whisper": "openai/whisper `model.sinusoids`",
    "guided-diffusion": "openai/guided-diffusion `nn.timestep_embedding`; DiT",
    "marian": "HF `MarianSinusoidalPositionalEmbedding`; Transformer-XL `PositionalEmbedding`",
    "diffusers": "diffusers `get_timestep_embedding` (defaults)",
    "mlx": "mlx `nn.SinusoidalPositionalEncoding` (defaults; mlx 0.32.4 "
    "`nn/layers/positional_encoding.py` L78-128); `frequency_formula` log-linear (§4.1 A8)",
}
"""Where each preset's facts come from (the docstrings above give the formulas)."""


TIMESTEP_PRESETS: dict[str, Convention] = {
    "diffusers-unet": Convention(layout="cos_sin_halves", frequency_shift=0, name="diffusers-unet"),
    "sd3": Convention(layout="cos_sin_halves", frequency_shift=0, name="sd3"),
    "pixart": Convention(layout="cos_sin_halves", frequency_shift=0, name="pixart"),
    "dit": Convention(layout="cos_sin_halves", name="dit"),
    "flux": Convention(layout="cos_sin_halves", argument_scale=1000, name="flux"),
    "wan": Convention(layout="cos_sin_halves", name="wan"),
}
"""The diffusion timestep embeddings as real pipelines call them (SPEC §3.3). They are
members of the family already expressible with :func:`diffusers_convention`; several are
equal as conventions (equal fields), named here for the pipeline a user ports.

* ``diffusers-unet``: diffusers ``UNet2DConditionModel`` builds ``Timesteps(
  block_out_channels[0], flip_sin_to_cos, freq_shift)`` with its config defaults
  ``flip_sin_to_cos=True``, ``freq_shift=0`` (Stable Diffusion 1.x/2.x configs) ->
  ``get_timestep_embedding(t, dim, flip_sin_to_cos=True, downscale_freq_shift=0)``.
* ``sd3``: diffusers ``CombinedTimestepTextProjEmbeddings`` (SD3 transformer):
  ``Timesteps(num_channels=256, flip_sin_to_cos=True, downscale_freq_shift=0)``.
* ``pixart``: diffusers ``PixArtAlphaCombinedTimestepSizeEmbeddings``: the same
  ``Timesteps(256, flip_sin_to_cos=True, downscale_freq_shift=0)``.
* ``dit``: facebookresearch/DiT ``TimestepEmbedder.timestep_embedding`` (from
  guided-diffusion): freqs = exp(−ln(max_period)·k/half), cat([cos, sin]).
* ``flux``: black-forest-labs/flux ``modules/layers.timestep_embedding(t, dim,
  max_period=10000, time_factor=1000.0)``: t = time_factor·t with t in [0, 1], freqs =
  exp(−ln(max_period)·k/half), cat([cos(t·freqs), sin(t·freqs)]): c = 1000, the position
  handed over is t in [0, 1].
* ``wan``: Wan-Video/Wan2.1 ``modules/model.sinusoidal_embedding_1d(dim, position)``:
  position in float64, sinusoid = outer(position, 10000^(−k/half)), cat([cos, sin]). Its
  float64 computation is a level (``float32@float64`` or ``float64``), not the convention.
"""

TIMESTEP_SOURCES: dict[str, str] = {
    "diffusers-unet": "diffusers `UNet2DConditionModel` → `Timesteps(C, flip_sin_to_cos=True, "
    "freq_shift=0)`",
    "sd3": "diffusers SD3 `CombinedTimestepTextProjEmbeddings` → `Timesteps(256, True, 0)`",
    "pixart": "diffusers `PixArtAlphaCombinedTimestepSizeEmbeddings` → `Timesteps(256, True, 0)`",
    "dit": "facebookresearch/DiT `TimestepEmbedder.timestep_embedding`",
    "flux": "black-forest-labs/flux `layers.timestep_embedding` (t ∈ [0, 1], time_factor 1000)",
    "wan": "Wan-Video/Wan2.1 `model.sinusoidal_embedding_1d` (float64 is its level)",
}
"""Where each timestep preset's facts come from."""


def preset_names() -> tuple[str, ...]:
    """Every named convention: the presets of SPEC §3.2, then the timestep presets of §3.3."""
    return (*PRESETS, *TIMESTEP_PRESETS)


def preset_source(name: str) -> str:
    """Where the named convention's facts come from (its public source)."""
    return PRESET_SOURCES.get(name) or TIMESTEP_SOURCES[name]


def preset(name: str) -> Convention:
    """The preset called ``name`` (SPEC §3.2 or §3.3); ValueError naming the known names and
    the close ones."""
    if name in PRESETS:
        return PRESETS[name]
    if name in TIMESTEP_PRESETS:
        return TIMESTEP_PRESETS[name]
    from pespec._suggest import did_you_mean

    raise ValueError(
        f"convention must be one of {list(preset_names())} or a JSON file; got "
        f"{name!r}{did_you_mean(name, preset_names())}"
    )
