"""vLLM's and SGLang's Triton M-RoPE kernels under the Triton interpreter (issue 35 item 4):
the declared rows, the configurations refused, how the kernel's code is re-bound, and (in the
engine environments, ``PESPEC_ENGINE_ENVS``) the rows' checks."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from pespec.clients.catalog import get_client
from pespec.clients.engines import engine_python
from pespec.clients.table import planned_rows, reproduction
from pespec.clients.triton_engines import HEADS, IMAGE_PRESETS, engine_preset, rebound, sglang, vllm
from pespec.multiaxis.rope.presets import PRESETS, resolve_config

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = {
    "vllm:MRotaryEmbedding.forward_cuda-interpret": ("vllm", "tokens"),
    "vllm:MRotaryEmbedding.forward_cuda-interpret-offsets": ("vllm", "offsets"),
    "sglang:MRotaryEmbedding.forward_triton-interpret": ("sglang", "tokens"),
    "sglang:MRotaryEmbedding.forward_triton-interpret-offsets": ("sglang", "offsets"),
    "vllm:MRotaryEmbedding.forward_cuda-interpret-heads": ("vllm", "heads"),
    "sglang:MRotaryEmbedding.forward_triton-interpret-heads": ("sglang", "heads"),
}
PUBLISHED = {
    "qwen2.5-vl-7b": ("qwen2.5-vl-7b-instruct.json", [16, 24, 24]),
    "qwen3-vl-4b": ("qwen3-vl-4b-instruct.json", [24, 20, 20]),
}


@pytest.mark.parametrize("image", sorted(IMAGE_PRESETS))
def test_each_image_config_is_its_models_rotary_on_one_image(image: str) -> None:
    # The oracle's configuration is the published model's (whose config.json the engine
    # builds its module from): the same sections, θ and interleaving; the positions are 16
    # text tokens, one 16 x 16 image, 16 text tokens (288 interpreter programs a call).
    model = IMAGE_PRESETS[image]
    file, section = PUBLISHED[model]
    data = json.loads((ROOT / "pespec" / "rope" / "published" / file).read_text("utf-8"))
    text = data.get("text_config", data)
    assert (text.get("rope_scaling") or text["rope_parameters"])["mrope_section"] == section
    preset = resolve_config(str(ROOT / image))
    assert preset.config.sections == PRESETS[model].config.sections
    positions = preset.positions()
    assert positions.shape == (16 + 16 * 16 + 16, 3)
    assert all(len(np.unique(positions[16:-16, a])) == 16 for a in (1, 2))
    # the heads rows' query and key heads are the model's text attention's
    assert HEADS[model] == (text["num_attention_heads"], text["num_key_value_heads"])


def test_declared_rows_and_their_reproductions() -> None:
    for name, (engine, shape) in CLIENTS.items():
        client = get_client(name)
        assert client.family == "multiaxis-rope"
        assert client.options == {"engine_env": engine, "shape": shape, "call_timeout": 900}
        assert client.configs == tuple(IMAGE_PRESETS)
        # bfloat16 is not run: the interpreter miscomputes it (triton_interpreter_bf16.py)
        assert client.dtypes == ("float32", "float16") and "bfloat16" in client.note
        assert client.adapter == f"pespec.clients.triton_engines:{engine}"
        rows = planned_rows([client])
        assert len(rows) == 4 and all(r["shape"] == shape for r in rows)
        for row in rows:
            line = reproduction(row)
            assert line.startswith(f"tools/engine-env {engine} DIR && DIR/{engine}/bin/pespec")
            assert line.endswith("--timeout 900")


@pytest.mark.parametrize("config", ["flux.1", "wan2.1", "eva02-b", None])
@pytest.mark.parametrize("adapter", [vllm, sglang])
def test_configs_the_engines_module_cannot_express_are_refused(
    adapter: object, config: str | None
) -> None:
    # refused before anything is imported (no torch here in CI pass 1)
    client = get_client(next(iter(CLIENTS)))
    with pytest.raises(ValueError, match="--config"):
        adapter(client, "float32", config)  # type: ignore[operator]


def test_engine_preset_of_each_accepted_config() -> None:
    client = get_client(next(iter(CLIENTS)))
    assert engine_preset(client, "qwen3-vl-4b") == "qwen3-vl-4b"
    for image, model in IMAGE_PRESETS.items():
        assert engine_preset(client, image) == model


SCALE = 2.0


def _scaled(x: float) -> float:
    return x * SCALE


def test_rebound_runs_the_functions_code_with_names_replaced_in_a_copy() -> None:
    # What the adapters do to the engines' host functions: their own code, another kernel
    copy = rebound(_scaled, SCALE=3.0)
    assert copy(2.0) == 6.0 and copy.__code__ is _scaled.__code__
    assert _scaled(2.0) == 4.0 and SCALE == 2.0  # the module is untouched


ROWS = [
    ("vllm:MRotaryEmbedding.forward_cuda-interpret", "qwen3-vl-4b-image.json", "float16"),
    (
        "sglang:MRotaryEmbedding.forward_triton-interpret-offsets",
        "qwen2.5-vl-7b-image.json",
        "float32",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(("client", "image", "dtype"), ROWS)
def test_row_in_the_engines_environment(
    tmp_path: Path, client: str, image: str, dtype: str
) -> None:
    # The row itself, judged by the family's oracle and error model, in the engine's own
    # environment (skips without it: tools/engine-env ENGINE DIR; PESPEC_ENGINE_ENVS=DIR).
    engine = CLIENTS[client][0]
    python = engine_python(engine)
    if python is None:
        pytest.skip(f"the {engine} engine environment is absent (tools/engine-env {engine} DIR)")
    out = tmp_path / "row.json"
    command = [str(python), "-m", "pespec", "check", "--client", client, "--dtype", dtype]
    command += ["--config", f"pespec/clients/configs/{image}", "--json", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([*command, "--quiet", "--in-process"], cwd=ROOT, env=env, timeout=900)
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["conformant"], report
