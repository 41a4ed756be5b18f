"""diffusers 0.42.1's video rotaries as multiaxis-rope backends (float32, as the models run):
the adapters of the clients ``diffusers:WanRotaryPosEmbed``,
``diffusers:HunyuanVideoRotaryPosEmbed`` and ``diffusers:get_3d_rotary_pos_embed`` (issue 29),
used by the integration tests too.

Each real module builds a table for a whole (T, H, W) patch grid; the backend builds it for
the grid ``max(positions) + 1`` per axis and reads row t·H·W + h·W + w (positions are the
integer ids of the ``grid`` presets), then applies the model's own apply function:

* Wan: ``WanRotaryPosEmbed`` + the ``apply_rotary_emb`` closure of ``WanAttnProcessor``
  (run on a ``WanAttention`` with identity q projection and no q norm; the query is caught
  at ``dispatch_attention_fn``). ``module`` may be ChronoEdit's ``ChronoEditRotaryPosEmbed``.
* HunyuanVideo: ``HunyuanVideoRotaryPosEmbed`` + ``embeddings.apply_rotary_emb``
  (:func:`hunyuan_backend` of the axes dims and θ; the model's 16, 56, 56 and 256).
* CogVideoX: ``get_3d_rotary_pos_embed`` (crop (0, 0)–(H, W): integer linspace) +
  ``embeddings.apply_rotary_emb``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["cogvideox_backend", "hunyuan_backend", "wan_backend", "wan_table"]

Table = Callable[[tuple[int, int, int]], tuple[Any, Any]]


def _rows(positions: NDArray[Any]) -> tuple[tuple[int, int, int], NDArray[np.int64]]:
    p = np.asarray(positions).astype(np.int64)
    size = tuple(int(v) + 1 for v in p.max(axis=0))
    index = (p[:, 0] * size[1] + p[:, 1]) * size[2] + p[:, 2]
    return size, index  # type: ignore[return-value]


def _latent(size: tuple[int, int, int], patch: tuple[int, int, int]) -> Any:
    torch = importlib.import_module("torch")

    return torch.zeros((1, 1, size[0] * patch[0], size[1] * patch[1], size[2] * patch[2]))


def wan_table(head_dim: int = 128, chronoedit: bool = False) -> Table:
    """Wan's (or ChronoEdit's) cos/sin table for a grid: (1, THW, 1, D) each."""
    ce = importlib.import_module("diffusers.models.transformers.transformer_chronoedit")
    wan = importlib.import_module("diffusers.models.transformers.transformer_wan")

    cls = ce.ChronoEditRotaryPosEmbed if chronoedit else wan.WanRotaryPosEmbed

    def table(size: tuple[int, int, int]) -> tuple[Any, Any]:
        module = cls(head_dim, (1, 2, 2), 1024)
        cos, sin = module(_latent(size, (1, 2, 2)))
        return cos, sin

    return table


def _wan_apply(q: Any, cos: Any, sin: Any) -> Any:
    """Runs WanAttnProcessor on q (1, n, D) with identity projections; returns rotated q."""
    torch = importlib.import_module("torch")
    wan = importlib.import_module("diffusers.models.transformers.transformer_wan")

    d = q.shape[-1]
    attn = wan.WanAttention(dim=d, heads=1, dim_head=d)
    with torch.no_grad():
        attn.to_q.weight.copy_(torch.eye(d))
        attn.to_q.bias.zero_()
    attn.norm_q = attn.norm_k = torch.nn.Identity()
    caught: list[Any] = []

    def catch(query: Any, *args: Any, **kwargs: Any) -> Any:
        caught.append(query)
        raise StopIteration

    original = wan.dispatch_attention_fn
    setattr(wan, "dispatch_attention_fn", catch)  # noqa: B010 (a module attribute, patched)
    try:
        wan.WanAttnProcessor()(attn, q, None, None, (cos, sin))
    except StopIteration:
        pass
    finally:
        setattr(wan, "dispatch_attention_fn", original)  # noqa: B010
    return caught[0][0, :, 0]


def wan_backend(head_dim: int = 128, chronoedit: bool = False) -> Any:
    """Wan's rope and attention processor as a backend (ChronoEdit's rope with ``chronoedit``)."""
    torch = importlib.import_module("torch")

    table = wan_table(head_dim, chronoedit)

    def backend(x: NDArray[Any], positions: NDArray[Any], config: Any) -> NDArray[Any]:
        size, index = _rows(positions)
        cos, sin = table(size)
        rows = torch.from_numpy(index)
        q = torch.from_numpy(x).float()[None]
        with torch.no_grad():
            out = _wan_apply(q, cos[:, rows], sin[:, rows])
        return np.asarray(out.numpy())

    return backend


def hunyuan_backend(axes_dim: Sequence[int] = (16, 56, 56), theta: float = 256.0) -> Any:
    """HunyuanVideoRotaryPosEmbed(2, 1, axes_dim, θ) + apply_rotary_emb(sequence_dim=1)."""
    torch = importlib.import_module("torch")
    apply_rotary_emb = importlib.import_module("diffusers.models.embeddings").apply_rotary_emb
    hunyuan = importlib.import_module("diffusers.models.transformers.transformer_hunyuan_video")

    embed = hunyuan.HunyuanVideoRotaryPosEmbed(2, 1, list(axes_dim), float(theta))

    def backend(x: NDArray[Any], positions: NDArray[Any], config: Any) -> NDArray[Any]:
        size, index = _rows(positions)
        cos, sin = embed(_latent(size, (1, 2, 2)))
        rows = torch.from_numpy(index)
        q = torch.from_numpy(x).float()[None, :, None]  # (batch, n, heads, D)
        out = apply_rotary_emb(q, (cos[rows], sin[rows]), sequence_dim=1)
        return np.asarray(out[0, :, 0].numpy())

    return backend


def cogvideox_backend(x: NDArray[Any], positions: NDArray[Any], config: Any) -> NDArray[Any]:
    """get_3d_rotary_pos_embed(64, ((0, 0), (H, W)), (H, W), T) + apply_rotary_emb."""
    torch = importlib.import_module("torch")
    embeddings = importlib.import_module("diffusers.models.embeddings")

    (t, h, w), index = _rows(positions)
    cos, sin = embeddings.get_3d_rotary_pos_embed(x.shape[1], ((0, 0), (h, w)), (h, w), t)
    rows = torch.from_numpy(index)
    q = torch.from_numpy(x).float()[None, None]  # (batch, heads, n, D)
    out = embeddings.apply_rotary_emb(q, (cos[rows], sin[rows]))
    return np.asarray(out[0, 0].numpy())
