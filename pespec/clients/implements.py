"""What each client's entry point implements, read from its source (issue 36).

One :class:`Declaration` per library entry point: the schedules (``rope_type``) and knobs its
code accepts, each with the file and line where the installed version implements (or refuses)
it, and the table rows (client, configuration) that exercise it. The coverage matrix
(:mod:`pespec.clients.coverage`, ``pespec table --coverage``) reads the table against these
declarations; ``tests/clients/test_coverage.py`` fails when a declared implemented schedule has
no row in ``results/conformance-table.json``. Lines are those of the versions named in
``version`` (the table's row says which version ran).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

__all__ = ["DECLARATIONS", "Declaration", "Item"]


@dataclass(frozen=True)
class Item:
    """A schedule or knob: ``where`` its file:line; ``rows`` the (client, configuration) rows
    that use it; ``implemented`` False for one the library does not have (``note`` says how it
    answers); ``not_run`` the reason an implemented one has no row yet (shown, never hidden);
    ``finding`` a library finding's cause where the row's diagnosis names none, with the test
    that confirms it against mpmath."""

    name: str
    where: str
    rows: tuple[tuple[str, str], ...] = ()
    implemented: bool = True
    note: str = ""
    not_run: str = ""
    finding: str = ""


@dataclass(frozen=True)
class Declaration:
    """An entry point's library, the version its lines are from, and its items."""

    library: str
    version: str
    items: tuple[Item, ...]


def _rows(client: str, *configs: str) -> tuple[tuple[str, str], ...]:
    return tuple((client, c) for c in configs)


_KERAS = "keras-hub:RotaryEmbedding"
_KERAS_FILE = "keras_hub/src/layers/modeling/rotary_embedding.py"
_MLX = "mlx_lm/models/rope_utils.py"
_HF = "transformers/modeling_rope_utils.py"
_DYNAMIC_VARIANTS = ("Llama-2-7B-dynamic-4-seq-len-4096", "Llama-2-7B-dynamic-4-seq-len-16384")
_RET = "rotary_embedding_torch/rotary_embedding_torch.py"
_RET_DOCUMENTED = "a documented configuration: no published model configuration uses it"
_DIFFUSERS = "diffusers:get_1d_rotary_pos_embed"
_ONNX_FILE = "onnx/reference/ops/op_rotary_embedding.py"

DECLARATIONS: Mapping[str, Declaration] = MappingProxyType(
    {
        _KERAS: Declaration(
            "keras-hub",
            "0.32.0",
            (
                Item(
                    "default (rope_type linear, scaling_factor 1)",
                    f"{_KERAS_FILE}:85",
                    _rows(_KERAS, "Llama-2-7B", "Qwen2.5-7B-Instruct"),
                ),
                Item("linear", f"{_KERAS_FILE}:241", _rows(_KERAS, "Gemma-3-4B global layers")),
                Item(
                    "dynamic (ℓ ≤ L0 and ℓ > L0)",
                    f"{_KERAS_FILE}:243",
                    _rows(_KERAS, *_DYNAMIC_VARIANTS),
                ),
                Item("yarn truncate=False", f"{_KERAS_FILE}:288", _rows(_KERAS, "gpt-oss-20b")),
                Item(
                    "yarn truncate=True",
                    f"{_KERAS_FILE}:288",
                    _rows(_KERAS, "Qwen2.5-7B-Instruct-yarn-4"),
                ),
                Item(
                    "yarn mscale / mscale_all_dim",
                    f"{_KERAS_FILE}:216",
                    implemented=False,
                    note="A = 0.1·ln s + 1 always; no mscale arguments",
                ),
                Item("llama3", f"{_KERAS_FILE}:241", implemented=False, note="no such rope_type"),
                Item("longrope", f"{_KERAS_FILE}:241", implemented=False, note="no such rope_type"),
            ),
        ),
        "mlx-lm:initialize_rope": Declaration(
            "mlx-lm",
            "0.32.2",
            (
                Item(
                    "default",
                    f"{_MLX}:305",
                    _rows("mlx-lm:llama", "Llama-2-7B")
                    + _rows("mlx-lm:qwen2", "Qwen2.5-7B-Instruct")
                    + _rows("mlx-lm:gemma3_text", "Gemma-3-4B local layers"),
                ),
                Item(
                    "linear", f"{_MLX}:305", _rows("mlx-lm:gemma3_text", "Gemma-3-4B global layers")
                ),
                Item(
                    "dynamic (per call: ℓ ≤ L0 and ℓ > L0)",
                    f"{_MLX}:309",
                    _rows("mlx-lm:llama-prefill", "Llama-2-7B-dynamic-4-per-call"),
                ),
                Item("llama3", f"{_MLX}:318", _rows("mlx-lm:llama", "Llama-3.1-8B")),
                Item(
                    "yarn truncate=False (config)",
                    f"{_MLX}:151",
                    _rows("mlx-lm:gpt_oss", "gpt-oss-20b"),
                    note="floor/ceil always",
                ),
                Item(
                    "yarn truncate=True",
                    f"{_MLX}:326",
                    _rows("mlx-lm:qwen2", "Qwen2.5-7B-Instruct-yarn-4"),
                ),
                Item(
                    "yarn mscale / mscale_all_dim",
                    f"{_MLX}:326",
                    _rows("mlx-lm:deepseek_v3", "DeepSeek-V3-interleaved-outputs"),
                    note="DeepSeek-V3's config.json with output_layout='interleaved' declared "
                    "(the module writes pairs in place, transformers writes halves)",
                ),
                Item(
                    "longrope / su (ℓ ≤ L0 and ℓ > L0)",
                    f"{_MLX}:347",
                    _rows(
                        "mlx-lm:phi3",
                        "Phi-3.5-mini-instruct-seq-len-4096",
                        "Phi-3.5-mini-instruct-seq-len-131072",
                    ),
                ),
                Item(
                    "proportional",
                    f"{_MLX}:358",
                    _rows("mlx-lm:gemma4_text", "Gemma-4-31B global layers"),
                ),
                Item(
                    "mrope",
                    f"{_MLX}:366",
                    _rows("mlx-lm:qwen2_vl-text", "Qwen2.5-VL-7B-Instruct-text-positions"),
                    note="mlx-lm builds nn.RoPE: text positions only (t = h = w), where M-RoPE "
                    "is the 1-D schedule; no image or video positions",
                ),
            ),
        ),
        "torchtune": Declaration(
            "torchtune",
            "0.6.1",
            (
                Item(
                    "default (RotaryPositionalEmbeddings)",
                    "torchtune/modules/position_embeddings.py:13",
                    _rows(
                        "torchtune:RotaryPositionalEmbeddings",
                        "Llama-2-7B",
                        "Qwen2.5-7B-Instruct",
                        "GPT-J-6B",
                    ),
                ),
                Item(
                    "llama3 (Llama3ScaledRoPE)",
                    "torchtune/models/llama3_1/_position_embeddings.py:15",
                    _rows("torchtune:Llama3ScaledRoPE", "Llama-3.1-8B"),
                ),
                Item(
                    "Phi-3 (Phi3RotaryPositionalEmbeddings, default, halves pairs)",
                    "torchtune/models/phi3/_position_embeddings.py:14",
                    _rows("torchtune:Phi3RotaryPositionalEmbeddings", "Llama-2-7B"),
                ),
                Item(
                    "longrope (Phi-3.5's short/long factors)",
                    "torchtune/models/phi3/_position_embeddings.py:43",
                    _rows(
                        "torchtune:Phi3RotaryPositionalEmbeddings",
                        "Phi-3.5-mini-instruct-seq-len-131072",
                    ),
                    implemented=False,
                    note="θ only: the Phi-3.5 configuration is refused",
                ),
            ),
        ),
        _DIFFUSERS: Declaration(
            "diffusers",
            "0.42.1",
            (
                Item(
                    "default",
                    "diffusers/models/embeddings.py:885",
                    _rows(_DIFFUSERS, "Llama-2-7B", "GPT-J-6B"),
                ),
                Item(
                    "linear_factor",
                    "diffusers/models/embeddings.py:930",
                    _rows(_DIFFUSERS, "Gemma-3-4B global layers"),
                ),
                Item(
                    "ntk_factor (θ·F, SPEC Annex F.7)",
                    "diffusers/models/embeddings.py:928",
                    _rows(
                        "diffusers:get_1d_rotary_pos_embed-ntk-factor",
                        "diffusers-1d-64-theta-10000-ntk-factor-4",
                    ),
                    note="a documented configuration: no published model passes ntk_factor",
                ),
            ),
        ),
        "rotary-embedding-torch:RotaryEmbedding": Declaration(
            "rotary-embedding-torch",
            "0.9.1",
            (
                Item(
                    "freqs_for='lang'",
                    f"{_RET}:118",
                    _rows("rotary-embedding-torch:RotaryEmbedding", "GPT-J-6B"),
                ),
                Item(
                    "freqs_for='pixel'",
                    f"{_RET}:120",
                    _rows(
                        "rotary-embedding-torch:RotaryEmbedding-pixel",
                        "rotary-embedding-torch-pixel-64-max-freq-10",
                    ),
                    finding="ω = π·linspace(1, max_freq/2, d/2) computed in float32 (step, π and "
                    "product each rounded: more than the one rounding the custom schedule "
                    "allows); confirmed by tests/rope/test_integration_schedules.py::"
                    "test_ret_pixel_against_exact_linspace_is_a_library_finding (mpmath)",
                ),
                Item(
                    "freqs_for='constant'",
                    f"{_RET}:122",
                    _rows(
                        "rotary-embedding-torch:RotaryEmbedding-constant",
                        "rotary-embedding-torch-constant-64-num-freqs-1",
                    ),
                    note=_RET_DOCUMENTED,
                ),
                Item(
                    "theta_rescale_factor (ntk)",
                    f"{_RET}:112",
                    _rows(
                        "rotary-embedding-torch:RotaryEmbedding-theta-rescale",
                        "rotary-embedding-torch-ntk-64-theta-rescale-4",
                    ),
                    note=_RET_DOCUMENTED,
                ),
                Item(
                    "use_xpos",
                    f"{_RET}:151",
                    _rows(
                        "rotary-embedding-torch:RotaryEmbedding-xpos",
                        "rotary-embedding-torch-xpos-64-32-base-512-query",
                        "rotary-embedding-torch-xpos-64-32-base-512-key",
                    ),
                    note=_RET_DOCUMENTED,
                ),
            ),
        ),
        "transformers:ROPE_INIT_FUNCTIONS": Declaration(
            "transformers",
            "5.24.0",
            (
                Item(
                    "default",
                    "transformers/models/llama/modeling_llama.py:91",
                    _rows("transformers:llama", "Llama-2-7B")
                    + _rows("transformers:qwen2", "Qwen2.5-7B-Instruct"),
                ),
                Item(
                    "linear", f"{_HF}:134", _rows("transformers:gemma3", "Gemma-3-4B global layers")
                ),
                Item(
                    "dynamic (per call: ℓ ≤ L0 and ℓ > L0)",
                    f"{_HF}:270",
                    _rows("transformers:llama", "Llama-2-7B-dynamic-4-per-call"),
                ),
                Item(
                    "yarn truncate=False",
                    f"{_HF}:346",
                    _rows("transformers:gpt_oss", "gpt-oss-20b"),
                ),
                Item(
                    "yarn truncate=True",
                    f"{_HF}:346",
                    _rows("transformers:qwen2", "Qwen2.5-7B-Instruct-yarn-4"),
                ),
                Item(
                    "yarn mscale / mscale_all_dim",
                    f"{_HF}:346",
                    _rows("transformers:deepseek_v3", "DeepSeek-V3"),
                ),
                Item(
                    "longrope (ℓ ≤ L0 and ℓ > L0)",
                    f"{_HF}:487",
                    _rows(
                        "transformers:phi3",
                        "Phi-3.5-mini-instruct-seq-len-4096",
                        "Phi-3.5-mini-instruct-seq-len-131072",
                    ),
                ),
                Item(
                    "longrope per call (PhiMoE, short/long mscale)",
                    "transformers/models/phimoe/modeling_phimoe.py:90",
                    _rows("transformers:phimoe", "Phi-3.5-MoE-instruct-per-call"),
                ),
                Item("llama3", f"{_HF}:581", _rows("transformers:llama", "Llama-3.1-8B")),
                Item(
                    "proportional",
                    f"{_HF}:194",
                    _rows("transformers:diffusion_gemma", "defaults:full_attention"),
                ),
            ),
        ),
        "onnx:RotaryEmbedding": Declaration(
            "onnx",
            "1.23.2",
            (
                Item(
                    "interleaved=0", f"{_ONNX_FILE}:70", _rows("onnx:RotaryEmbedding", "Llama-2-7B")
                ),
                Item(
                    "interleaved=1", f"{_ONNX_FILE}:70", _rows("onnx:RotaryEmbedding", "GPT-J-6B")
                ),
                Item(
                    "rotary_embedding_dim (partial rotation)",
                    f"{_ONNX_FILE}:35",
                    _rows("onnx:RotaryEmbedding", "GPT-J-6B"),
                ),
            ),
        ),
        "onnxruntime:RotaryEmbedding": Declaration(
            "onnxruntime",
            "1.32.0",
            (
                Item(
                    "interleaved=0",
                    "onnxruntime/core/providers/cpu/llm/rotary_embedding.cc",
                    _rows("onnxruntime:RotaryEmbedding", "Llama-2-7B"),
                ),
                Item(
                    "interleaved=1, rotary_embedding_dim (partial rotation)",
                    "onnxruntime/core/providers/cpu/llm/rotary_embedding.cc",
                    _rows("onnxruntime:RotaryEmbedding", "GPT-J-6B"),
                ),
            ),
        ),
        "equinox:nn.RotaryPositionalEmbedding": Declaration(
            "equinox",
            "0.13.8",
            (
                Item(
                    "theta (first θ in the process)",
                    "equinox/nn/_embedding.py:222",
                    _rows("equinox:nn.RotaryPositionalEmbedding", "Llama-2-7B"),
                ),
                Item(
                    "theta (a second θ, same size and dtype)",
                    "equinox/nn/_embedding.py:222",
                    _rows("equinox:nn.RotaryPositionalEmbedding-second-theta", "Llama-2-7B"),
                ),
            ),
        ),
    }
)
"""Every declared entry point by name (a client name, or the shared function several clients
reach: mlx-lm's ``initialize_rope``, transformers' ``ROPE_INIT_FUNCTIONS``)."""
