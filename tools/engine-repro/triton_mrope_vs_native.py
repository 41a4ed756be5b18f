"""vLLM's and SGLang's Triton M-RoPE kernels under the Triton interpreter give what the
engine's own ``forward_native`` gives on the same inputs (issue 35 item 4): the check that a
verdict of the interpreter rows is the kernel's, not the interpreter's.

    PYTHONPATH=. DIR/vllm/bin/python tools/engine-repro/triton_mrope_vs_native.py vllm
    PYTHONPATH=. DIR/sglang/bin/python tools/engine-repro/triton_mrope_vs_native.py sglang

(DIR: ``tools/engine-env``'s environments.) For Qwen2.5-VL-7B (sectioned) and Qwen3-VL-4B
(interleaved), float32 and float16: the engine's module from the published config.json
(``pespec.clients.{vllm,sglang}_rope.rotary_module``), 24 tokens at (t, h, w) positions that
differ per axis, query and key with the model's head counts (28/4, 32/8), random N(0, 1)
values (seed 0); prints the largest |kernel - forward_native| of query and key (observed
here: 0 for every case, both engines).
"""

from __future__ import annotations

import importlib
import os
import sys

os.environ["TRITON_INTERPRET"] = "1"
os.environ.setdefault("SGLANG_USE_CPU_ENGINE", "1")

import torch

from pespec.clients import triton_engines


def main(engine: str) -> None:
    """Print the largest differences for each model and dtype."""
    native = importlib.import_module(f"pespec.clients.{engine}_rope")
    n = 24
    positions = torch.stack(
        [torch.arange(n) + 3, torch.arange(n) // 4 + 3, torch.arange(n) % 4 + 3]
    ).to(torch.int64)
    for preset, (heads, kv_heads) in triton_engines.HEADS.items():
        for dtype in ("float32", "float16"):
            torch.manual_seed(0)
            query = torch.randn(n, heads * 128).to(getattr(torch, dtype))
            key = torch.randn(n, kv_heads * 128).to(query.dtype)
            module = native.rotary_module(preset, dtype)
            want_q, want_k = module.forward_native(positions, query.clone(), key.clone())
            got_q, got_k = query.clone(), key.clone()
            kernel = getattr(triton_engines, f"{engine}_forward")(
                native.rotary_module(preset, dtype)
            )
            kernel(positions, got_q, got_k)  # in place
            dq = (got_q.double() - want_q.double()).abs().max().item()
            dk = (got_k.double() - want_k.double()).abs().max().item()
            print(f"{engine} {preset} {dtype}: query {dq:.3g} key {dk:.3g}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "vllm")
