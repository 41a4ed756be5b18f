"""The float16 stages of a sinusoidal table told apart (issue 39 item 3).

Three tables, each coarse in one way: the inverse frequencies alone rounded to float16
(positions and p·ω in float32), the denominator 10000^(2i/d) a float16 ``torch.pow``,
and every stage in float16. The old sentence was "angles are computed in float16" for
all three; each must now name its own stage.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pespec.sinusoidal.diagnosis import diagnose
from pespec.sinusoidal.properties.base import Level

LEVEL = Level("float32", "float32")


def _table(positions: Any, d: int, base: float, omegas: Any, phase16: bool) -> Any:
    p = np.asarray(positions, dtype=np.float64)
    if phase16:
        phase = (p.astype(np.float16)[:, None] * omegas.astype(np.float16)[None, :]).astype(
            np.float16
        )
    else:
        phase = p.astype(np.float32)[:, None] * omegas.astype(np.float32)[None, :]
    out = np.empty((p.size, d), dtype=np.float32)
    out[:, 0::2], out[:, 1::2] = np.sin(phase), np.cos(phase)
    return out


def _exact_omegas(d: int, base: float) -> Any:
    return 1.0 / base ** (2 * np.arange(d // 2) / d)


def test_inverse_frequencies_alone_in_float16() -> None:
    def encoder(positions: Any, d: int, base: float) -> Any:
        w = _exact_omegas(d, base).astype(np.float16)
        return _table(positions, d, base, w, phase16=False)

    text = diagnose(encoder, level=LEVEL, max_position=4096).sentence()
    assert "only the inverse frequencies rounded to float16" in text, text


def test_a_float16_torch_pow() -> None:
    torch = pytest.importorskip("torch")

    def encoder(positions: Any, d: int, base: float) -> Any:
        exponent = torch.arange(0, d, 2, dtype=torch.float16) / d
        power = torch.pow(torch.tensor(base, dtype=torch.float16), exponent)
        return _table(positions, d, base, (1.0 / power.float()).numpy(), phase16=False)

    text = diagnose(encoder, level=LEVEL, max_position=4096).sentence()
    assert "the denominator base^(2k/d) computed in float16" in text, text


def test_every_stage_in_float16() -> None:
    def encoder(positions: Any, d: int, base: float) -> Any:
        return _table(positions, d, base, _exact_omegas(d, base), phase16=True)

    text = diagnose(encoder, level=LEVEL, max_position=4096).sentence()
    assert "angles computed in float16 at every stage" in text, text
