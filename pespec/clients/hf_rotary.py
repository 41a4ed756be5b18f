"""transformers' rotary modules as rotary backends, built from a published config.json or
from the model type's configuration class defaults.

The client's model type names the modeling file; the module is built from the configuration
``--config`` names (a preset: the copy of its published config.json; a shipped published
config by name; the user's own config.json; or ``defaults`` / ``defaults:LAYER_TYPE``: the
configuration class defaults, ``AutoConfig.for_model(model_type)`` with no overrides, its text
part, for model types of which pespec ships no published file), as the model builds it
(float32 buffers), and applied with the file's ``apply_rotary_pos_emb`` (or
``apply_rotary_pos_emb_interleave``) to the first ``cos.shape[-1]`` components of x in the
row's dtype, the rest passed through, as the attention modules do. The backend is
``fn(x (n, head_dim), positions (n,), rope)`` (SPEC §8.8). :func:`read_config` gives the
RopeConfig the check judges against from the same defaults (``pespec.rope.hf.read_hf`` of
their ``to_dict()``), so the module and the reference read one configuration.
"""

from __future__ import annotations

import importlib
import inspect
import json
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.clients.model import Client
from pespec.rope.config import RopeConfig
from pespec.rope.presets import PRESET_SOURCES, published_config

__all__ = [
    "DEFAULTS",
    "MODULE_CAST",
    "build",
    "cast_module",
    "client_config",
    "config_file",
    "defaults_config",
    "hf_config",
    "modeling",
    "read_config",
    "rotary_backend",
    "rotary_class",
    "transformers_longrope",
]


DEFAULTS = "defaults"
"""``--config defaults`` (``defaults:LAYER_TYPE`` for a model type whose rotary parameters
differ per layer type): the client's configuration class defaults (module docstring)."""


def defaults_layer(config: str | None) -> tuple[bool, str | None]:
    """(whether ``config`` names the defaults, the layer type it names)."""
    if config is None or not (config == DEFAULTS or config.startswith(DEFAULTS + ":")):
        return False, None
    return True, config.partition(":")[2] or None


def defaults_config(model_type: str) -> Any:
    """``AutoConfig.for_model(model_type)`` with no overrides (its text part, if any)."""
    transformers = importlib.import_module("transformers")
    made = transformers.AutoConfig.for_model(model_type)
    return getattr(made, "text_config", None) or made


def read_config(
    client: Client, text: str, layer_type: str | None, seq_len: int | str | None
) -> Any:
    """The ConfigReading of ``--config defaults[:LAYER_TYPE]`` for ``client`` (the same
    configuration :func:`build` builds the module from); None for another ``--config``."""
    from pespec.rope.hf import read_hf

    named, layer = defaults_layer(text)
    if not named:
        return None
    for flag, given in (("--seq-len", seq_len), ("--layer-type", layer_type)):
        if given is not None:
            raise ValueError(
                f"{flag} does not apply to --config {text!r} (write defaults:LAYER_TYPE for a "
                f"layer type); got {flag} {given}"
            )
    return read_hf(defaults_config(_model_type(client)).to_dict(), layer_type=layer)


def _model_type(client: Client) -> str:
    return str(client.options.get("model_type", client.name.partition(":")[2]))


def config_file(config: str | None) -> tuple[Path, str | None, int | None]:
    """The config.json behind ``--config`` with its layer type and ℓ (a preset fixes them)."""
    if config is None:
        raise ValueError("a transformers client needs --config (a preset or a config.json)")
    source = PRESET_SOURCES.get(config)
    if source is not None:
        return (
            published_config(source.copy.removesuffix(".json")),
            source.layer_type,
            source.seq_len,
        )
    path = published_config(config) if published_config(config).is_file() else Path(config)
    if not path.is_file():
        raise ValueError(f"--config {config!r} names no preset, published config or file")
    return path, None, None


def hf_config(path: Path) -> Any:
    """The transformers configuration of a config.json (its text part for a multimodal one)."""
    return _hf_from_json(json.loads(path.read_text(encoding="utf-8")))


def _hf_from_json(data: dict[str, Any]) -> Any:
    transformers = importlib.import_module("transformers")
    made = transformers.AutoConfig.for_model(**data)
    return getattr(made, "text_config", None) or made


def modeling(config: Any) -> Any:
    """The modeling module of a transformers configuration (next to its configuration class's
    module: ``emu3_text_model`` and ``aria_text`` are in ``emu3`` and ``aria``)."""
    package, _, name = type(config).__module__.rpartition(".")
    return importlib.import_module(f"{package}.{name.replace('configuration_', 'modeling_', 1)}")


def rotary_class(module: Any) -> Any:
    """The modeling file's text rotary class (the shortest ``*RotaryEmbedding`` name that is not
    a vision one)."""
    names = [
        a
        for a in dir(module)
        if a.endswith("RotaryEmbedding") and not a.startswith("_") and "Vision" not in a
    ]
    return getattr(module, sorted(names, key=lambda a: (len(a), a))[0])


MODULE_CAST = "module-bfloat16"
"""The dtype of a row whose rotary module is cast as users cast a model,
``module.to(torch.bfloat16)`` (which casts its float buffers, ``inv_freq`` among them), with x
in bfloat16; plain ``bfloat16`` keeps the module as built (float32 buffers, as
``from_pretrained(dtype=torch.bfloat16)`` leaves them)."""


def cast_module(rotary: Any, dtype_name: str) -> tuple[Any, Any]:
    """(the module, cast when ``dtype_name`` is :data:`MODULE_CAST`; the torch dtype of x)."""
    torch = importlib.import_module("torch")
    if dtype_name == MODULE_CAST:
        return rotary.to(torch.bfloat16), torch.bfloat16
    return rotary, getattr(torch, dtype_name)


def _rotated_width(rotary: Any, cos: Any, layer_type: str | None) -> int:
    """The rotated components: cos's width, twice it where cos holds one value per pair
    (GPT-OSS: as many as ``inv_freq``, applied to the two halves)."""
    pairs = getattr(rotary, f"{layer_type}_inv_freq" if layer_type else "inv_freq", None)
    half = pairs is not None and cos.shape[-1] == pairs.shape[-1]
    return int(cos.shape[-1]) * (2 if half else 1)


def rotary_backend(
    config: Any, dtype_name: str, layer_type: str | None = None, interleave: bool = False
) -> Any:
    """The model type's rotary module (float32, as built; cast for :data:`MODULE_CAST`) and
    its apply function on x in ``dtype_name``: ``fn(x, positions, rope) -> (n, head_dim)``."""
    torch = importlib.import_module("torch")
    module = modeling(config)
    rotary, dtype = cast_module(rotary_class(module)(config), dtype_name)
    apply = module.apply_rotary_pos_emb_interleave if interleave else module.apply_rotary_pos_emb
    one = list(inspect.signature(apply).parameters)[1] == "cos"  # Gemma-3n: apply(x, cos, sin)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        q = torch.from_numpy(np.asarray(x)).to(dtype)[None, None]
        ids = torch.from_numpy(np.asarray(positions))[None]
        with torch.no_grad():
            cos, sin = rotary(q, ids, layer_type) if layer_type else rotary(q, ids)
            width = _rotated_width(rotary, cos, layer_type)  # the rest passes, as attention
            part = q[..., :width]
            rotated = apply(part, cos, sin) if one else apply(part, part, cos, sin)[0]
        return torch.cat([rotated, q[..., width:]], dim=-1)[0, 0]

    return fn


def transformers_longrope(config: Any, dtype_name: str, seq_len: int) -> Any:
    """Phi-3's rotary module with ℓ forced: its frequencies from ``ROPE_INIT_FUNCTIONS
    ["longrope"]`` at ℓ, its forward without ``dynamic_rope_update`` (which picks ℓ from each
    call's positions; SPEC §8.4)."""
    torch = importlib.import_module("torch")
    rope_utils = importlib.import_module("transformers.modeling_rope_utils")
    module = modeling(config)
    rotary = rotary_class(module)(config)
    inv_freq, attention = rope_utils.ROPE_INIT_FUNCTIONS["longrope"](config, None, seq_len=seq_len)
    rotary.inv_freq, rotary.attention_scaling = inv_freq, attention
    rotary, dtype = cast_module(rotary, dtype_name)
    forward = inspect.unwrap(type(rotary).forward)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        q = torch.from_numpy(np.asarray(x)).to(dtype)[None, None]
        ids = torch.from_numpy(np.asarray(positions))[None]
        with torch.no_grad():
            cos, sin = forward(rotary, q, ids)
            return module.apply_rotary_pos_emb(q, q, cos, sin)[0][0, 0]

    return fn


def client_config(client: Client, config: str | None) -> tuple[Any, str | None, int | None]:
    """(the transformers configuration, layer type, ℓ) of ``--config`` for ``client``."""
    named, layer = defaults_layer(config)
    if named:
        return defaults_config(_model_type(client)), layer, None
    from pespec.rope.variants import VARIANTS, variant_json

    if config in VARIANTS:  # issue 36: a published file with a documented rotary block
        hf = _hf_from_json(variant_json(str(config)))
        layer_type, seq_len = VARIANTS[str(config)].layer_type, None  # ℓ: the module's own
    else:
        path, layer_type, seq_len = config_file(config)
        hf = hf_config(path)
    model_type = _model_type(client)
    if hf.model_type.removesuffix("_text") != model_type:
        raise ValueError(
            f"client {client.name} runs model_type {model_type!r} configurations; "
            f"--config {config!r} is a {hf.model_type!r} configuration"
        )
    return hf, layer_type, seq_len


def build(client: Client, dtype: str, config: str | None) -> Any:
    """The rotary backend of a transformers client for ``--config`` ``config``."""
    hf, layer_type, seq_len = client_config(client, config)
    if client.options.get("forced_seq_len") and seq_len is not None:
        return transformers_longrope(hf, dtype, seq_len)
    interleave = bool(client.options.get("interleave")) and bool(
        getattr(hf, "rope_interleave", True)
    )
    return rotary_backend(hf, dtype, layer_type, interleave)
