"""Liger's Qwen2-VL M-RoPE kernel and flash-attn's Triton rotary under the Triton
interpreter (issue 35 item 4): the sections the adapter passes, the configurations it
refuses, and (in the triton engine environment, ``PESPEC_ENGINE_ENVS``) the rows' checks."""

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
from pespec.clients.triton_kernels import _mrope_section, flash_attn_rotary
from pespec.multiaxis.rope.presets import PRESETS, resolve_config

ROOT = Path(__file__).resolve().parents[2]
IMAGE = "pespec/clients/configs/qwen2.5-vl-7b-image.json"
PUBLISHED = ROOT / "pespec" / "rope" / "published" / "qwen2.5-vl-7b-instruct.json"


def test_the_image_config_is_qwen2_5_vl_rotary_on_one_image() -> None:
    # The interpreter rows' configuration: Qwen2.5-VL's published rotary fields (mrope_section
    # from its config.json) on 16 text tokens, one 16 x 16 image, 16 text tokens.
    published = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    preset = resolve_config(str(ROOT / IMAGE))
    chosen, section = _mrope_section(str(ROOT / IMAGE))
    assert section == published["rope_scaling"]["mrope_section"] == [16, 24, 24]
    assert chosen.sections == PRESETS["qwen2.5-vl-7b"].config.sections
    positions = preset.positions()
    assert positions.shape == (16 + 16 * 16 + 16, 3)
    # every axis takes several values on the image (h and w: 16 each)
    assert all(len(np.unique(positions[16:-16, a])) >= n for a, n in ((1, 16), (2, 16)))
    for shape in ("prefill", "decode"):
        client = get_client(f"liger-kernel:triton-interpret-mrope-{shape}")
        assert client.configs == (IMAGE,) and client.options["shape"] == shape


@pytest.mark.parametrize("config", ["qwen3-vl-4b", "flux.1", "wan2.1"])
def test_the_adapter_refuses_what_the_kernel_cannot_express(config: str) -> None:
    # interleaved sections (Qwen3-VL), adjacent pairs and per-axis rotaries (Flux, Wan)
    with pytest.raises(ValueError, match="contiguous t, h, w sections"):
        _mrope_section(config)


def test_flash_attn_rows_check_positions_to_511_and_refuse_other_schedules() -> None:
    # As Liger's rope rows: a position only selects the cos/sin row a program loads
    for shape in ("prefill", "decode", "varlen", "varlen-offsets"):
        client = get_client(f"flash-attn:triton-interpret-rotary-{shape}")
        rows = planned_rows([client])
        assert rows and all(reproduction(r).endswith("--max-position 511") for r in rows)
        assert {r["dtype"] for r in rows} == {"float32", "bfloat16"}
        # halves on the whole head, and GPT-J's interleaved pairs on 64 of 256 dimensions
        assert {r["config"] for r in rows} == {"Llama-2-7B", "GPT-J-6B"}
    with pytest.raises(ValueError, match="rope_type 'llama3'"):  # refused before any import
        flash_attn_rotary(client, "float32", "Llama-3.1-8B")


ROWS = [
    ("liger-kernel:triton-interpret-mrope-prefill", IMAGE, "float32", []),
    ("liger-kernel:triton-interpret-mrope-prefill", IMAGE, "float16", []),
    ("flash-attn:triton-interpret-rotary-decode", "Llama-2-7B", "float32", ["511"]),
    ("flash-attn:triton-interpret-rotary-decode", "Llama-2-7B", "bfloat16", ["511"]),
    ("flash-attn:triton-interpret-rotary-varlen", "GPT-J-6B", "float32", ["511"]),
    ("flash-attn:triton-interpret-rotary-varlen-offsets", "GPT-J-6B", "bfloat16", ["511"]),
]


@pytest.mark.slow
@pytest.mark.parametrize(("client", "config", "dtype", "last"), ROWS)
def test_row_in_the_triton_environment(
    tmp_path: Path, client: str, config: str, dtype: str, last: list[str]
) -> None:
    # The row itself, judged by the family's oracle and error model, in the engine's own
    # environment (skips without it: tools/engine-env triton DIR; PESPEC_ENGINE_ENVS=DIR).
    python = engine_python("triton")
    if python is None:
        pytest.skip("the triton engine environment is absent (tools/engine-env triton DIR)")
    out = tmp_path / "row.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRITON_INTERPRET": "1"}
    command = [str(python), "-m", "pespec", "check", "--client"]
    command += [client, "--dtype", dtype, "--config", config, "--json", str(out)]
    command += ["--quiet", "--in-process", *(["--max-position", *last] if last else [])]
    subprocess.run(command, cwd=ROOT, env=env, timeout=600, check=False)
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["conformant"], report
