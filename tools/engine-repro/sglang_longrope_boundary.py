"""SGLang leaves the token at position k = ``original_max_position_embeddings`` (4096 for
Phi-3.5-mini) unrotated when no position in its forward exceeds k: a prefill of exactly
k + 1 = 4097 tokens, or a decode step at position 4096 in a batch with no position past it.
SGLang takes LongRoPE's long factors only when a position in the call exceeds k
(``torch.any(positions > k)``), else indexes its concatenated cache (k short rows, then the
long rows) at the position itself: row k is the long cache's row for position 0 (cos = the
attention factor, sin = 0), so every pair turns by 0. The model's definition (transformers'
``longrope_frequency_update`` and Phi-3's modeling file: ``seq_len = max(position_ids) + 1``,
long factors when ``seq_len > k``) rotates it with the long factors (issue 35).

Reproduction without pespec (in an environment with sglang==0.5.23 installed --no-deps as
``tools/engine-env sglang`` does, torch 2.13.0 CPU and mpmath):

    SGLANG_USE_CPU_ENGINE=1 python tools/engine-repro/sglang_longrope_boundary.py [CONFIG.json]

CONFIG.json: microsoft/Phi-3.5-mini-instruct's config.json (default: the published copy in
this repository, pespec/rope/published/phi-3.5-mini-instruct.json). SGLang's rule is in
``sglang/srt/layers/rotary_embedding/rope_variant.py`` (``Phi3LongRoPEScaledRotaryEmbedding
.forward``); the arguments are those of ``sglang/srt/models/llama.py`` (``Phi3ForCausalLM``
is a ``LlamaForCausalLM``). This rotates the unit vector of each pair at the last position
of a 4097-token and a 4098-token prefill (float32) and compares the angle it turned by with
mpmath's p·ω_j for the short and the long factors (ω_j = 1 / (factor_j · θ^(2j/d))).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import mpmath
import torch

os.environ.setdefault("SGLANG_USE_CPU_ENGINE", "1")  # SGLang's CPU code, before its import
from sglang.srt.layers.rotary_embedding import get_rope

mpmath.mp.dps = 50
DEFAULT = Path(__file__).resolve().parents[2] / "pespec/rope/published/phi-3.5-mini-instruct.json"


def sglang_angles(config: dict[str, object], length: int) -> list[float]:
    """Angle pair j turned by at position length - 1 in a prefill of ``length`` tokens."""
    scaling = dict(config["rope_scaling"])  # type: ignore[call-overload]
    scaling["original_max_position_embeddings"] = config["original_max_position_embeddings"]
    d = int(config["hidden_size"]) // int(config["num_attention_heads"])  # type: ignore[call-overload]
    rope = get_rope(
        d,
        rotary_dim=d,
        max_position=int(config["max_position_embeddings"]),  # type: ignore[call-overload]
        base=config.get("rope_theta", 10000.0),  # type: ignore[arg-type]
        rope_scaling=scaling,
        dtype=torch.float32,
    )
    half = d // 2
    x = torch.zeros(length, d)
    x[torch.arange(half), torch.arange(half)] = 1.0  # row j < half: pair j's first element
    positions = torch.arange(length)
    positions[:half] = length - 1  # the unit vectors sit at the last position of the prefill
    out, _ = rope.forward(positions, x.clone(), x.clone())
    rows = torch.arange(half)
    return [float(a) for a in torch.atan2(out[rows, half + rows], out[rows, rows])]


def exact_angle(position: int, theta: float, d: int, factor: float, j: int) -> mpmath.mpf:
    """position·ω_j reduced to (-π, π], mpmath."""
    phase = position / (mpmath.mpf(factor) * mpmath.power(theta, mpmath.mpf(2 * j) / d))
    return phase - 2 * mpmath.pi * mpmath.nint(phase / (2 * mpmath.pi))


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    config = json.loads(path.read_text())
    scaling, theta = config["rope_scaling"], config.get("rope_theta", 10000.0)
    d = config["hidden_size"] // config["num_attention_heads"]
    k = config["original_max_position_embeddings"]
    for length in (k + 1, k + 2):
        angles = sglang_angles(config, length)
        worst = {"short": 0.0, "long": 0.0}
        for kind in worst:
            for j, got in enumerate(angles):
                want = exact_angle(length - 1, theta, d, scaling[f"{kind}_factor"][j], j)
                gap = abs(float(mpmath.atan2(mpmath.sin(got - want), mpmath.cos(got - want))))
                worst[kind] = max(worst[kind], gap)
        rule = "long" if length > k else "short"
        turned = max(abs(a) for a in angles)
        print(f"prefill of {length} tokens: SGLang turned a pair by at most {turned:.3g} rad")
        print(
            f"prefill of {length} tokens (definition: {rule} factors, seq_len {length} > {k}): "
            f"SGLang's angles differ from the short factors' by up to {worst['short']:.3g} rad, "
            f"from the long factors' by up to {worst['long']:.3g} rad"
        )


if __name__ == "__main__":
    main()
