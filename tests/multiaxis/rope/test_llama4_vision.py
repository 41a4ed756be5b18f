"""Llama-4's vision 2-D rotary (transformers 5.24 ``Llama4VisionRotaryEmbedding`` with
``vision_apply_rotary_emb``) is a multi-axis rotary: per-axis (24, 24) over (x + 1, y + 1),
adjacent pairs, θ 10000, the cls token not rotated. Read from the source:

``freq_dim = hidden/heads // 2`` = 768/16/2 = 24; ``rope_freq = θ^(−arange(0, 24, 2)[:12]/24)``
= θ^(−2j/24), j < 12; token k of the 32 × 32 patch grid (448/14) has x = k mod 32,
y = k div 32; ``freqs = cat([(x+1)·ω repeated twice, (y+1)·ω repeated twice])[::2]``: pair s
< 12 turns by (x+1)·ω_s, pair 12 + s by (y+1)·ω_s; the cls token (last, id −2) is masked to 0;
``view_as_complex(q.reshape(..., -1, 2)) * freqs_ci``: pairs (2s, 2s + 1). So the config is
``per_axis_rotary((24, 24), 10000)`` with ids (x + 1, y + 1) per patch and (0, 0) for cls,
x first (the w coordinate, as MAE's convention), ids from 1 (not 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np
import pytest
from numpy.typing import NDArray

from pespec.multiaxis.rope.config import per_axis_rotary
from pespec.multiaxis.rope.presets import Preset
from pespec.multiaxis.rope.run import check
from pespec.rope.inputs import drawn_x

IDX = 448 // 14
CONFIG = per_axis_rotary((24, 24), 10000.0, name="llama4-vision")


@dataclass(frozen=True)
class _ModelIds(Preset):
    """The ids the model uses: patch k at (k mod 32 + 1, k div 32 + 1), cls last at (0, 0)."""

    def positions(self) -> NDArray[Any]:
        k = np.arange(IDX * IDX)
        patches = np.stack([k % IDX + 1, k // IDX + 1], axis=1)
        return np.concatenate([patches, [[0, 0]]]).astype(np.int64)


PRESET = _ModelIds(
    "llama4-vision", CONFIG, "grid2d", (1, IDX, IDX), 0, 0, "transformers 5.24 llama4"
)


def _backend(x: NDArray[Any], positions: NDArray[Any], config: Any) -> NDArray[Any]:
    """The real table and apply. The table is the model's for a square grid of side m (the
    largest coordinate; image_size 14·m, so the property stages' moved ids fit: the formula
    reads m only through x = k mod m, y = k div m). Pairs 0–11 of a table row depend on x
    alone and 12–23 on y alone, so id (c_x, c_y) takes pairs 0–11 from token c_x − 1 (x = c_x
    − 1, y = 0) and 12–23 from token (c_y − 1)·m (x = 0), a coordinate 0 from the cls row
    (angle 0); q (1, n, 1, 48) through ``vision_apply_rotary_emb``."""
    import torch
    from transformers import Llama4VisionConfig
    from transformers.models.llama4.modeling_llama4 import (
        Llama4VisionRotaryEmbedding,
        vision_apply_rotary_emb,
    )

    p = np.asarray(positions, dtype=np.int64)
    if np.any(p < 0):
        raise ValueError("Llama-4's vision ids are >= 0")
    side = max(int(p.max()), 1)
    freqs = Llama4VisionRotaryEmbedding(Llama4VisionConfig(image_size=14 * side)).freqs_ci
    cls = side * side
    row_x = torch.from_numpy(np.where(p[:, 0] == 0, cls, p[:, 0] - 1))
    row_y = torch.from_numpy(np.where(p[:, 1] == 0, cls, (p[:, 1] - 1) * side))
    table = torch.cat([freqs[row_x][..., :12], freqs[row_y][..., 12:]], dim=-1)
    q = torch.from_numpy(np.asarray(x)).float()[None, :, None]
    out, _ = vision_apply_rotary_emb(q, q, table)
    return np.asarray(out[0, :, 0].numpy())


def _mp_row(values: list[float], token: int) -> list[float]:
    """400-bit transcription of the model's formula for token ``token`` (module docstring)."""
    out = list(values)
    if token == IDX * IDX:  # cls: masked to angle 0
        return [float(v) for v in values]
    with mpmath.workprec(400):
        for s in range(24):
            coordinate = (token % IDX if s < 12 else token // IDX) + 1
            omega = mpmath.power(10000, -mpmath.mpf(2 * (s % 12)) / 24)
            c, sn = mpmath.cos(coordinate * omega), mpmath.sin(coordinate * omega)
            a, b = mpmath.mpf(values[2 * s]), mpmath.mpf(values[2 * s + 1])
            out[2 * s], out[2 * s + 1] = float(a * c - b * sn), float(a * sn + b * c)
    return out


def test_the_config_is_the_models_formula() -> None:
    # The declared config's oracle at the model's ids equals the transcription of the
    # model's own formula (by token), so the expression as a multi-axis rotary is exact.
    from pespec.multiaxis.rope.reference import oracle_apply

    tokens = np.array([0, 1, 31, 32, 33, 500, 1023, 1024])
    positions = PRESET.positions()[tokens]
    x = drawn_x(tokens.size, 48, seed=2)
    want = np.array([_mp_row(r, int(t)) for r, t in zip(x.tolist(), tokens, strict=True)])
    assert np.array_equal(oracle_apply(x, positions, CONFIG), want)


def test_real_llama4_vision_rotary_is_conformant_at_its_ids() -> None:
    pytest.importorskip("transformers")
    pytest.importorskip("torch")
    report = check(_backend, config=PRESET)
    assert report.conformant, [c.message for c in report.checks if c.status != "passed"]
    assert report.level == "float32/float32/float32"
