"""Low-precision Fourier tables (SPEC §10.4 F6; issue 43): float16 and bfloat16 levels.

Sound: a correctly rounded table (the certified oracle cast by ml_dtypes, directly and through
float32; a float32 table cast by torch as fairseq2 casts its buffer) passes at its level.
Sensitive: tables whose angle or frequencies are formed in the narrow format (the slips
fairseq2 PR #476 and depthcharge PR #82 guard against: depthcharge's frequency 15915.49 is
16000 in bfloat16) fail there. Expected values are the oracle's, never the code's own.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

from pespec.fourier.presets import convention_from
from pespec.fourier.reference import encode
from pespec.fourier.run import check
from tests.fourier.ports import cast_oracle, narrow_angles

BF16 = np.dtype(ml_dtypes.bfloat16)
NARROW = {"float16": np.dtype(np.float16), "bfloat16": BF16}
PRESETS = ("nerf-paper", "nerfstudio-nerf", "diffusers-gaussian-fourier", "timm-fourier-linear")
STAGES = ("contract", "golden", "reference")


@pytest.mark.parametrize("level", ["float16", "bfloat16"])
@pytest.mark.parametrize("through32", [False, True])
@pytest.mark.parametrize("preset", PRESETS)
def test_a_correctly_rounded_narrow_table_passes(preset: str, level: str, through32: bool) -> None:
    report = check(cast_oracle(NARROW[level], through32), config=preset, stages=STAGES)
    assert report.level == level
    assert report.conformant, [(c.id, c.message) for c in report.checks]


def test_a_float32_table_cast_by_torch_passes() -> None:
    torch = pytest.importorskip("torch")

    def backend(x: Any, config: Any) -> Any:
        table = torch.from_numpy(encode(x, config).astype(np.float32))
        return table.to(torch.bfloat16).float().numpy().astype(BF16)

    report = check(backend, config="nerf-paper")
    assert report.conformant and report.level == "bfloat16"


@pytest.mark.parametrize("level", ["float16", "bfloat16"])
def test_angles_formed_in_the_narrow_format_fail(level: str) -> None:
    report = check(narrow_angles(NARROW[level]), config="nerf-paper", stages=STAGES)
    assert report.level == level and not report.conformant


def test_depthcharge_frequency_in_bfloat16_fails() -> None:
    # depthcharge PR #82: 15915.49 is not representable in bfloat16 (8 significand bits:
    # spacing 2^13·2^-7 = 64 in [8192, 16384)): it rounds to 15936 (20.51 above, against
    # 43.49 down to 15872), a relative error of 1.3e-3, so an angle x·ω at x = 1 moves by
    # 20.5 radians: far beyond any bound.
    assert float(np.float64(15915.49).astype(BF16)) == 15936.0
    conv = {
        "in_dims": 1, "pi": "none", "law": "matrix", "matrix": [[15915.49], [1.0]],
        "domain": [0.0, 1.0], "blocks": "sin|cos",
    }  # fmt: skip

    def frequencies_in_bf16(x: Any, config: Any) -> Any:
        w = np.asarray(convention_from(config).matrix).astype(BF16).astype(np.float32)
        angles = np.asarray(x, dtype=np.float32) @ w.T
        return np.concatenate([np.sin(angles), np.cos(angles)], axis=1).astype(BF16)

    assert not check(frequencies_in_bf16, config=conv, stages=STAGES).conformant
    assert check(cast_oracle(BF16, True), config=conv, stages=STAGES).conformant
