"""A port of transformers' Llama rotary module and ``apply_rotary_pos_emb`` in torch, with
the bugs of issue 20 that live in torch (a bfloat16 inv_freq buffer, bfloat16 positions);
the NumPy ports are in :mod:`pespec.rope.diagnosis.examples`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.rope import RopeConfig, frequencies

F64 = NDArray[np.float64]


def torch_backend(model_dtype: Any, *, module_cast: bool = False, positions_dtype: Any = None):  # type: ignore[no-untyped-def]
    """A port of transformers' Llama rotary module and ``apply_rotary_pos_emb``.

    inv_freq is computed in float32 from the certified ω' (the module's buffer);
    ``module_cast`` casts that buffer to ``model_dtype`` as ``module.to(model_dtype)`` does;
    positions go through ``positions_dtype`` (a bfloat16 ``arange``) before ``.float()``;
    the phase and cos/sin are float32, cast to the model dtype, the rotation in it.
    """
    import torch

    def backend(x: F64, positions: NDArray[np.int64], rope: RopeConfig) -> Any:
        omegas, attention = frequencies(rope)
        inv_freq = torch.tensor(omegas, dtype=torch.float32)
        if module_cast:
            inv_freq = inv_freq.to(model_dtype)
        p = torch.from_numpy(positions)
        if positions_dtype is not None:
            p = p.to(positions_dtype)
        freqs = p[:, None].float() * inv_freq.float()[None, :]
        d_r = rope.d_r
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = (emb.cos() * attention).to(model_dtype)
        sin = (emb.sin() * attention).to(model_dtype)
        q = torch.from_numpy(x).to(model_dtype)
        rot, rest = q[:, :d_r], q[:, d_r:]
        half = torch.cat((-rot[:, d_r // 2 :], rot[:, : d_r // 2]), dim=-1)  # rotate_half
        return torch.cat(((rot * cos) + (half * sin), rest), dim=-1)

    return backend
