"""Read a transformers ``config.json`` into a :class:`RopeConfig` (SPEC Annex E.5).

The reader accepts the files as they are shipped on the Hugging Face Hub, in the layouts that
transformers has used over time: the scaling block as ``rope_scaling`` (transformers 4) or
``rope_parameters`` (transformers 5, possibly one block per layer type), its kind as
``rope_type`` or the older ``type``, the base as ``rope_theta`` (top level or inside the block)
or GPT-NeoX's ``rotary_emb_base``, the language model nested in ``text_config`` (Gemma 3), and
the fields a model family leaves to its transformers defaults (``_MODEL_DEFAULTS``). Anything
it cannot read unambiguously is a ``ValueError`` naming the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pespec.rope.config import PAIRINGS, ROPE_TYPES, RopeConfig

__all__ = ["from_hf"]

# Values transformers' configuration classes fill in when a shipped config.json omits them
# (transformers models/gemma3/configuration_gemma3.py, Gemma3TextConfig.__init__ defaults).
_MODEL_DEFAULTS: dict[str, dict[str, Any]] = {
    "gemma3_text": {"head_dim": 256, "num_attention_heads": 8, "rope_theta": 1_000_000.0,
                    "rope_local_base_freq": 10_000.0, "max_position_embeddings": 131_072},
}
_DEFAULT_THETA = 10_000.0  # LlamaConfig, MistralConfig, Qwen2Config, Phi3Config, GPT-J, GPT-NeoX
_LAYER_TYPES = ("full_attention", "sliding_attention")
# Keys of a scaling block that RopeConfig takes over unchanged, per rope type.
_BLOCK_KEYS = {
    "yarn": ("beta_fast", "beta_slow", "truncate", "attention_factor", "mscale",
             "mscale_all_dim"),
    "llama3": ("low_freq_factor", "high_freq_factor"),
    "longrope": ("attention_factor",),
}


class _Source:
    """Key lookup in the text model's config first, then the top level, then the defaults."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        text = config.get("text_config")
        self.layers: list[Mapping[str, Any]] = [text] if isinstance(text, Mapping) else []
        self.layers.append(config)
        self.model_type = str(self.get("model_type") or "")
        self.layers.append(_MODEL_DEFAULTS.get(self.model_type, {}))

    def get(self, key: str) -> Any:
        for layer in self.layers:
            if layer.get(key) is not None:
                return layer[key]
        return None


def _block(source: _Source, layer_type: str | None) -> tuple[dict[str, Any], float | None]:
    """The scaling block for the layer type, and a θ that overrides the usual lookup."""
    params = source.get("rope_parameters")
    if params is None:
        params = source.get("rope_scaling")
    params = {} if params is None else params
    if not isinstance(params, Mapping):
        raise ValueError(f"rope_scaling / rope_parameters must be an object or null; "
                         f"got {params!r}")
    per_layer = {k: v for k, v in params.items() if k in _LAYER_TYPES}
    if per_layer or source.get("rope_local_base_freq") is not None:
        choices = sorted(per_layer) if per_layer else list(_LAYER_TYPES)
        if layer_type not in choices:
            raise ValueError(f"layer_type must be one of {choices} for this config (its "
                             f"rotary parameters differ per layer type); got {layer_type!r}")
        if per_layer:
            return dict(per_layer[layer_type]), None
        if layer_type == "sliding_attention":  # Gemma 3 local layers: default rope, local θ
            return {}, float(source.get("rope_local_base_freq"))
        return dict(params), None
    if layer_type is not None:
        listed = source.get("layer_types") or []
        if layer_type not in listed:
            raise ValueError(f"layer_type must be None or one of the config's layer_types "
                             f"{sorted(set(listed))}; got {layer_type!r}")
    return dict(params), None


def _head_dim(source: _Source) -> int:
    """qk_rope_head_dim (DeepSeek), head_dim, hidden_size/num_attention_heads or n_embd/n_head."""
    for key in ("qk_rope_head_dim", "head_dim"):
        if source.get(key) is not None:
            return int(source.get(key))
    for width, heads in (("hidden_size", "num_attention_heads"), ("n_embd", "n_head")):
        total, count = source.get(width), source.get(heads)
        if total is not None and count is not None:
            if total % count:
                raise ValueError(f"{width} = {total} is not a multiple of {heads} = {count}")
            return int(total // count)
    raise ValueError("config has no head size: expected qk_rope_head_dim, head_dim, "
                     "hidden_size and num_attention_heads, or n_embd and n_head")


def _rotary_dim(source: _Source, block: Mapping[str, Any], head_dim: int) -> int:
    """rotary_dim (GPT-J), or int(head_dim × partial_rotary_factor / rotary_pct)."""
    if source.get("rotary_dim") is not None:
        return int(source.get("rotary_dim"))
    fraction = block.get("partial_rotary_factor")
    for key in ("partial_rotary_factor", "rotary_pct"):
        if fraction is None:
            fraction = source.get(key)
    return head_dim if fraction is None else int(head_dim * float(fraction))


def _pairing(source: _Source) -> str:
    """rope_interleave when present, else what the model type implies (SPEC Annex E.5)."""
    interleave = source.get("rope_interleave")
    if interleave is not None:
        return PAIRINGS[2] if interleave else PAIRINGS[0]
    if source.model_type == "gptj":
        return PAIRINGS[1]
    if source.model_type == "deepseek_v3":  # DeepseekV3Config defaults rope_interleave=True
        return PAIRINGS[2]
    return PAIRINGS[0]


def _lookup(block: Mapping[str, Any], source: _Source, key: str) -> Any:
    return block[key] if block.get(key) is not None else source.get(key)


def from_hf(config: Mapping[str, Any], layer_type: str | None = None,
            seq_len: int | None = None) -> RopeConfig:
    """The :class:`RopeConfig` of a transformers ``config.json`` (parsed into a dict).

    ``layer_type`` picks ``"full_attention"`` or ``"sliding_attention"`` where the rotary
    parameters differ per layer type (Gemma 3); ``seq_len`` is the sequence length ℓ that the
    ``dynamic`` and ``longrope`` schedules require (SPEC §8.4) and must be None otherwise.
    """
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a dict (a parsed config.json); got "
                        f"{type(config).__name__}")
    source = _Source(config)
    block, theta_override = _block(source, layer_type)
    kind = block.get("rope_type") or block.get("type") or "default"
    if kind not in ROPE_TYPES:
        raise ValueError(f"rope_type {kind!r} is not a schedule pespec defines; allowed: "
                         f"{list(ROPE_TYPES)}")
    theta = theta_override
    for key in ("rope_theta", "rotary_emb_base"):
        if theta is None:
            theta = _lookup(block, source, key)
    head_dim = _head_dim(source)
    fields: dict[str, Any] = {
        "head_dim": head_dim, "rotary_dim": _rotary_dim(source, block, head_dim),
        "theta": _DEFAULT_THETA if theta is None else theta, "rope_type": kind,
        "pairing": _pairing(source),
    }
    fields.update(_schedule(kind, block, source, seq_len))
    context = source.get("max_position_embeddings") or source.get("n_positions")
    fields["context_length"] = context  # the suite's default positions (SPEC R8.17)
    return RopeConfig(**fields)


def _schedule(kind: str, block: Mapping[str, Any], source: _Source,
              seq_len: int | None) -> dict[str, Any]:
    """The schedule's fields: s, L, L0, ℓ and the block's own keys."""
    if kind in ("dynamic", "longrope"):
        if seq_len is None:
            raise ValueError(f"seq_len is required for rope_type {kind!r}: the sequence length "
                             f"ℓ, an int >= 1 (SPEC §8.4); got None")
    elif seq_len is not None:
        raise ValueError(f"seq_len is used only by rope_types 'dynamic' and 'longrope'; "
                         f"got {seq_len!r} for {kind!r}")
    if kind == "default":
        return {}
    out: dict[str, Any] = {"factor": block.get("factor")}
    big_l = _lookup(block, source, "max_position_embeddings") or source.get("n_positions")
    small_l = _lookup(block, source, "original_max_position_embeddings")
    if kind == "dynamic":
        out.update(max_position_embeddings=big_l, seq_len=seq_len)
    elif kind in ("yarn", "llama3", "longrope"):
        if kind == "yarn" and small_l is None:
            small_l = big_l  # transformers 4: L0 defaults to max_position_embeddings
        out.update(original_max_position_embeddings=small_l, max_position_embeddings=big_l)
        if kind == "yarn" and out["factor"] is None and big_l and small_l:
            out["factor"] = big_l / small_l
        for key in _BLOCK_KEYS[kind]:
            out[key] = block.get(key)
    if kind == "longrope":
        out.update(seq_len=seq_len, short_factor=block.get("short_factor"),
                   long_factor=block.get("long_factor"))
    return out
