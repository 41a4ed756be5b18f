"""The rotary diagnosis (SPEC Annex D.8) on faithful ports of real bugs and on correct stacks.

Each bug must be diagnosed NON-explained-as-correct: ``explained`` (the model found
reproduces the probes) with the right named cause in the fields and the sentence. Correct
stacks must come back explained with no cause. The expected causes are what each port was
written to do (its docstring in ``tests/rope_ports.py``), never read from the diagnosis.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from paths import HF_CONFIGS
from rope_ports import torch_backend

from pespec.rope import PRESETS, RopeConfig, frequencies
from pespec.rope.diagnosis import RopeDiagnosis, diagnose
from pespec.rope.diagnosis.examples import (
    bfloat16_stack,
    bugs,
    dynamic_port,
    fast_math_backend,
    fp16_cache_backend,
    numpy_backend,
    table_backend,
    yarn_port,
)
from pespec.rope.diagnosis.formats import is_member, round_to

MAX_CALLS = 3
STAGES = {"inv_freq", "positions", "phase", "cache", "rotation"}
NEOX = RopeConfig(head_dim=96, rotary_dim=24, theta=10000.0)
"""GPT-NeoX-style partial rotary: d_r 24 of head_dim 96 (rotary_pct 0.25)."""
DYNAMIC = RopeConfig(
    head_dim=128,
    theta=10000.0,
    rope_type="dynamic",
    factor=4.0,
    max_position_embeddings=4096,
    seq_len=4096,
)


def _bug(result: RopeDiagnosis, words: str) -> None:
    assert result.explained, result.sentence
    assert result.causes, result.sentence
    assert words in result.sentence, result.sentence
    assert result.backend_calls <= MAX_CALLS


def _correct(result: RopeDiagnosis) -> None:
    assert result.explained, result.sentence
    assert result.causes == (), result.sentence
    assert "no bug found" in result.sentence
    assert result.backend_calls <= MAX_CALLS
    for stage in ("inv_freq", "positions", "phase"):
        assert result.stage_precision[stage] not in ("bfloat16", "float16"), result.sentence


# --- correct stacks -------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Llama-2-7B", "gpt-oss-20b", "DeepSeek-V3", "GPT-J-6B"])
def test_numpy_float64_is_correct(name: str) -> None:
    result = diagnose(numpy_backend(np.float64), PRESETS[name])
    _correct(result)
    assert set(result.stage_precision.values()) == {"float64"}
    assert result.pairing == PRESETS[name].pairing
    assert result.rope_type == PRESETS[name].rope_type


@pytest.mark.parametrize(
    "name", ["Llama-3.1-8B", "Qwen2.5-7B-Instruct", "Phi-3.5-mini-instruct-seq-len-131072"]
)
def test_numpy_float32_is_correct(name: str) -> None:
    result = diagnose(numpy_backend(np.float32), PRESETS[name])
    _correct(result)
    assert set(result.stage_precision.values()) == {"float32"}
    assert result.parameters["attention_factor"] == frequencies(PRESETS[name])[1]


def test_correct_partial_rotary_and_dynamic() -> None:
    _correct(diagnose(numpy_backend(np.float32), NEOX))
    _correct(diagnose(table_backend(dynamic_port(DYNAMIC, 4096), 1.0), DYNAMIC))


def test_torch_float32_is_correct() -> None:
    torch = pytest.importorskip("torch")
    result = diagnose(torch_backend(torch.float32), PRESETS["Llama-3.1-8B"])
    _correct(result)
    assert result.stage_precision["rotation"] == "float32"
    assert result.stage_precision["inv_freq"] == "float32"


def test_torch_bfloat16_model_dtype_with_float32_phase_is_correct() -> None:
    torch = pytest.importorskip("torch")
    result = diagnose(torch_backend(torch.bfloat16), PRESETS["Llama-3.1-8B"])
    _correct(result)
    assert result.output_dtype == "bfloat16"
    assert result.stage_precision["rotation"] == "bfloat16"
    # the bfloat16 rotation hides whether the cache was bfloat16 or float32
    assert result.stage_precision["cache"] == "undetermined"


def test_numpy_bfloat16_model_stack_is_correct() -> None:
    result = diagnose(bfloat16_stack(), PRESETS["Llama-3.1-8B"], output_dtype="bfloat16")
    _correct(result)
    assert result.stage_precision["rotation"] == "bfloat16"
    # returned as float32, the same values are a bfloat16 rotation below the float32 level
    judged = diagnose(bfloat16_stack(), PRESETS["Llama-3.1-8B"])
    assert judged.causes == ("rotation in bfloat16 (the float32 output's level needs float32)",)


# --- the real bugs --------------------------------------------------------------------------


def test_inv_freq_buffer_cast_to_bfloat16_port() -> None:
    torch = pytest.importorskip("torch")
    result = diagnose(torch_backend(torch.bfloat16, module_cast=True), PRESETS["Llama-3.1-8B"])
    _bug(result, "inverse frequencies in bfloat16")
    assert result.stage_precision["inv_freq"] == "bfloat16"
    assert result.max_position_within_1e_2 is not None
    assert result.max_position_within_1e_2 < 1000


def _transformers_llama31(cast: bool = True, model_dtype: str = "bfloat16") -> Any:
    """transformers' own Llama rotary module and apply_rotary_pos_emb (Llama-3.1 config);
    ``cast``: the module after ``.to(torch.bfloat16)``, which casts its inv_freq buffer."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")

    from transformers.models.llama import modeling_llama

    path = HF_CONFIGS / "llama-3.1-8b.json"
    config = transformers.AutoConfig.for_model(**json.loads(path.read_text(encoding="utf-8")))
    module = modeling_llama.LlamaRotaryEmbedding(config)
    if cast:
        module = module.to(torch.bfloat16)
    dtype = getattr(torch, model_dtype)

    def backend(x: Any, positions: Any, rope: RopeConfig) -> Any:
        q = torch.from_numpy(x).to(dtype)[None, None]
        ids = torch.from_numpy(positions)[None]
        cos, sin = module(q, ids)
        return modeling_llama.apply_rotary_pos_emb(q, q, cos, sin)[0][0, 0]

    return backend


@pytest.mark.parametrize("model_dtype", ["float32", "bfloat16"])
def test_transformers_rotary_module_is_correct(model_dtype: str) -> None:
    result = diagnose(
        _transformers_llama31(cast=False, model_dtype=model_dtype), PRESETS["Llama-3.1-8B"]
    )
    _correct(result)
    assert result.stage_precision["rotation"] == model_dtype


def test_transformers_rotary_module_to_bfloat16() -> None:
    result = diagnose(_transformers_llama31(), PRESETS["Llama-3.1-8B"])
    _bug(result, "inverse frequencies in bfloat16")
    assert result.stage_precision["inv_freq"] == "bfloat16"
    assert result.stage_precision["rotation"] == "bfloat16"


def test_inv_freq_bfloat16_numpy_reproduction() -> None:
    result = diagnose(
        bfloat16_stack(inv_freq_bf16=True), PRESETS["Llama-3.1-8B"], output_dtype="bfloat16"
    )
    _bug(result, "inverse frequencies in bfloat16")
    assert result.stage_precision["inv_freq"] == "bfloat16"
    assert len(result.causes) == 1


def test_positions_bfloat16_numpy_reproduction() -> None:
    result = diagnose(
        bfloat16_stack(positions_bf16=True), PRESETS["Qwen2.5-7B-Instruct"], output_dtype="bfloat16"
    )
    _bug(result, "positions in bfloat16")
    assert result.stage_precision["positions"] == "bfloat16"
    assert len(result.causes) == 1


@pytest.mark.slow
def test_every_bug_of_the_guide_table_is_named() -> None:
    for bug, _, config, backend in bugs():
        model = "bfloat16" if "bfloat16" in bug else None
        result = diagnose(backend, config, output_dtype=model)
        assert result.explained and result.causes, (bug, result.sentence)
        assert result.backend_calls <= MAX_CALLS


@pytest.mark.slow
def test_float16_cache_at_theta_1e6() -> None:
    # the cache holds 2^17 positions: the third probe call (beyond) fails with IndexError
    result = diagnose(fp16_cache_backend(1 << 17), RopeConfig(head_dim=128, theta=1e6))
    _bug(result, "cos/sin cache in float16")
    assert result.stage_precision["cache"] == "float16"
    assert result.stage_precision["positions"] == "float16"  # inf beyond 65504
    assert result.stage_precision["rotation"] == "float32"
    assert result.max_position_within_1e_2 is not None
    assert result.max_position_within_1e_2 < 65504


def test_positions_as_bfloat16() -> None:
    torch = pytest.importorskip("torch")
    result = diagnose(
        torch_backend(torch.float32, positions_dtype=torch.bfloat16), PRESETS["Llama-3.1-8B"]
    )
    _bug(result, "positions in bfloat16")
    assert result.stage_precision["positions"] == "bfloat16"
    assert result.stage_precision["inv_freq"] == "float32"


def test_yarn_truncate_ignored_for_gpt_oss() -> None:
    rope = PRESETS["gpt-oss-20b"]
    assert rope.truncate is False
    omegas, attention = yarn_port(rope, truncate=True)
    result = diagnose(table_backend(omegas, attention), rope)
    _bug(result, "YaRN truncate taken as True")
    assert result.rope_type == "yarn"
    assert result.parameters["truncate"] is True
    # the same port with truncate honoured is correct
    _correct(diagnose(table_backend(*yarn_port(rope, truncate=False)), rope))


def test_dynamic_ntk_collapsed_to_a_constant() -> None:
    assert DYNAMIC.factor is not None and DYNAMIC.max_position_embeddings is not None
    length = int(DYNAMIC.factor * DYNAMIC.max_position_embeddings)
    result = diagnose(table_backend(dynamic_port(DYNAMIC, length), 1.0), DYNAMIC)
    _bug(result, "dynamic NTK collapsed to a constant")
    assert result.rope_type == "dynamic"
    assert result.parameters["seq_len"] == length


def test_partial_rotary_with_omega_over_head_dim() -> None:
    omegas = 1.0 / 10000.0 ** (np.arange(0, NEOX.d_r, 2) / NEOX.head_dim)
    result = diagnose(table_backend(omegas, 1.0), NEOX)
    _bug(result, "ω computed over head_dim = 96 instead of d_r = 24")
    assert result.parameters["omega_dim"] == 96


@pytest.mark.parametrize(
    ("configured", "used"), [("halves", "interleaved"), ("interleaved", "halves")]
)
def test_halves_and_interleaved_swapped(configured: str, used: str) -> None:
    rope = RopeConfig(head_dim=128, theta=10000.0, pairing=configured)
    result = diagnose(numpy_backend(np.float32, pairing=used), rope)
    _bug(result, f"pairs formed as {used} where the config says {configured}")
    assert result.pairing == used


def test_deepseek_attention_factor_as_plain_yarn() -> None:
    rope = PRESETS["DeepSeek-V3"]
    assert rope.factor is not None
    omegas, attention = frequencies(rope)
    assert attention == 1.0  # mscale = mscale_all_dim: the ratio is 1
    wrong = 0.1 * math.log(rope.factor) + 1
    result = diagnose(table_backend(omegas, wrong), rope)
    _bug(result, "0.1·ln s + 1")
    assert result.parameters["attention_factor"] == pytest.approx(wrong, rel=1e-6)
    assert result.pairing == "interleaved_in_halves_out"


def test_fast_math_sine() -> None:
    result = diagnose(fast_math_backend(), PRESETS["Llama-2-7B"])
    _bug(result, "fast-math sine/cosine")
    assert result.pairing == "halves"


def test_diagnosis_is_deterministic() -> None:
    torch = pytest.importorskip("torch")
    backend = torch_backend(torch.bfloat16, module_cast=True)
    first = diagnose(backend, PRESETS["Llama-3.1-8B"]).to_dict()
    assert diagnose(backend, PRESETS["Llama-3.1-8B"]).to_dict() == first


# --- misbehaving backends and the JSON form -------------------------------------------------


def _raises(error: BaseException) -> Any:
    def backend(x: Any, positions: Any, rope: Any) -> Any:
        raise error

    return backend


@pytest.mark.parametrize("error", [ValueError("no"), SystemExit(0), GeneratorExit()])
def test_a_backend_that_raises_is_not_explained(error: BaseException) -> None:
    result = diagnose(_raises(error), PRESETS["Llama-2-7B"])
    assert not result.explained
    assert result.backend_calls == 1
    assert result.stage_precision == dict.fromkeys(STAGES, "undetermined")


@pytest.mark.parametrize("value", [None, np.zeros((3, 3)), "text"])
def test_a_backend_with_a_wrong_result_is_not_explained(value: Any) -> None:
    result = diagnose(lambda x, p, r: value, PRESETS["Llama-2-7B"])
    assert not result.explained
    assert result.pairing == "undetermined"


@pytest.mark.slow
def test_timeout_stops_a_hanging_backend() -> None:
    import threading

    release = threading.Event()

    def backend(x: Any, positions: Any, rope: Any) -> Any:
        release.wait(5)
        return x

    try:
        result = diagnose(backend, PRESETS["Llama-2-7B"], timeout=0.2)
    finally:
        release.set()
    assert not result.explained
    assert result.backend_calls == 1


def test_to_dict_is_json_with_the_specified_keys() -> None:
    result = diagnose(numpy_backend(np.float32), PRESETS["Llama-2-7B"])
    data = json.loads(json.dumps(result.to_dict()))
    assert {
        "pairing",
        "rope_type",
        "parameters",
        "stage_precision",
        "max_position_within_1e-2",
        "sentence",
        "explained",
        "backend_calls",
    } <= set(data)
    assert set(data["stage_precision"]) == STAGES


def test_config_must_be_a_rope_config() -> None:
    with pytest.raises(TypeError, match=r"config must be a pespec\.rope\.RopeConfig"):
        diagnose(numpy_backend(np.float32), {"head_dim": 8})  # type: ignore[arg-type]


def test_bfloat16_rounding_matches_round_to_nearest_even() -> None:
    # bfloat16 keeps 8 significant bits: 1 + 2^-8 is a tie (to even: 1), 1 + 3·2^-8 rounds up
    values = np.array([1 + 2.0**-8, 1 + 3 * 2.0**-8, 1 + 2.0**-7, 65504.0, -0.0])
    assert round_to(values, "bfloat16").tolist() == [1.0, 1 + 2.0**-6, 1 + 2.0**-7, 65536.0, -0.0]
    assert round_to(np.array([65520.0]), "float16").tolist() == [math.inf]
    assert is_member(np.array([1.0078125, -0.75, np.nan]), "bfloat16")
    assert not is_member(np.array([1 + 2.0**-8]), "bfloat16")


def test_declared_max_position_is_respected() -> None:
    seen: list[int] = []
    inner = numpy_backend(np.float32)

    def backend(x: Any, positions: Any, rope: Any) -> Any:
        seen.append(int(positions.max()))
        return inner(x, positions, rope)

    backend.pespec_capabilities = {"max_position": 70000}  # type: ignore[attr-defined]
    result = diagnose(backend, PRESETS["Llama-2-7B"])
    assert max(seen) <= 70000
    assert result.backend_calls == 2
    assert result.causes == ()
    assert diagnose(inner, PRESETS["Llama-2-7B"], max_position=100).backend_calls == 1


@pytest.mark.parametrize(
    ("preset", "said"),
    [
        ("Qwen2.5-7B-Instruct", "1.000000e6"),
        ("Llama-2-7B", "10000"),
        ("Gemma-3-4B local layers", "10000"),
    ],
)
def test_a_running_product_theta_is_printed_apart_from_the_declared_one(
    preset: str, said: str
) -> None:
    # ggml's float32 phase (docs/engines.md, finding 2): ω_j = fl(ω_(j−1)·ts) with
    # ts = powf(θ, −2/d_r) rounded once; the rounded ts is the exact ratio of θ' = ts^(−d_r/2)
    # (1000002.11 for θ = 1e6, d_r = 128; 9999.978 for Llama-2, from the float32 ts in float64
    # below). The sentence must show θ̂ with the digits that tell it from θ (it printed
    # "1.00000e6, the config says 1.00000e6") and must not call d' = d_r a width slip ("ω
    # computed over d = 128 instead of d_r = 128").
    rope = PRESETS[preset]
    ts = np.float32(np.float32(rope.theta) ** np.float32(-2 / rope.d_r))
    omegas = [np.float32(1.0)]
    for _ in range(rope.d_r // 2 - 1):
        omegas.append(np.float32(omegas[-1] * ts))
    theta_prime = float(ts) ** (-rope.d_r / 2)
    result = diagnose(table_backend(np.array(omegas, dtype=np.float64), 1.0), rope)
    sentence = result.sentence
    assert f"the config says {said}" in sentence and "instead of d_r" not in sentence, sentence
    shown = sentence.split("θ measured ")[1].split(",")[0]
    assert shown != said and abs(float(shown) / theta_prime - 1) < 1e-6, shown
