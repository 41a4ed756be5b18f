"""``--config`` with a diffusers transformer config.json (SPEC Annex K.1): the class by
``_class_name``, its rotary fields or the class defaults. Each shipped copy of a published file
(pespec/multiaxis/rope/published, PROVENANCE.md) reads to its preset's configuration, whose values
come
from its own cited source (the class defaults of diffusers 0.42.1)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pespec.multiaxis.rope.config import per_axis_rotary
from pespec.multiaxis.rope.diffusers_config import DIFFUSERS_CLASSES, from_diffusers_config
from pespec.multiaxis.rope.presets import PRESETS, resolve_config

ROOT = Path(__file__).resolve().parents[3]
PUBLISHED = ROOT / "pespec" / "multiaxis" / "rope" / "published"

COPIES = {
    "flux.1-dev-transformer.json": ("black-forest-labs/FLUX.1-dev", "flux.1"),
    "wan2.1-t2v-1.3b-transformer.json": ("Wan-AI/Wan2.1-T2V-1.3B-Diffusers", "wan2.1"),
    "hunyuanvideo-transformer.json": ("hunyuanvideo-community/HunyuanVideo", "hunyuanvideo"),
    "cogvideox-5b-transformer.json": ("THUDM/CogVideoX-5b", "cogvideox-5b"),
}


def _load(file: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((PUBLISHED / file).read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("file", sorted(COPIES))
def test_each_copy_reads_to_its_preset(file: str) -> None:
    preset = PRESETS[COPIES[file][1]]
    got = resolve_config(str(PUBLISHED / file))
    assert got.config == preset.config  # sections, θ, pairing (the name is not compared)
    assert (got.ids, got.grid, got.text_before, got.text_after) == (
        preset.ids,
        preset.grid,
        preset.text_before,
        preset.text_after,
    )
    assert np.array_equal(got.positions(), preset.positions())
    assert got.name == file


def test_every_copy_has_provenance() -> None:
    provenance = (PUBLISHED / "PROVENANCE.md").read_text(encoding="utf-8")
    assert {p.name for p in PUBLISHED.glob("*.json")} == set(COPIES)
    for file, (repo, _) in COPIES.items():
        assert f"`{file}` | `{repo}`" in provenance, file


def test_published_rotary_fields() -> None:
    # The figures in the files themselves, not through pespec.
    assert _load("flux.1-dev-transformer.json")["axes_dims_rope"] == [16, 56, 56]
    hunyuan = _load("hunyuanvideo-transformer.json")
    assert (hunyuan["rope_axes_dim"], hunyuan["rope_theta"]) == ([16, 56, 56], 256.0)
    assert _load("wan2.1-t2v-1.3b-transformer.json")["attention_head_dim"] == 128
    assert _load("cogvideox-5b-transformer.json")["use_rotary_positional_embeddings"] is True


def test_a_missing_field_takes_the_class_default() -> None:
    # FLUX.1-dev's first published revision (diffusers 0.30.0.dev0) has no axes_dims_rope:
    # FluxTransformer2DModel's default (16, 56, 56) applies, as from_config does.
    first = {k: v for k, v in _load("flux.1-dev-transformer.json").items() if k != "axes_dims_rope"}
    assert from_diffusers_config(first)[0] == PRESETS["flux.1"].config


def test_the_fields_are_read_not_assumed() -> None:
    # Wan at D 64: h = w = 2·(64 // 6) = 20, t = 64 − 40 = 24 (WanRotaryPosEmbed.__init__).
    wan = from_diffusers_config({"_class_name": "WanTransformer3DModel", "attention_head_dim": 64})
    want = per_axis_rotary((24, 20, 20), 10000.0)
    assert wan[0] == want and wan[1] == "wan2.1"
    hunyuan = {
        "_class_name": "HunyuanVideoTransformer3DModel",
        "attention_head_dim": 64,
        "rope_axes_dim": [16, 24, 24],
        "rope_theta": 1000.0,
    }
    assert from_diffusers_config(hunyuan)[0] == per_axis_rotary((16, 24, 24), 1000.0)
    flux = {"_class_name": "FluxTransformer2DModel", "attention_head_dim": 64}
    flux["axes_dims_rope"] = [8, 28, 28]
    assert from_diffusers_config(flux)[0] == per_axis_rotary((8, 28, 28), 10000.0)


@pytest.mark.parametrize(
    ("data", "needles"),
    [
        (
            {"_class_name": "SD3Transformer2DModel"},
            ["_class_name 'SD3Transformer2DModel'", *DIFFUSERS_CLASSES],
        ),
        (
            {"_class_name": "CogVideoXTransformer3DModel", "attention_head_dim": 64},
            ["use_rotary_positional_embeddings False", "only true"],
        ),
        (
            {"_class_name": "HunyuanVideoTransformer3DModel", "rope_axes_dim": [16, 56, 48]},
            ["rope_axes_dim [16, 56, 48] must sum to attention_head_dim = 128"],
        ),
        (
            {"_class_name": "FluxTransformer2DModel", "axes_dims_rope": "16,56,56"},
            ["axes_dims_rope must be a list of ints"],
        ),
    ],
)
def test_refusals_name_the_field(data: dict[str, object], needles: list[str]) -> None:
    with pytest.raises(ValueError) as error:
        resolve_config(data)
    for needle in needles:
        assert needle in str(error.value)


def test_wrapped_with_other_ids() -> None:
    wrapped = {
        "config": _load("wan2.1-t2v-1.3b-transformer.json"),
        "ids": "grid",
        "grid": [2, 3, 4],
    }
    got = resolve_config(wrapped)
    assert got.config == PRESETS["wan2.1"].config and got.grid == (2, 3, 4)


def test_cli_refuses_an_unread_class_with_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"_class_name": "SanaTransformer2DModel"}), encoding="utf-8")
    command = ["-m", "pespec", "check", "--family", "multiaxis-rope"]
    command += ["tests.multiaxis.rope.ports:flux_backend", "--config", str(path)]
    result = subprocess.run(
        [sys.executable, *command],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert "_class_name 'SanaTransformer2DModel'" in result.stderr
    assert "FluxTransformer2DModel" in result.stderr and "Traceback" not in result.stderr
