"""Generated SPEC §8 text: the rotary reference's measured errors against its bounds."""

from __future__ import annotations

import numpy as np

from pespec.rope import oracle
from pespec.rope.presets import PRESETS
from pespec.rope.reference import COS_SIN_BOUND, cos_sin, rotate, rotation_bound

__all__ = ["reference_errors_markdown"]

_POSITIONS = np.concatenate([np.arange(0, 70), np.arange(2**24 - 70, 2**24 + 1),
                             [4095, 4096, 131_071, 1_000_003]])


def _vectors(n: int, head_dim: int) -> np.ndarray:
    """Small dyadic vectors of the fixtures' formula (§8.6) for rows 0 .. n − 1."""
    from pespec.rope.golden import x_vectors

    return x_vectors(n, head_dim)


def reference_errors_markdown() -> str:
    """Per preset: worst |cos_sin − oracle| in units of 2^-52 and worst rotation error/bound."""
    lines = ["| preset | positions | worst cos/sin error (units of 2^−52) | worst rotation "
             "error / bound |", "|---|---|---|---|"]
    for name, config in PRESETS.items():
        cos, sin = cos_sin(_POSITIONS, config)
        want_cos, want_sin = oracle.cos_sin(_POSITIONS.tolist(), config)
        angle = max(np.max(np.abs(cos - want_cos)), np.max(np.abs(sin - want_sin)))
        rows = _POSITIONS[::8]
        x = _vectors(rows.shape[0], config.head_dim)
        got, want = rotate(x, rows, config), oracle.rotate(x, rows.tolist(), config)
        bound = rotation_bound(x, config) + np.spacing(np.abs(want)) / 2
        rotated = bound > 0
        ratio = float(np.max(np.abs(got - want)[rotated] / bound[rotated]))
        lines.append(f"| {name} | {_POSITIONS.shape[0]} (0–69, 2^24 − 70 … 2^24, 4 more) "
                     f"| {angle / COS_SIN_BOUND:.3g} | {ratio:.3g} |")
    lines.append("")
    lines.append("(Rotation: the vectors of §8.6 at every eighth position; the bound here is "
                 "the proved bound plus half an ulp of the oracle's value.)")
    return "\n".join(lines) + "\n"
