"""mlx's and mlx-lm's position encodings as pespec backends (``mlx[cpu]``; issue 29).

Rotary: ``mlx.nn.RoPE`` and ``mlx.core.fast.rope`` called with the configuration's θ, d_r,
pairing (``traditional=True`` rotates consecutive pairs) and linear scale, as a user writes
them; mlx-lm's rotary module as its model file builds it from the published config.json
(``Attention(ModelArgs.from_dict(config)).rope``: ``initialize_rope`` and its Llama3/Yarn/
SuScaled classes). Every call rotates x (n, 1, head_dim) in the row's dtype with ``offset`` the
vector of the n positions (one per batch entry, as ``fast.rope`` documents), so any position
set is one call. Sinusoidal: ``mlx.nn.SinusoidalPositionalEncoding(d, min_freq=1/base)`` on the
positions (the ``mlx`` convention preset). mlx is imported when a backend is built.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pespec.clients.model import Client

if TYPE_CHECKING:  # the catalog imports this module: no NumPy, no rotary family until a build
    from numpy.typing import NDArray

    from pespec.rope.config import RopeConfig

__all__ = [
    "MLX_CLIENTS",
    "build_fast_rope",
    "build_mlx_lm",
    "build_mlx_lm_prefill",
    "build_rope",
    "build_sinusoidal",
    "mlx_lm_rotary",
    "mlx_sinusoidal",
    "rotate_with",
]


def _mx() -> Any:
    return importlib.import_module("mlx.core")


def _to_numpy(out: Any, dtype: str) -> NDArray[Any]:
    """An mlx result as NumPy in its own format (bfloat16 through float32: exact)."""
    import ml_dtypes
    import numpy as np

    mx = _mx()
    host = np.array(out.astype(mx.float32))
    return host.astype(ml_dtypes.bfloat16) if dtype == "bfloat16" else host


def rotate_with(rotate: Any, dtype: str) -> Any:
    """The rotary backend ``fn(x, positions, rope)`` of ``rotate(x (n, 1, D), offset (n,))``,
    an mlx rotation applied to x in ``dtype`` at one position per batch entry."""
    import numpy as np

    mx = _mx()

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> NDArray[Any]:
        xs = mx.array(np.asarray(x, dtype=np.float32)[:, None, :]).astype(getattr(mx, dtype))
        offsets = mx.array(np.asarray(positions, dtype=np.int32))
        out = rotate(xs, offsets)
        return _to_numpy(out, dtype)[:, 0, :]

    return fn


def _plain_rope(client: Client, config: str | None) -> tuple[int, bool, float, float]:
    """(dims, traditional, base, scale) of ``--config`` for mlx's RoPE (ValueError when the
    configuration is one RoPE cannot express: mlx's RoPE has θ, a linear scale, two pairings)."""
    from pespec.rope.presets import read_config

    if config is None:
        raise ValueError(f"client {client.name} needs --config (a preset or a config.json)")
    rope = read_config(config)
    if rope.rope_type not in ("default", "linear") or rope.pairing not in ("halves", "interleaved"):
        raise ValueError(
            f"client {client.name} has θ, a linear scale and halves or interleaved pairs; "
            f"--config {config!r} has rope_type {rope.rope_type!r}, {rope.pairing} pairs"
        )
    scale = 1.0 / rope.factor if rope.rope_type == "linear" and rope.factor else 1.0
    return rope.d_r, rope.pairing == "interleaved", rope.theta, scale


def build_rope(client: Client, dtype: str, config: str | None) -> Any:
    """``mlx.nn.RoPE(d_r, traditional, base=θ, scale)`` on x in ``dtype``."""
    dims, traditional, base, scale = _plain_rope(client, config)
    nn = importlib.import_module("mlx.nn")
    module = nn.RoPE(dims, traditional=traditional, base=base, scale=scale)
    return rotate_with(lambda xs, offsets: module(xs, offset=offsets), dtype)


def build_fast_rope(client: Client, dtype: str, config: str | None) -> Any:
    """``mlx.core.fast.rope(x, d_r, traditional=, base=θ, scale=, offset=)`` called directly."""
    dims, traditional, base, scale = _plain_rope(client, config)
    mx = _mx()

    def rotate(xs: Any, offsets: Any) -> Any:
        return mx.fast.rope(
            xs, dims, traditional=traditional, base=base, scale=scale, offset=offsets
        )

    return rotate_with(rotate, dtype)


def _published_json(config: str) -> dict[str, Any]:
    from pespec.clients.hf_rotary import config_file
    from pespec.rope.variants import DEEPSEEK_INTERLEAVED, VARIANTS, variant_json

    if config in VARIANTS:  # issue 36: a published file with a documented rotary block
        return variant_json(config)
    if config == DEEPSEEK_INTERLEAVED:  # the published file, its output layout declared
        config = "DeepSeek-V3"
    path, _, _ = config_file(config)
    data: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    return data


def mlx_lm_rotary(model_type: str, data: dict[str, Any], layer: int = 0) -> Any:
    """The rotary module mlx-lm's ``models/<model_type>.py`` builds for ``data`` (a
    config.json; its ``text_config`` for a multimodal one) in attention layer ``layer``."""
    module = importlib.import_module(f"mlx_lm.models.{model_type}")
    fields = {**data, **data.get("text_config", {})}
    args = module.ModelArgs.from_dict(fields)
    for name in ("Attention", "AttentionBlock", "DeepseekV3Attention"):
        attention = getattr(module, name, None)
        if attention is not None:
            layered = model_type in ("gemma3_text", "gemma4_text")
            made = attention(args, layer) if layered else attention(args)
            return made.rope
    raise ValueError(f"mlx_lm.models.{model_type} has no Attention class")


_GEMMA_LAYERS = {
    "Gemma-3-4B global layers": 5,
    "Gemma-3-4B local layers": 0,
    "Gemma-4-31B global layers": 5,
}
"""An attention layer of each kind in Gemma 3 (sliding_window_pattern 6: layer 5 global) and
Gemma 4 (gemma-4-31b-it's layer_types: layer 5 the first full_attention)."""


def _materialise(module: Any) -> None:
    """Evaluate the module's arrays now (its frequencies are lazy graphs on the building
    thread's stream; the suite calls the backend from another thread, which has none)."""
    mx = _mx()
    held = {**vars(module), **dict(module)}  # an mlx Module keeps its arrays as dict items
    mx.eval([value for value in held.values() if isinstance(value, mx.array)])


def build_mlx_lm(client: Client, dtype: str, config: str | None) -> Any:
    """mlx-lm's rotary module of the client's model type, built from ``--config``'s
    config.json as the model file builds it, applied at the row's positions."""
    if config is None:
        raise ValueError(f"client {client.name} needs --config (a preset or a config.json)")
    data = _published_json(config)
    model_type = str(client.options["model_type"])
    declared = str(data.get("text_config", {}).get("model_type", data.get("model_type")))
    if declared.removesuffix("_text") != model_type.removesuffix("_text"):
        raise ValueError(
            f"client {client.name} runs model_type {model_type!r} configurations; "
            f"--config {config!r} is a {declared!r} configuration"
        )
    rotary = mlx_lm_rotary(model_type, data, _GEMMA_LAYERS.get(config, 0))
    _materialise(rotary)
    return rotate_with(lambda xs, offsets: rotary(xs, offset=offsets), dtype)


def build_mlx_lm_prefill(client: Client, dtype: str, config: str | None) -> Any:
    """mlx-lm's rotary module called as a prompt's prefill (issue 36): each call rotates one
    sequence of T = (the largest position + 1) tokens at offset 0 (x's rows placed at their
    positions among zeros, read back; a repeated position in another sequence), so a module
    whose ℓ follows the call (``DynamicNTKScalingRoPE``: ℓ = max(T + offset, L0)) sees the
    ℓ a user's prompt gives it. x (1, 1, T, head_dim) as the attention passes queries."""
    import numpy as np

    from pespec.clients.adapter_rows import in_sequences

    build_mlx_lm(client, dtype, config)  # the plain client's checks of the configuration
    assert config is not None
    module = mlx_lm_rotary(str(client.options["model_type"]), _published_json(config))
    _materialise(module)
    mx = _mx()

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> NDArray[Any]:
        def prefill(sequence: NDArray[np.float32]) -> Any:
            xs = mx.array(sequence[None, None]).astype(getattr(mx, dtype))
            return _to_numpy(module(xs, offset=0), dtype)[0, 0]

        return in_sequences(x, positions, prefill)

    return fn


def mlx_sinusoidal(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """``mlx.nn.SinusoidalPositionalEncoding(d_model, min_freq=1/base)`` (other arguments
    its defaults) on the positions in float32."""
    import numpy as np

    mx = _mx()
    nn = importlib.import_module("mlx.nn")
    module = nn.SinusoidalPositionalEncoding(d_model, min_freq=1.0 / base)
    out = module(mx.array(np.asarray(positions, dtype=np.float32)))
    return np.array(out)


mlx_sinusoidal.pespec_capabilities = {"convention": "mlx"}  # type: ignore[attr-defined]


def build_sinusoidal(client: Client, dtype: str, config: str | None) -> Any:
    """The sinusoidal backend of ``mlx:SinusoidalPositionalEncoding`` (float32)."""
    return mlx_sinusoidal


def build_mlx_lm_vl_text(client: Client, dtype: str, config: str | None) -> Any:
    """mlx-lm's Qwen2.5-VL language model rotary module (``qwen2_vl`` runs ``qwen2.Model`` on
    the file's fields; ``initialize_rope`` answers ``rope_scaling`` mrope with ``nn.RoPE``, text
    positions only; issue 36), judged on text positions (:data:`QWEN_VL_TEXT`)."""
    from pespec.rope.variants import QWEN_VL_TEXT, qwen_vl_json

    if config != QWEN_VL_TEXT:
        raise ValueError(f"client {client.name} runs --config {QWEN_VL_TEXT!r}; got {config!r}")
    rotary = mlx_lm_rotary("qwen2", qwen_vl_json())
    _materialise(rotary)
    return rotate_with(lambda xs, offsets: rotary(xs, offset=offsets), dtype)


_MLX_DTYPES = ("float32", "bfloat16")
_MLX_SOURCE = "ml-explore/mlx python/mlx/nn/layers/positional_encoding.py"
_MLX_PLAIN = ("Llama-2-7B", "Qwen2.5-7B-Instruct", "GPT-J-6B", "Gemma-3-4B global layers")


def _mlx_lm(model_type: str, configs: tuple[str, ...]) -> Client:
    return Client(
        name=f"mlx-lm:{model_type}",
        family="rope",
        library="mlx-lm",
        requires=("mlx",),
        entry=f"mlx_lm.models.{model_type}.Attention(args).rope (rope_utils.initialize_rope)",
        source=f"ml-explore/mlx-lm mlx_lm/models/{model_type}.py",
        adapter="pespec.clients.mlx_clients:build_mlx_lm",
        configs=configs,
        dtypes=_MLX_DTYPES,
        options={"model_type": model_type},
    )


MLX_CLIENTS = (
    Client(
        name="mlx:nn.RoPE",
        family="rope",
        library="mlx",
        entry="mlx.nn.RoPE",
        source=_MLX_SOURCE,
        adapter="pespec.clients.mlx_clients:build_rope",
        configs=_MLX_PLAIN,
        dtypes=_MLX_DTYPES,
    ),
    Client(
        name="mlx:fast.rope",
        family="rope",
        library="mlx",
        entry="mlx.core.fast.rope",
        source="ml-explore/mlx mlx/fast.cpp",
        adapter="pespec.clients.mlx_clients:build_fast_rope",
        configs=("Llama-2-7B", "GPT-J-6B"),
        dtypes=_MLX_DTYPES,
    ),
    Client(
        name="mlx:nn.SinusoidalPositionalEncoding",
        family="sinusoidal",
        library="mlx",
        entry="mlx.nn.SinusoidalPositionalEncoding",
        source=_MLX_SOURCE,
        adapter="pespec.clients.mlx_clients:build_sinusoidal",
        configs=("declared",),
    ),
    _mlx_lm("llama", ("Llama-2-7B", "Llama-3.1-8B")),
    _mlx_lm("qwen2", ("Qwen2.5-7B-Instruct", "Qwen2.5-7B-Instruct-yarn-4")),
    _mlx_lm("gemma3_text", ("Gemma-3-4B global layers", "Gemma-3-4B local layers")),
    _mlx_lm("gpt_oss", ("gpt-oss-20b",)),
    _mlx_lm("gemma4_text", ("Gemma-4-31B global layers",)),
    _mlx_lm("deepseek_v3", ("DeepSeek-V3-interleaved-outputs",)),
    _mlx_lm("phi3", ("Phi-3.5-mini-instruct-seq-len-4096", "Phi-3.5-mini-instruct-seq-len-131072")),
    Client(  # rope_scaling mrope: nn.RoPE on text positions (issue 36)
        name="mlx-lm:qwen2_vl-text",
        family="rope",
        library="mlx-lm",
        requires=("mlx",),
        entry="mlx_lm.models.qwen2_vl (qwen2.Attention(args).rope, rope_utils.initialize_rope)",
        source="ml-explore/mlx-lm mlx_lm/models/rope_utils.py",
        adapter="pespec.clients.mlx_clients:build_mlx_lm_vl_text",
        configs=("Qwen2.5-VL-7B-Instruct-text-positions",),
        dtypes=_MLX_DTYPES,
    ),
    Client(  # ℓ follows the call (DynamicNTKScalingRoPE): called as a prefill (issue 36)
        name="mlx-lm:llama-prefill",
        family="rope",
        library="mlx-lm",
        requires=("mlx",),
        entry="mlx_lm.models.llama.Attention(args).rope on a prompt of T tokens at offset 0",
        source="ml-explore/mlx-lm mlx_lm/models/rope_utils.py",
        adapter="pespec.clients.mlx_clients:build_mlx_lm_prefill",
        configs=("Llama-2-7B-dynamic-4-per-call",),
        dtypes=_MLX_DTYPES,
        options={"model_type": "llama"},
    ),
)
"""mlx (``mlx[cpu]``) and mlx-lm."""
