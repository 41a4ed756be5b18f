"""transformers model types whose rotary application is not the generic ``rotary(q, ids)`` then
``apply_rotary_pos_emb(q, k, cos, sin)`` of :mod:`pespec.clients.hf_rotary`.

- DeepSeek-V2: its rotary module returns the complex ``freqs_cis`` (``torch.polar``) and
  ``apply_rotary_emb`` multiplies the pairs (2j, 2j+1) as complex numbers (``view_as_complex``),
  in float32, the result cast back to x's dtype;
- CodeGen and GPT-J (``rotate_every_two``): the rotary module's ``embed_positions`` buffer (the
  sin | cos table of ``create_sinusoidal_positions``, indexed by position, so positions are
  integers) and ``apply_rotary_pos_emb(x, sin, cos)`` on the first ``rotary_dim`` components of
  x laid out (batch, seq, heads, d), the rest passed through, as the attention modules do.

Both are built from the configuration ``--config`` names (:func:`hf_rotary.client_config`:
presets, published config.json files, ``defaults``) and cast for ``module-bfloat16`` as users
cast a model. Each backend is ``fn(x (n, head_dim), positions (n,), rope)`` (SPEC §8.8).
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.clients.hf_rotary import cast_module, client_config, modeling, rotary_class
from pespec.clients.model import Client
from pespec.rope.config import RopeConfig

__all__ = ["complex_backend", "complex_rotation", "every_two", "every_two_backend"]


def complex_backend(config: Any, dtype_name: str) -> Any:
    """DeepSeek-V2's complex ``freqs_cis`` and ``apply_rotary_emb`` on x in ``dtype_name``."""
    torch = importlib.import_module("torch")
    module = modeling(config)
    rotary, dtype = cast_module(rotary_class(module)(config), dtype_name)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        q = torch.from_numpy(np.asarray(x)).to(dtype)[None, None]
        ids = torch.from_numpy(np.asarray(positions))[None]
        with torch.no_grad():
            rotated, _ = module.apply_rotary_emb(q, q, rotary(q, ids))
        return rotated[0, 0]

    return fn


def every_two_backend(config: Any, dtype_name: str) -> Any:
    """CodeGen's / GPT-J's ``embed_positions`` table and ``apply_rotary_pos_emb`` (pairs 2j,
    2j+1 by ``rotate_every_two``) on x in ``dtype_name``; integer positions only."""
    torch = importlib.import_module("torch")
    module = modeling(config)
    rotary, dtype = cast_module(rotary_class(module)(config), dtype_name)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        k = torch.from_numpy(np.asarray(x)).to(dtype)[None, :, None, :]  # (batch, seq, heads, d)
        ids = torch.from_numpy(np.asarray(positions))[None]
        with torch.no_grad():
            sin, cos = rotary(k, ids)
            d = 2 * sin.shape[-1]
            k_rot = module.apply_rotary_pos_emb(k[..., :d], sin, cos)
        return torch.cat([k_rot, k[..., d:]], dim=-1)[0, :, 0]

    fn.pespec_capabilities = {"integer_positions_only": True}  # type: ignore[attr-defined]
    return fn


def complex_rotation(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter of DeepSeek-V2's complex rotation."""
    return complex_backend(client_config(client, config)[0], dtype)


def every_two(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter of CodeGen's / GPT-J's ``rotate_every_two`` rotary module."""
    return every_two_backend(client_config(client, config)[0], dtype)
