"""Liger's Qwen2-VL M-RoPE kernel under the Triton interpreter (issue 35 item 4): the
sections the adapter passes, the configurations it refuses, and (in the triton engine
environment, ``PESPEC_ENGINE_ENVS``) the row's check itself."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from pespec.clients.catalog import get_client
from pespec.clients.engines import engine_python
from pespec.clients.triton_kernels import _mrope_section
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


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_liger_mrope_row_in_the_triton_environment(tmp_path: Path, dtype: str) -> None:
    # The row itself, judged by the family's oracle and error model, in the engine's own
    # environment (skips without it: tools/engine-env triton DIR; PESPEC_ENGINE_ENVS=DIR).
    python = engine_python("triton")
    if python is None:
        pytest.skip("the triton engine environment is absent (tools/engine-env triton DIR)")
    out = tmp_path / "row.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRITON_INTERPRET": "1"}
    command = [str(python), "-m", "pespec", "check", "--client"]
    command += ["liger-kernel:triton-interpret-mrope-prefill", "--dtype", dtype]
    command += ["--config", IMAGE, "--json", str(out), "--quiet", "--in-process"]
    subprocess.run(command, cwd=ROOT, env=env, timeout=600, check=False)
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["conformant"], report
