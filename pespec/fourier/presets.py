"""The Fourier-feature presets (SPEC §10.3): each a library's convention, with its source.

Every preset is one :class:`~pespec.fourier.convention.FourierConvention` row; the given
matrices B of the random-feature presets are fixed dyadic numbers (exact in float32, so a
float32 library holds the same B), standing in for one draw: the check is given B, never of
its randomness (SPEC §10.1).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pespec._suggest import did_you_mean
from pespec.fourier.convention import FourierConvention

__all__ = ["PRESETS", "convention_from", "dyadic_matrix", "preset"]


def dyadic_matrix(rows: int, cols: int, seed: int, scale: int) -> tuple[tuple[float, ...], ...]:
    """A fixed (rows, cols) matrix of dyadic entries in (-scale, scale), 1/64 apart: entry
    (j, i) is ((seed + 7919·j + 104729·i)² mod 2·64·scale − 64·scale)/64 (integers and a power
    of two: exact in float32 and float64, the same on every platform)."""
    span = 2 * 64 * scale
    return tuple(
        tuple(
            float(((seed + 7919 * j + 104729 * i) ** 2 % span - 64 * scale) / 64)
            for i in range(cols)
        )
        for j in range(rows)
    )


_NERF_CODE = (
    "bmild/nerf run_nerf_helpers.py get_embedder(multires=10): identity first, then for each "
    "freq in 2.**linspace(0, 9, 10): sin(x*freq), cos(x*freq) (no π; bmild/nerf #12, #50; "
    "yenchenlin/nerf-pytorch get_embedder the same)"
)

_GAUSSIAN_ROWS: tuple[tuple[str, str, tuple[float, float], bool, str], ...] = (
    # diffusers' GaussianFourierProjection (W given: 16 fixed values, dyadic_matrix(16, 1, 3,
    # 16)); name, blocks, domain, input_log, source
    (
        "diffusers-gaussian-fourier",
        "sin|cos",
        (-5.0, 6.0),
        False,
        "diffusers embeddings.py GaussianFourierProjection(log=False, "
        "flip_sin_to_cos=False): x[:, None]·W[None, :]·2π, cat([sin, cos]); W given "
        "(here 16 fixed values; log=True feeds log x, outside this encoding)",
    ),
    (
        "diffusers-gaussian-fourier-flip",
        "cos|sin",
        (-5.0, 6.0),
        False,
        "diffusers GaussianFourierProjection(log=False, flip_sin_to_cos=True): cat([cos, sin])",
    ),
    (
        "diffusers-gaussian-fourier-log",
        "sin|cos",
        (0.01, 400.0),
        True,
        "diffusers GaussianFourierProjection() defaults (log=True, "
        "flip_sin_to_cos=False): log σ·W·2π, cat([sin, cos]); σ in [0.01, 400] (VE-SDE "
        "noise levels); W given",
    ),
    (
        "diffusers-gaussian-fourier-log-flip",
        "cos|sin",
        (0.01, 400.0),
        True,
        "GaussianFourierProjection(log=True, flip_sin_to_cos=True): cat([cos, sin]) "
        "of log σ·W·2π; what diffusers UNet2DModel(time_embedding_type='fourier') declares "
        "with its flip_sin_to_cos=True default ('Whether to flip sin to cos for Fourier "
        "time embedding')",
    ),
)

PRESETS: dict[str, FourierConvention] = {
    c.name: c
    for c in (
        FourierConvention(
            name="nerf",
            in_dims=3,
            pi="none",
            law="base2",
            bands=10,
            order="band-major",
            blocks="per-band",
            raw="first",
            source=_NERF_CODE,
        ),
        FourierConvention(
            name="nerf-paper",
            in_dims=3,
            pi="pi",
            law="base2",
            bands=10,
            order="band-major",
            blocks="per-band",
            raw="first",
            source="Mildenhall et al. 2020, NeRF, eq. 4: γ(p) = (sin(2^0 πp), cos(2^0 πp), ..., "
            "sin(2^(L-1) πp), cos(2^(L-1) πp)), L = 10, in the code's layout (the paper fixes "
            "no layout for a 3-vector; the code's is kept so nerf and nerf-paper differ in π "
            "alone)",
        ),
        FourierConvention(
            name="nerfstudio-nerf",
            in_dims=3,
            pi="2pi",
            law="geometric",
            bands=10,
            base=2.0,
            exponent_start=0,
            exponent_step=8,
            exponent_denominator=9,
            order="axis-major",
            blocks="sin|cos",
            raw="last",
            domain=(0.0, 1.0),
            source="nerfstudio field_components/encodings.py NeRFEncoding (torch path), "
            "vanilla NeRF's position encoding: num_frequencies=10, min_freq_exp=0, "
            "max_freq_exp=8, include_input=True: sin(cat([2π·x·f, 2π·x·f + π/2])), f = "
            "2**linspace(0, 8, 10), (input_dim, num_scales) flattened; input in [0, 1]",
        ),
        FourierConvention(
            name="rff-tancik",
            in_dims=2,
            pi="2pi",
            law="matrix",
            matrix=dyadic_matrix(16, 2, 1, 16),
            blocks="cos|sin",
            domain=(0.0, 1.0),
            source="Tancik et al. 2020, Fourier Features Let Networks Learn High Frequency "
            "Functions, eq. 5: γ(v) = [cos(2πBv), sin(2πBv)], B given (here 16×2, fixed)",
        ),
        *(
            FourierConvention(
                name=name,
                in_dims=1,
                pi="2pi",
                law="matrix",
                matrix=dyadic_matrix(16, 1, 3, 16),
                blocks=blocks,
                domain=domain,
                input_log=input_log,
                source=source,
            )
            for name, blocks, domain, input_log, source in _GAUSSIAN_ROWS
        ),
        FourierConvention(
            name="timm-fourier",
            in_dims=2,
            pi="none",
            law="geometric",
            bands=64,
            base=10000.0,
            exponent_start=0,
            exponent_step=-1,
            exponent_denominator=64,
            order="axis-major",
            blocks="sin|cos",
            domain=(0.0, 13.0),
            integer_inputs=True,
            source="timm layers/pos_embed_sincos.py build_fourier_pos_embed(feat_shape=[14, 14], "
            "num_bands=64, in_pixels=False): grid·freq_bands(64, temperature=10000, step=1) = "
            "1/10000^(j/64); [pos_sin, pos_cos], each (14, 14, 2, 64) flattened",
        ),
        FourierConvention(
            name="timm-fourier-linear",
            in_dims=2,
            pi="pi",
            law="linear",
            bands=64,
            linear_start=1.0,
            linear_stop=112.0,
            order="axis-major",
            blocks="sin|cos",
            domain=(0.0, 13.0),
            integer_inputs=True,
            source="timm build_fourier_pos_embed(feat_shape=[14, 14], num_bands=64, "
            "linear_bands=True, max_res=224, in_pixels=True, grid_type='index'): index grid · "
            "pixel_freq_bands = linspace(1, 112, 64)·π",
        ),
    )
}
"""The presets by name (``pespec check --family fourier --config NAME``)."""


def preset(name: str) -> FourierConvention:
    """The preset ``name``; ValueError naming the presets and the closest."""
    if name not in PRESETS:
        raise ValueError(
            f"--config must be a fourier preset ({', '.join(PRESETS)}) or a JSON file; "
            f"got {name!r}{did_you_mean(name, PRESETS)}"
        )
    return PRESETS[name]


_FIELDS = set(FourierConvention.__dataclass_fields__)


def _from_mapping(data: Mapping[str, Any]) -> FourierConvention:
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise ValueError(
            f"a fourier convention has no field(s) {unknown}; known: {sorted(_FIELDS)}"
        )
    values = dict(data)
    if "matrix" in values:
        values["matrix"] = tuple(tuple(row) for row in values["matrix"])
    if "domain" in values:
        values["domain"] = tuple(values["domain"])
    return FourierConvention(**values)


def convention_from(value: Any) -> FourierConvention:
    """A convention from a :class:`FourierConvention`, a preset name, a dict (``to_dict``
    form, optionally ``{"preset": NAME, ...changes}``) or a JSON file path; ValueError naming
    the presets otherwise."""
    if isinstance(value, FourierConvention):
        return value
    if isinstance(value, Mapping):
        if "preset" in value:
            changes = {k: v for k, v in value.items() if k != "preset"}
            base = preset(str(value["preset"])).to_dict()
            return _from_mapping({**base, **changes, "source": ""})
        return _from_mapping(value)
    if isinstance(value, str):
        if value in PRESETS:
            return PRESETS[value]
        if value.endswith(".json"):
            try:
                data = json.loads(Path(value).read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise ValueError(
                    f"--config {value}: cannot read a JSON convention ({exc})"
                ) from None
            if not isinstance(data, dict):
                raise ValueError(f"--config {value}: must hold a JSON object")
            return convention_from(data)
        return preset(value)
    raise TypeError(f"a fourier convention must be a preset name, dict or JSON path; got {value!r}")
