"""Liger 0.8.5's Qwen2.5-VL patch on transformers 5.24 (issue 35, noticed on the way; not a
conformance row: no rotary value is computed wrongly).

    TRITON_INTERPRET=1 python tools/engine-repro/liger_qwen2_5_vl_patch.py

in an environment with torch (CPU), triton, ``liger-kernel==0.8.5`` and ``transformers==5.24.0``
(e.g. pespec's triton engine environment with transformers on ``PYTHONPATH``). Observed here:

- ``apply_liger_kernel_to_qwen2_5_vl(rope=True, ...)`` raises ``ImportError: cannot import name
  'LigerQwen2_5_VLCausalLMOutputWithPast'``: Liger's ``output_classes`` defines that class only
  when transformers exports ``Qwen2_5_VLCausalLMOutputWithPast`` from ``modeling_qwen2_5_vl``,
  and the patch imports Liger's fused-loss forward before it looks at ``rope``;
- had it got past that import, its rope patch would replace
  ``modeling_qwen2_5_vl.apply_multimodal_rotary_pos_emb``, which 5.24 no longer defines and
  ``Qwen2_5_VLAttention.forward`` no longer calls (the M-RoPE sections are applied when the
  rotary module builds cos/sin; the attention calls ``apply_rotary_pos_emb``): Liger's M-RoPE
  kernel would not run. A user on these versions gets transformers' path or an ImportError,
  never Liger's kernel; pespec's Liger M-RoPE rows call the kernel directly.
"""

from __future__ import annotations

import importlib.metadata
import inspect

from liger_kernel.transformers import monkey_patch
from transformers.models.qwen2_5_vl import modeling_qwen2_5_vl


def main() -> None:
    """Print the versions, what the patch does and what the attention calls."""
    versions = {name: importlib.metadata.version(name) for name in ("transformers", "liger-kernel")}
    print(versions)
    try:
        monkey_patch.apply_liger_kernel_to_qwen2_5_vl(
            rope=True,
            rms_norm=False,
            swiglu=False,
            fused_linear_cross_entropy=False,
            cross_entropy=False,
        )
        print("the patch applied")
    except ImportError as exc:
        print(f"apply_liger_kernel_to_qwen2_5_vl(rope=True) raised ImportError: {exc}")
    module = modeling_qwen2_5_vl
    forward = inspect.getsource(module.Qwen2_5_VLAttention.forward)
    print(
        "defines apply_multimodal_rotary_pos_emb:",
        hasattr(module, "apply_multimodal_rotary_pos_emb"),
    )
    print(
        "attention calls apply_multimodal_rotary_pos_emb:",
        "apply_multimodal_rotary_pos_emb" in forward,
    )
    print("attention calls apply_rotary_pos_emb:", "apply_rotary_pos_emb(" in forward)


if __name__ == "__main__":
    main()
