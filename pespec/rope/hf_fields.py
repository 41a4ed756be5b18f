"""Read a transformers ``config.json`` into the fields of a RopeConfig (SPEC Annex E.5).

The reader accepts the files as they are shipped on the Hugging Face Hub, in the layouts that
transformers has used over time: the scaling block as ``rope_scaling`` (transformers 4) or
``rope_parameters`` (transformers 5, possibly one block per layer type), its kind as
``rope_type`` or the older ``type``, the base as ``rope_theta`` (top level or inside the block)
or GPT-NeoX's ``rotary_emb_base``, the language model nested in ``text_config`` (Gemma 3), and
the fields a model family leaves to its transformers defaults (``_MODEL_DEFAULTS``). Each
schedule reads its own keys (:attr:`pespec.rope.schedules.base.Schedule.hf_fields`). Anything
it cannot read unambiguously is a ``ValueError`` naming the key.

This module sits below :mod:`pespec.rope.config` (it returns fields, not a RopeConfig), so that
``RopeConfig.from_hf`` and :mod:`pespec.rope.hf` can both use it without an import cycle.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pespec.rope.hf_defaults import key_aliases, model_defaults
from pespec.rope.hf_models import HALVES_MODEL_TYPES, MODEL_ROTARY, UNSUPPORTED_MODEL_TYPES
from pespec.rope.schedules.base import HfBlock
from pespec.rope.schedules.fields import whole_count
from pespec.rope.schedules.registry import PAIRINGS, ROPE_TYPES, SCHEDULES, SEQ_LEN_RULES

__all__ = ["NO_ROTARY_MODEL_TYPES", "ConfigArgumentError", "read_fields"]

# Model types whose head size has its own key (transformers 5.24: JetMoeConfig's attribute_map
# sends head_dim to kv_channels; Zamba2Config's attention layers use attention_head_dim =
# 2·hidden_size/heads, and its kv_channels is another quantity), and those whose
# full-attention layers take global_head_dim (popped by the configuration class, default 512:
# configuration_diffusion_gemma.py, configuration_embedding_gemma2.py layer_overrides).
_HEAD_SIZE_KEYS: Mapping[str, str] = {"jetmoe": "kv_channels", "zamba2": "attention_head_dim"}
_GLOBAL_HEAD_DIM_DEFAULTS: Mapping[str, int] = {
    "diffusion_gemma": 512,
    "diffusion_gemma_text": 512,
    "embedding_gemma2": 512,
    "embedding_gemma2_text": 512,
}
_DEFAULT_THETA = 10_000.0  # LlamaConfig, MistralConfig, Qwen2Config, Phi3Config, GPT-J, GPT-NeoX

_LEARNED = "learned absolute position embeddings"
_SINUSOIDAL = "fixed sinusoidal absolute position embeddings (pespec check, not pespec rope)"
_RELATIVE = "relative position biases or relative attention, no rotation"
_ALIBI = "ALiBi attention biases, no rotation"
NO_ROTARY_MODEL_TYPES: Mapping[str, str] = {
    **dict.fromkeys(
        (
            "bert",
            "roberta",
            "xlm-roberta",
            "distilbert",
            "albert",
            "electra",
            "camembert",
            "mobilebert",
            "layoutlm",
            "longformer",
            "big_bird",
            "gpt2",
            "openai-gpt",
            "gpt_neo",
            "opt",
            "biogpt",
            "bart",
            "mbart",
            "blenderbot",
            "vit",
            "clip",
            "clip_text_model",
        ),
        _LEARNED,
    ),
    **dict.fromkeys(
        ("marian", "m2m_100", "pegasus", "xglm", "fsmt", "ctrl", "speech_to_text"), _SINUSOIDAL
    ),
    "whisper": "sinusoidal encoder positions and learned decoder positions, no rotation",
    **dict.fromkeys(
        (
            "t5",
            "mt5",
            "umt5",
            "longt5",
            "switch_transformers",
            "deberta",
            "deberta-v2",
            "xlnet",
            "transfo-xl",
        ),
        _RELATIVE,
    ),
    **dict.fromkeys(("bloom", "mpt"), _ALIBI),
}
"""transformers model types whose position information is not rotary, with what they use
instead (their configuration classes in transformers name no rotary parameter): a config.json
of one of them, without any rotary key, is refused rather than checked as θ = 10000."""

_ROTARY_KEYS = (
    "rope_theta",
    "rope_scaling",
    "rope_parameters",
    "rotary_dim",
    "rotary_emb_base",
    "rotary_pct",
    "partial_rotary_factor",
    "qk_rope_head_dim",
)


class ConfigArgumentError(ValueError):
    """A reading argument (``seq_len``, ``layer_type``) is missing or wrong for this config;
    ``for_flag("--seq-len")`` words the same message for the command line."""

    def __init__(self, argument: str, template: str) -> None:
        self.argument, self.template = argument, template
        super().__init__(template.format(name=argument))

    def for_flag(self, flag: str) -> str:
        """The message with the command-line flag in place of the keyword."""
        return self.template.format(name=flag)


_LAYER_TYPES = ("full_attention", "sliding_attention")


class _Source:
    """Key lookup in the text model's config first, then the top level, then the model type's
    transformers defaults (:mod:`pespec.rope.hf_defaults`); ``defaulted`` records each key
    served from the defaults, for the notes."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        text = config.get("text_config")
        self.layers: list[Mapping[str, Any]] = [text] if isinstance(text, Mapping) else []
        self.layers.append(config)
        self.defaults: Mapping[str, Any] = {}
        self.defaulted: dict[str, Any] = {}
        self.aliases: Mapping[str, str] = {}
        self.model_type = str(self.get("model_type") or "")
        self.aliases = key_aliases(self.model_type)
        self.class_name, defaults = model_defaults(self.model_type)
        if any(self.in_file(key) for key in _FILE_ROTARY_KEYS):
            defaults = {k: v for k, v in defaults.items() if k != "rope_parameters"}
        self.defaults = defaults

    def get(self, key: str) -> Any:
        for layer in self.layers:
            for name in (key, self.aliases.get(key, key)):
                if layer.get(name) is not None:
                    return layer[name]
        value = self.defaults.get(key)
        if value is not None:
            self.defaulted.setdefault(key, value)
        return value

    def in_file(self, key: str) -> bool:
        """True when the file itself (not the model type's defaults) gives ``key``."""
        names = (key, self.aliases.get(key, key))
        return any(layer.get(name) is not None for layer in self.layers for name in names)

    def default_notes(self) -> list[str]:
        """A note for each value the file left out and the model type's defaults gave (θ has
        its own note unless the default block gave it)."""
        owner = f"{self.class_name}'s default"
        notes = []
        for key, value in self.defaulted.items():
            trivial = isinstance(value, Mapping) and set(value) <= {"rope_theta", "rope_type"}
            if key == "rope_parameters" and trivial and value.get("rope_type") == "default":
                theta = value.get("rope_theta")
                notes.append(f"θ defaulted to {theta:g}: no rope_theta in the config, {owner}")
            elif key == "rope_parameters":
                notes.append(
                    f"rotary block defaulted to {value}: no rope_parameters or rope_scaling "
                    f"in the config, {owner}"
                )
            elif key not in ("rope_theta", "rope_local_base_freq"):
                notes.append(f"{key} defaulted to {value}: not in the config, {owner}")
        return notes


_FILE_ROTARY_KEYS = (
    "rope_parameters",
    "rope_scaling",
    "rope_theta",
    "rotary_emb_base",
    "rope_local_base_freq",
)
"""Keys of a file that gives its own rotary parameters: the model type's default block is
then not used (the file's keys, with the default θ where it gives none, are)."""


def _fraction(key: str, value: Any) -> float:
    """A partial-rotary fraction in (0, 1], or raise naming ``key``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise ValueError(f"{key} must be a number in (0, 1]; got {value!r:.60}")
    return float(value)


def _block(source: _Source, layer_type: str | None) -> tuple[dict[str, Any], float | None]:
    """The scaling block for the layer type, and a θ that overrides the usual lookup."""
    params = source.get("rope_parameters")
    key = "rope_parameters"
    if params is None:
        params, key = source.get("rope_scaling"), "rope_scaling"
    params = {} if params is None else params
    if not isinstance(params, Mapping):
        raise ValueError(f"{key} must be an object or null; got {params!r:.60}")
    per_layer = {k: v for k, v in params.items() if k in _LAYER_TYPES}
    if per_layer or source.get("rope_local_base_freq") is not None:
        choices = sorted(per_layer) if per_layer else list(_LAYER_TYPES)
        if layer_type not in choices:
            raise ConfigArgumentError(
                "layer_type",
                f"{{name}} must be one of {choices} for "
                f"this config (its rotary parameters differ per layer "
                f"type); got {layer_type!r}",
            )
        if per_layer:
            chosen = per_layer[layer_type]
            if not isinstance(chosen, Mapping):
                raise ValueError(f"{key}[{layer_type!r}] must be an object; got {chosen!r:.60}")
            return dict(chosen), None
        if layer_type == "sliding_attention":  # Gemma 3 local layers: default rope, local θ
            return {}, source.get("rope_local_base_freq")
        return dict(params), None
    if layer_type is not None:
        listed = source.get("layer_types") or []
        names = sorted({str(n) for n in listed}) if isinstance(listed, list) else []
        if layer_type not in names:
            raise ConfigArgumentError(
                "layer_type",
                f"{{name}} must be None or one of the "
                f"config's layer_types {names}; got {layer_type!r}",
            )
    return dict(params), None


def _head_dim(source: _Source, layer_type: str | None = None) -> int:
    """qk_rope_head_dim (DeepSeek), head_dim, hidden_size/num_attention_heads or n_embd/n_head;
    for full-attention layers, Gemma 4's ``global_head_dim`` first (transformers'
    ``Gemma4TextConfig`` overrides ``head_dim`` with it on those layers; the class default for
    the model types that pop it); the model type's own head-size key first where it has one."""
    own = _HEAD_SIZE_KEYS.get(source.model_type)
    keys: tuple[str, ...] = (*((own,) if own else ()), "qk_rope_head_dim", "head_dim")
    if layer_type == "full_attention":
        keys = ("global_head_dim", *keys)
        default = _GLOBAL_HEAD_DIM_DEFAULTS.get(source.model_type)
        if default is not None and source.get("global_head_dim") is None:
            return default
    for key in keys:
        if source.get(key) is not None:
            return whole_count(key, source.get(key), 2)
    for width, heads in (("hidden_size", "num_attention_heads"), ("n_embd", "n_head")):
        total, count = source.get(width), source.get(heads)
        if total is not None and count is not None:
            total, count = whole_count(width, total), whole_count(heads, count)
            if total % count:
                raise ValueError(f"{width} = {total} is not a multiple of {heads} = {count}")
            return total // count
    raise ValueError(
        "config has no head size: expected qk_rope_head_dim, head_dim, "
        "hidden_size and num_attention_heads, or n_embd and n_head"
    )


def _rotary_dim(source: _Source, block: Mapping[str, Any], head_dim: int, notes: list[str]) -> int:
    """rotary_dim (GPT-J), or int(head_dim × partial_rotary_factor / rotary_pct), or the
    model type's default fraction (Annex E.8, with a note), or head_dim."""
    if source.get("rotary_dim") is not None:
        return whole_count("rotary_dim", source.get("rotary_dim"), 2)
    entry = MODEL_ROTARY.get(source.model_type)
    if entry is not None and entry.rotated == "qk_rope_head_dim":
        return head_dim  # MLA: all of qk_rope_head_dim; a fraction there is of the full head
    key, fraction = "partial_rotary_factor", block.get("partial_rotary_factor")
    for other in ("partial_rotary_factor", "rotary_pct"):
        if fraction is None:
            key, fraction = other, source.get(other)
    if fraction is None and entry is not None and entry.fraction is not None:
        notes.append(
            f"d_r = ⌊head_dim · {entry.fraction:g}⌋, {source.model_type}'s transformers "
            "default: no partial_rotary_factor, rotary_pct or rotary_dim in the config"
        )
        return int(head_dim * entry.fraction)
    return head_dim if fraction is None else int(head_dim * _fraction(key, fraction))


def _pairing(source: _Source, notes: list[str]) -> str:
    """The model type's pairing where its code ignores the keys, else ``rope_interleave``,
    else the model type's (SPEC Annex E.8), else halves with a note."""
    entry = MODEL_ROTARY.get(source.model_type)
    if entry is not None and entry.switch is None:
        return entry.pairing
    interleave = source.get("rope_interleave")
    if interleave is not None:
        if not isinstance(interleave, bool):
            raise TypeError(f"rope_interleave must be true or false; got {interleave!r:.60}")
        return PAIRINGS[2] if interleave else PAIRINGS[0]
    if entry is not None:
        return entry.pairing
    if source.model_type not in HALVES_MODEL_TYPES:
        named = f"model_type {source.model_type!r}" if source.model_type else "no model_type"
        notes.append(
            f"pairing defaulted to halves: {named} is not among the model types pespec "
            "knows (SPEC Annex E.8) and the config has no rope_interleave"
        )
    return PAIRINGS[0]


def _lookup(block: Mapping[str, Any], source: _Source, key: str) -> Any:
    return block[key] if block.get(key) is not None else source.get(key)


def _refuse_non_rotary(source: _Source) -> None:
    """A model type known to have no rotary embedding, and no rotary key: a usage error."""
    unsupported = UNSUPPORTED_MODEL_TYPES.get(source.model_type)
    if unsupported is not None:
        raise ValueError(
            f"model_type {source.model_type!r} {unsupported}: no rotary configuration of "
            "pespec describes it (SPEC Annex E.8)"
        )
    reason = NO_ROTARY_MODEL_TYPES.get(source.model_type)
    if reason is not None and all(source.get(key) is None for key in _ROTARY_KEYS):
        raise ValueError(
            f"model_type {source.model_type!r} has no rotary position embedding ({reason}); "
            "pespec rope checks rotary embeddings and needs the config.json of a rotary model "
            "(one with rope_theta or rope_scaling, or a rotary model type such as llama, "
            "qwen2, mistral, gptj, gpt_neox), or a preset (pespec rope presets lists them)"
        )


def _schedule(
    kind: str, block: Mapping[str, Any], source: _Source, seq_len: Any, head_dim: int
) -> dict[str, Any]:
    """The schedule's fields (s, L, L0, ℓ and the block's own keys), read by the schedule."""
    schedule = SCHEDULES[kind]
    rule = {"seq_len_rule": seq_len} if seq_len in SEQ_LEN_RULES else {}
    if rule and schedule.uses_seq_len:  # ℓ per call (SPEC Annex G.1)
        seq_len = None
    if schedule.uses_seq_len:
        if seq_len is None and not rule:
            raise ConfigArgumentError(
                "seq_len",
                f"{{name}} is required for rope_type "
                f"{kind!r}: the sequence length ℓ, an int >= 1 "
                "(SPEC §8.4); got None",
            )
    elif seq_len is not None:
        users = [repr(s.name) for s in SCHEDULES.values() if s.uses_seq_len]
        named = " and ".join([", ".join(users[:-1]), users[-1]] if len(users) > 1 else users)
        raise ConfigArgumentError(
            "seq_len", f"{{name}} is used only by rope_types {named}; got {seq_len!r} for {kind!r}"
        )
    big_l = _lookup(block, source, "max_position_embeddings") or source.get("n_positions")
    small_l = _lookup(block, source, "original_max_position_embeddings")
    fields = schedule.hf_fields(HfBlock(block, big_l, small_l, seq_len, head_dim))
    return {**fields, **rule}


def read_fields(
    config: Mapping[str, Any], layer_type: str | None = None, seq_len: int | str | None = None
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The RopeConfig fields of a transformers ``config.json`` (parsed into a dict), and notes
    on the values the file left out and that were defaulted; see :func:`pespec.rope.hf.read_hf`.
    """
    if not isinstance(config, Mapping):
        raise TypeError(
            f"config must be a dict (a parsed config.json); got {type(config).__name__}"
        )
    source = _Source(config)
    _refuse_non_rotary(source)
    block, theta_override = _block(source, layer_type)
    kind = block.get("rope_type") or block.get("type") or "default"
    # a schedule may claim a block written under another kind (HunYuan's fixed alpha)
    kind = next((s.name for s in SCHEDULES.values() if s.claims(block)), kind)
    if not isinstance(kind, str) or kind not in ROPE_TYPES:
        raise ValueError(
            f"rope_type {kind!r:.60} is not a schedule pespec defines; allowed: {list(ROPE_TYPES)}"
        )
    theta, notes = theta_override, list[str]()
    for key in ("rope_theta", "rotary_emb_base"):
        if theta is None:
            theta = _lookup(block, source, key)
    if theta is None:
        theta = _DEFAULT_THETA
        notes.append(f"θ defaulted to {theta:g}: no rope_theta in the config")
    elif theta_override is None and not (
        block.get("rope_theta") is not None
        or any(source.in_file(key) for key in ("rope_theta", "rotary_emb_base"))
    ):
        notes.append(
            f"θ = {theta:g} is {source.model_type}'s transformers default: no "
            "rope_theta in the config"
        )
    head_dim = _head_dim(source, layer_type)
    fields: dict[str, Any] = {
        "head_dim": head_dim,
        "rotary_dim": _rotary_dim(source, block, head_dim, notes),
        "theta": theta,
        "rope_type": kind,
        "pairing": _pairing(source, notes),
    }
    fields.update(_schedule(kind, block, source, seq_len, head_dim))
    context = source.get("max_position_embeddings") or source.get("n_positions")
    fields["context_length"] = context  # the suite's default positions (SPEC R8.17)
    return fields, (*notes, *source.default_notes())
