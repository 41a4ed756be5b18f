"""NumPy emulations of public sinusoidal-encoding implementations, for the diagnosis tests.

Each :class:`Emulation` is an Encoder ``(positions, d_model, base) -> (n, d_model)`` that
follows one public recipe step by step, rounding every intermediate to its working format
the way a framework does when the whole computation runs in the model dtype:

    k = 0 .. d/2−1;  e_k = k·fl(−ln(base)/(d/2 − s));  ω_k = exp(e_k);  q = p + o;
    θ = (c·q)·ω_k;   sin θ and cos θ placed by the layout;  times the output scale A.

Every arithmetic result is computed in float64 and rounded once to the working format
(``_round``), i.e. correctly rounded operations in that format. The recipes are written
from the published formulas (cited in :mod:`pespec.sinusoidal.reference.conventions` and in
``EMULATIONS`` below), not copied from the projects.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np
from numpy.typing import NDArray

FORMATS: dict[str, Any] = {
    "float64": np.float64,
    "float32": np.float32,
    "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
}


def _round(values: Any, fmt: str) -> NDArray[np.float64]:
    """``values`` rounded to the format ``fmt`` (round to nearest even), returned as float64."""
    with np.errstate(over="ignore"):
        return np.asarray(values, dtype=np.float64).astype(FORMATS[fmt]).astype(np.float64)


@dataclass(frozen=True)
class Emulation:
    """One backend: a convention family member computed in a given working format.

    ``frequency_format``: when set, ω is stored in this format (a buffer cast with the
    model) while positions and angles stay in ``work``. ``output``: output format
    (default ``work``). ``fixed_base``: the base the backend uses whatever it is asked.
    ``output_scale``: a number, or ``"sqrt(2/d)"`` (MLX).
    """

    name: str
    layout: str = "interleaved"
    shift: float = 0.0
    offset: int = 0
    scale: float = 1.0
    output_scale: float | str = 1.0
    fixed_base: float | None = None
    work: str = "float64"
    frequency_format: str | None = None
    output: str | None = None

    def __call__(self, positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        w = self.work
        b = self.fixed_base if self.fixed_base is not None else base
        half = d_model // 2
        k = np.arange(half, dtype=np.float64)
        step = _round(-math.log(b) / (half - self.shift), w)
        omega = _round(np.exp(_round(k * step, w)), w)
        if self.frequency_format is not None:
            omega = _round(omega, self.frequency_format)
        q = _round(_round(np.asarray(positions, dtype=np.float64), w) + self.offset, w)
        if self.scale != 1.0:
            q = _round(self.scale * q, w)
        theta = _round(q[:, None] * omega[None, :], w)
        with np.errstate(invalid="ignore"):  # inf angles (float16 overflow) give NaN
            sin, cos = _round(np.sin(theta), w), _round(np.cos(theta), w)
        out = np.empty((len(q), d_model), dtype=np.float64)
        if self.layout == "interleaved":
            out[:, 0::2], out[:, 1::2] = sin, cos
        elif self.layout == "interleaved_cos_first":
            out[:, 0::2], out[:, 1::2] = cos, sin
        elif self.layout == "sin_cos_halves":
            out[:, :half], out[:, half:] = sin, cos
        else:
            out[:, :half], out[:, half:] = cos, sin
        if self.output_scale == "sqrt(2/d)":
            out = _round(out * math.sqrt(2.0 / d_model), w)
        elif self.output_scale != 1.0:
            out = _round(out * float(self.output_scale), w)
        return out.astype(FORMATS[self.output or w])


@dataclass(frozen=True)
class Expected:
    """What the diagnosis must say about an emulation."""

    emulation: Emulation
    layout: str | None
    frequency_shift: float | None = None
    preset: str | None = None
    precision: str = "unknown"
    position_offset: int = 0
    argument_scale: float = 1.0
    base: float | None = None
    output_scale_rule: str = "constant"
    output_scale: float = 1.0
    integer_positions_only: bool = False


def _family(
    name: str, layout: str, shift: float, preset: str | None, **options: Any
) -> list[Expected]:
    """One convention in several working precisions (float64, float32, float16, bfloat16)."""
    expected_keys = {"position_offset", "argument_scale", "base", "output_scale_rule"}
    assert not set(options) & {"output_scale", "integer_positions_only"}
    keys = {key: value for key, value in options.items() if key in expected_keys}
    emulation_options = {k: v for k, v in options.items() if k not in expected_keys}
    out = []
    for work in ("float64", "float32", "float16", "bfloat16"):
        emulation = Emulation(
            f"{name} @{work}", layout=layout, shift=shift, work=work, **emulation_options
        )
        out.append(Expected(emulation, layout, shift, preset, work, **keys))
    return out


EMULATIONS: list[Expected] = [
    # Vaswani et al. 2017, the canonical encoding, with torch.arange/exp in the model dtype.
    *_family("canonical", "interleaved", 0.0, "canonical"),
    # ω in bfloat16 (a buffer cast with a bfloat16 model), positions and angles in float32.
    Expected(
        Emulation("canonical, bfloat16 frequencies", work="float32", frequency_format="bfloat16"),
        "interleaved",
        0.0,
        "canonical",
        "bfloat16",
    ),
    # The same with a bfloat16 output, and float16 frequencies with float32 or bfloat16 output
    # (singly rounded frequencies: the error-growth estimate alone is close to the cut).
    Expected(
        Emulation(
            "canonical, bfloat16 frequencies -> bfloat16",
            work="float32",
            frequency_format="bfloat16",
            output="bfloat16",
        ),
        "interleaved",
        0.0,
        "canonical",
        "bfloat16",
    ),
    Expected(
        Emulation("canonical, float16 frequencies", work="float32", frequency_format="float16"),
        "interleaved",
        0.0,
        "canonical",
        "float16",
    ),
    Expected(
        Emulation(
            "canonical, float16 frequencies -> bfloat16",
            work="float32",
            frequency_format="float16",
            output="bfloat16",
        ),
        "interleaved",
        0.0,
        "canonical",
        "float16",
    ),
    # float64 work rounded to a bfloat16 output; float32 work rounded to bfloat16.
    Expected(
        Emulation("canonical @float64 -> bfloat16", output="bfloat16"),
        "interleaved",
        0.0,
        "canonical",
        "float64",
    ),
    Expected(
        Emulation("canonical @float32 -> bfloat16", work="float32", output="bfloat16"),
        "interleaved",
        0.0,
        "canonical",
        "float32",
    ),
    # tensor2tensor get_timing_signal_1d / Whisper sinusoids: halves, s = 1.
    *_family("tensor2tensor", "sin_cos_halves", 1.0, "tensor2tensor"),
    # fairseq SinusoidalPositionalEmbedding / HF M2M100: halves, s = 1, offset 2.
    *_family("fairseq", "sin_cos_halves", 1.0, "fairseq", offset=2, position_offset=2),
    # guided-diffusion timestep_embedding: cos|sin halves, canonical frequencies.
    *_family("guided-diffusion", "cos_sin_halves", 0.0, "guided-diffusion"),
    # HF Marian / Sockeye: sin|cos halves, canonical frequencies.
    *_family("marian", "sin_cos_halves", 0.0, "marian"),
    # diffusers get_timestep_embedding(flip_sin_to_cos=True, downscale_freq_shift=1).
    Expected(
        Emulation("diffusers flip_sin_to_cos", layout="cos_sin_halves", shift=1.0, work="float32"),
        "cos_sin_halves",
        1.0,
        None,
        "float32",
    ),
    # diffusers downscale_freq_shift=0.5 (a non-integer shift).
    Expected(
        Emulation("diffusers shift 0.5", layout="sin_cos_halves", shift=0.5, work="float32"),
        "sin_cos_halves",
        0.5,
        None,
        "float32",
    ),
    # diffusers scale=1000 (timesteps in [0, 1] scaled to [0, 1000]).
    Expected(
        Emulation(
            "diffusers scale 1000", layout="sin_cos_halves", shift=1.0, scale=1000.0, work="float32"
        ),
        "sin_cos_halves",
        1.0,
        None,
        "float32",
        argument_scale=1000.0,
    ),
    # MLX SinusoidalPositionalEncoding: ω from min_freq=1e-4 to max_freq=1 (s = 1, base 1e4),
    # output scale √(2/d); cos_first puts the cosines first.
    Expected(
        Emulation(
            "mlx", layout="sin_cos_halves", shift=1.0, output_scale="sqrt(2/d)", work="float32"
        ),
        "sin_cos_halves",
        1.0,
        "mlx",  # SPEC §3.2's mlx preset: this layout, shift and base, A = √(2/d)
        "float32",
        output_scale_rule="sqrt(2/d)",
    ),
    Expected(
        Emulation(
            "mlx cos_first",
            layout="cos_sin_halves",
            shift=1.0,
            output_scale="sqrt(2/d)",
            work="float32",
        ),
        "cos_sin_halves",
        1.0,
        None,
        "float32",
        output_scale_rule="sqrt(2/d)",
    ),
    # A backend with its base fixed (1000, or 500000 as in Llama-3-style tables).
    Expected(
        Emulation("base fixed 1000", fixed_base=1000.0, work="float32"),
        "interleaved",
        0.0,
        "canonical",
        "float32",
        base=1000.0,
    ),
    Expected(
        Emulation("base fixed 500000", fixed_base=500000.0, work="float64"),
        "interleaved",
        0.0,
        "canonical",
        "float64",
        base=500000.0,
    ),
    Expected(
        Emulation("base fixed 12345", fixed_base=12345.0, work="float64"),
        "interleaved",
        0.0,
        "canonical",
        "float64",
        base=12345.0,
    ),
    # A constant output scale (the encoding multiplied by a factor).
    Expected(
        Emulation("output scale 2", output_scale=2.0, work="float32"),
        "interleaved",
        0.0,
        "canonical",
        "float32",
        output_scale=2.0,
    ),
    Expected(
        Emulation("output scale 0.5 @bfloat16", output_scale=0.5, work="bfloat16"),
        "interleaved",
        0.0,
        "canonical",
        "bfloat16",
        output_scale=0.5,
    ),
    # Probed with integer positions only: scale 1000 aliases every pair at base 500.
    Expected(
        Emulation(
            "diffusers scale 1000, integer positions",
            layout="sin_cos_halves",
            shift=1.0,
            scale=1000.0,
            work="float32",
        ),
        "sin_cos_halves",
        1.0,
        None,
        "float32",
        argument_scale=1000.0,
        integer_positions_only=True,
    ),
    Expected(
        Emulation(
            "tensor2tensor @bfloat16, integer positions", "sin_cos_halves", 1.0, work="bfloat16"
        ),
        "sin_cos_halves",
        1.0,
        "tensor2tensor",
        "bfloat16",
        integer_positions_only=True,
    ),
    # MLX full_turns=True: angles scaled by 2π.
    Expected(
        Emulation(
            "mlx full_turns", layout="sin_cos_halves", shift=1.0, scale=2 * math.pi, work="float32"
        ),
        "sin_cos_halves",
        1.0,
        None,
        "float32",
        argument_scale=2 * math.pi,
    ),
]
"""Every family member in several working precisions, with what the diagnosis must report."""


def garbage(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """Uniform noise in [−1, 1], seeded by the request so that it is deterministic."""
    rng = np.random.default_rng([len(positions), d_model, int(base)])
    return rng.uniform(-1.0, 1.0, size=(len(positions), d_model))


def constant(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """Every element 0.5."""
    return np.full((len(positions), d_model), 0.5)


def zeros(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """Every element 0."""
    return np.zeros((len(positions), d_model))


def raises(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """A backend that always fails."""
    raise RuntimeError("backend exploded")


def wrong_shape(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """One column too many."""
    return np.zeros((len(positions), d_model + 1))


def nans(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """All NaN."""
    return np.full((len(positions), d_model), np.nan)


def linear_frequencies(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """Interleaved sin/cos with ω_k = 1 − k/(d/2): sinusoidal, but no member of the family."""
    half = d_model // 2
    omega = 1.0 - np.arange(half) / half
    theta = np.asarray(positions, dtype=np.float64)[:, None] * omega
    out = np.empty((len(positions), d_model))
    out[:, 0::2], out[:, 1::2] = np.sin(theta), np.cos(theta)
    return out


UNEXPLAINED = {
    "garbage": garbage,
    "constant": constant,
    "zeros": zeros,
    "raises": raises,
    "wrong shape": wrong_shape,
    "nan": nans,
    "linear frequencies": linear_frequencies,
}
"""Backends that neither a family member nor a named mistake explains; each must get "no
known convention". (Cosines-first interleaving, listed here before issue 12, is now named:
see MISTAKES.)"""


def _exponent(multiple: float, work: str) -> Any:
    """Canonical interleave with ω_i = base^(−multiple·i/d) computed in ``work``: the slip of
    writing 4i/d (or i/d) for 2i/d. Frequencies through exp as in :class:`Emulation`."""

    def encoder(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        k = np.arange(d_model // 2, dtype=np.float64)
        step = _round(-multiple * math.log(base) / d_model, work)
        omega = _round(np.exp(_round(k * step, work)), work)
        theta = _round(_round(np.asarray(positions, dtype=np.float64), work)[:, None] * omega, work)
        out = np.empty((len(positions), d_model), dtype=np.float64)
        out[:, 0::2], out[:, 1::2] = _round(np.sin(theta), work), _round(np.cos(theta), work)
        return out.astype(FORMATS[work])

    encoder.__name__ = f"exponent_{multiple:g}i_over_d_{work}"
    return encoder


MISTAKES: list[tuple[str, Any, str, str]] = [
    (
        "cos first @float64",
        Emulation("cos first @float64", layout="interleaved_cos_first"),
        "sin_cos_swapped",
        "float64",
    ),
    (
        "cos first @float32",
        Emulation("cos first @float32", layout="interleaved_cos_first", work="float32"),
        "sin_cos_swapped",
        "float32",
    ),
    ("4i/d @float64", _exponent(4.0, "float64"), "exponent_4i_over_d", "float64"),
    ("4i/d @float32", _exponent(4.0, "float32"), "exponent_4i_over_d", "float32"),
    ("i/d @float64", _exponent(1.0, "float64"), "exponent_i_over_d", "float64"),
]
"""(id, backend, the mistake the diagnosis must name, the working precision it must give):
outputs no convention of the family explains but a common slip does (SPEC Annex D.4)."""
