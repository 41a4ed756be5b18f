"""mlx-lm's real DeepSeek-V3 rotary module through the rotary suite (optional: skipped
without mlx-lm; issue 26, item 2).

``mlx_lm.models.deepseek_v3.DeepseekV3Attention`` builds its rotary module with
``traditional=True``: pairs (2j, 2j+1) read and written back in place, so interleaved in and
interleaved out, where transformers writes the outputs as halves. Built from a copy of the
published config.json (pespec/rope/published/deepseek-v3.json), it is NON-CONFORMANT on the
reader's configuration, with the permutation named, and CONFORMANT with
``output_layout="interleaved"`` declared, or undeclared in score mode (item 3).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray
from paths import HF_CONFIGS as DATA

from pespec.rope import RopeConfig, check, from_hf

mx = pytest.importorskip("mlx.core")
deepseek_v3 = pytest.importorskip("mlx_lm.models.deepseek_v3")

CONFIG = json.loads((DATA / "deepseek-v3.json").read_text(encoding="utf-8"))


def _mlx_backend() -> Any:
    """The attention module's own rotary module on (n, 1, 1, d) with one offset per row."""
    rope = deepseek_v3.DeepseekV3Attention(deepseek_v3.ModelArgs.from_dict(CONFIG)).rope
    mx.eval(rope.parameters(), rope._freqs)

    def backend(x: NDArray[Any], positions: NDArray[Any], config: RopeConfig) -> Any:
        # the suite calls from a worker thread: mlx needs a stream of that thread
        with mx.stream(mx.new_stream(mx.cpu)):
            rows = mx.array(x.astype(np.float32)[:, None, None, :])
            y = rope(rows, mx.array(positions.astype(np.int32)))
            mx.eval(y)
            return np.array(y)[:, 0, 0, :]

    return backend


def test_mlx_deepseek_v3_is_conformant_with_interleaved_outputs_declared() -> None:
    config = from_hf(CONFIG)
    assert config.pairing == "interleaved_in_halves_out"  # what transformers runs
    backend = _mlx_backend()
    report = check(backend, config, level="float32")
    assert not report.conformant
    assert "declare output_layout='interleaved'" in report.summary(), report.summary()
    declared = dataclasses.replace(config, output_layout="interleaved")
    report = check(backend, declared, level="float32")
    assert report.conformant, report.summary()


def test_mlx_deepseek_v3_is_conformant_in_score_mode_undeclared() -> None:
    """Issue 26 item 3: q and k permuted alike leave every q·k score unchanged, so the reader's
    configuration (halves out) with no declaration passes score mode (SPEC Annex A.9)."""
    report = check(_mlx_backend(), from_hf(CONFIG), level="float32", mode="scores")
    assert report.conformant, report.summary()
    assert report.to_dict()["mode"] == "scores"
