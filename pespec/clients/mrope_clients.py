"""Real multi-axis rotary code as ``multiaxis-rope`` clients (issue 29; SPEC §9.7).

Each function here is a backend ``(x (n, D), positions (n, k), config) -> (n, D)`` built from
the real module and its own apply function, as the model runs them:

* transformers 5.24: ``Qwen2VLRotaryEmbedding`` / ``Qwen2_5_VLRotaryEmbedding`` /
  ``Qwen3VLTextRotaryEmbedding`` + the model's ``apply_rotary_pos_emb`` (:func:`qwen_vl`);
* transformers 5.24: ``Qwen2VLVisionRotaryEmbedding`` / ``Qwen2_5_VLVisionRotaryEmbedding`` +
  the model's ``apply_rotary_pos_emb_vision`` (:func:`qwen_vision_backend`; (h, w) ids);
* diffusers 0.42.1: ``FluxPosEmbed`` + ``apply_rotary_emb`` (:func:`flux`), and the video
  rotaries of :mod:`pespec.clients.mrope_video` (Wan, HunyuanVideo, CogVideoX).

θ, the head size, ``mrope_section`` and the per-axis dims are read from the ``--config``
preset's sections. The integration tests (tests/multiaxis/rope) and the conformance table call the
same
functions.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.clients.model import Client

__all__ = ["axes_dims", "build", "flux_backend", "qwen_vision_backend", "qwen_vl_backend", "theta"]

QWEN_KINDS = ("qwen2", "qwen2_5", "qwen3")
VISION_KINDS = ("qwen2_vision", "qwen2_5_vision")


def axes_dims(config: Any) -> tuple[int, ...]:
    """The rotary dims of each section (2 × its pairs), in section order."""
    return tuple(2 * len(s.pairs) for s in config.sections)


def theta(config: Any) -> float:
    """The one θ of the sections (ValueError when they differ)."""
    thetas = {float(s.rope.theta) for s in config.sections}
    if len(thetas) != 1:
        raise ValueError(f"the sections of {config.name} have several θ: {sorted(thetas)}")
    return thetas.pop()


def _text_config(kind: str, head_dim: int, base: float, section: Sequence[int]) -> Any:
    transformers = importlib.import_module("transformers")
    rope: dict[str, Any] = {
        "rope_type": "default",
        "rope_theta": base,
        "mrope_section": list(section),
    }
    if kind == "qwen3":
        rope["mrope_interleaved"] = True
        return transformers.Qwen3VLTextConfig(
            hidden_size=32 * head_dim,
            num_attention_heads=32,
            head_dim=head_dim,
            rope_parameters=rope,
        )
    cls = transformers.Qwen2VLTextConfig if kind == "qwen2" else transformers.Qwen2_5_VLTextConfig
    return cls(hidden_size=28 * head_dim, num_attention_heads=28, rope_parameters=rope)


def qwen_vl_backend(
    kind: str, head_dim: int, base: float, section: Sequence[int], dtype: str = "float32"
) -> Any:
    """``kind`` qwen2, qwen2_5 or qwen3: the model's rotary module + ``apply_rotary_pos_emb``
    on a query of ``dtype`` (the module computes cos, sin in float32 and returns them in the
    query's dtype, as in the model)."""
    torch = importlib.import_module("torch")
    modules = {
        "qwen2": "transformers.models.qwen2_vl.modeling_qwen2_vl",
        "qwen2_5": "transformers.models.qwen2_5_vl.modeling_qwen2_5_vl",
        "qwen3": "transformers.models.qwen3_vl.modeling_qwen3_vl",
    }
    classes = {
        "qwen2": "Qwen2VLRotaryEmbedding",
        "qwen2_5": "Qwen2_5_VLRotaryEmbedding",
        "qwen3": "Qwen3VLTextRotaryEmbedding",
    }
    modeling = importlib.import_module(modules[kind])
    module = getattr(modeling, classes[kind])(_text_config(kind, head_dim, base, section))
    apply = modeling.apply_rotary_pos_emb
    torch_dtype = getattr(torch, dtype)

    def backend(x: NDArray[Any], positions: NDArray[Any], config: Any) -> Any:
        q = torch.from_numpy(np.asarray(x)).to(torch_dtype)[None, None]  # (batch, heads, n, D)
        ids = torch.from_numpy(np.ascontiguousarray(np.asarray(positions).T))[:, None, :]
        with torch.no_grad():
            cos, sin = module(q, ids)
            out, _ = apply(q, q, cos, sin)
        return out[0, 0]

    return backend


def qwen_vision_backend(kind: str, head_dim: int, base: float, dtype: str = "float32") -> Any:
    """``kind`` qwen2_vision or qwen2_5_vision: the vision encoder's rotary module (axial,
    ``head_dim`` = width / 16 heads, ``base``) + ``apply_rotary_pos_emb_vision`` on a query of
    ``dtype`` (cos, sin and the rotation in float32, the result cast to the query's dtype, as
    in the model); positions (n, 2) (h, w)."""
    torch = importlib.import_module("torch")
    transformers = importlib.import_module("transformers")
    rope = {"rope_type": "axial", "rope_theta": base}
    if kind == "qwen2_vision":
        modeling = importlib.import_module("transformers.models.qwen2_vl.modeling_qwen2_vl")
        vision = transformers.Qwen2VLVisionConfig(
            embed_dim=16 * head_dim, num_heads=16, rope_parameters=rope
        )
        module = modeling.Qwen2VLVisionRotaryEmbedding(vision)
    else:
        modeling = importlib.import_module("transformers.models.qwen2_5_vl.modeling_qwen2_5_vl")
        vision = transformers.Qwen2_5_VLVisionConfig(
            hidden_size=16 * head_dim, num_heads=16, rope_parameters=rope
        )
        module = modeling.Qwen2_5_VLVisionRotaryEmbedding(vision)
    torch_dtype = getattr(torch, dtype)

    def backend(x: NDArray[Any], positions: NDArray[Any], config: Any) -> Any:
        q = torch.from_numpy(np.asarray(x)).to(torch_dtype)[:, None, :]  # (n, heads, D)
        ids = torch.from_numpy(np.ascontiguousarray(positions))
        with torch.no_grad():
            cos, sin = module(q, ids)
            out, _ = modeling.apply_rotary_pos_emb_vision(q, q, cos, sin)
        return out[:, 0]

    return backend


def flux_backend(axes_dim: Sequence[int] = (16, 56, 56), base: float = 10000.0) -> Any:
    """diffusers' Flux: ``FluxPosEmbed(θ, axes_dim)`` on the ids, ``apply_rotary_emb``."""
    torch = importlib.import_module("torch")
    embeddings = importlib.import_module("diffusers.models.embeddings")
    flux = importlib.import_module("diffusers.models.transformers.transformer_flux")
    embed = flux.FluxPosEmbed(theta=int(base), axes_dim=list(axes_dim))

    def backend(x: NDArray[Any], positions: NDArray[Any], config: Any) -> Any:
        with torch.no_grad():
            cos, sin = embed(torch.from_numpy(np.asarray(positions)))
            q = torch.from_numpy(np.asarray(x)).float()[None, None]
            return embeddings.apply_rotary_emb(q, (cos, sin))[0, 0]

    return backend


def _config(client: Client, config: str | None, axes: int = 3) -> Any:
    from pespec.multiaxis.rope.presets import resolve_config

    if config is None:
        raise ValueError(
            f"client {client.name} needs --config (a multiaxis-rope preset or a JSON file)"
        )
    chosen = resolve_config(config).config
    if chosen.axes != axes:
        words = "(h, w)" if axes == 2 else "(t, h, w)"
        raise ValueError(
            f"client {client.name} takes {words} positions; --config {config!r} has "
            f"{chosen.axes} axes"
        )
    return chosen


def build(client: Client, dtype: str, config: str | None) -> Any:
    """The backend of ``client`` (``options["kind"]``: a Qwen kind, ``flux``, ``wan``,
    ``hunyuan`` or ``cogvideox``) for the ``--config`` preset, in ``dtype``."""
    from pespec.clients import mrope_video

    kind = client.options.get("kind")
    chosen = _config(client, config, 2 if kind in VISION_KINDS else 3)
    if kind in VISION_KINDS:
        return qwen_vision_backend(str(kind), chosen.head_dim, theta(chosen), dtype)
    if kind in QWEN_KINDS:
        section = [len(s.pairs) for s in chosen.sections]
        return qwen_vl_backend(str(kind), chosen.head_dim, theta(chosen), section, dtype)
    if kind == "flux":
        return flux_backend(axes_dims(chosen), theta(chosen))
    if kind == "wan":
        return mrope_video.wan_backend(chosen.head_dim)
    if kind == "hunyuan":
        return mrope_video.hunyuan_backend(axes_dims(chosen), theta(chosen))
    if kind == "cogvideox":
        return mrope_video.cogvideox_backend
    raise ValueError(f"client {client.name}: options kind must name an adapter; got {kind!r}")
