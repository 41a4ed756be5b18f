"""llama.cpp's vision rope (``ggml_rope_multi`` mode 24, Qwen2.5-VL's vision encoder): the
arguments llama.cpp derives, the position blocks, the catalog entries, and the op itself
through ggml-python where it is installed (CI pass 2 installs it)."""

from __future__ import annotations

import numpy as np
import pytest

from pespec.clients.catalog import get_client
from pespec.clients.ggml_vision import MODE_VISION, vision_args, vision_blocks
from pespec.clients.table import planned_rows, reproduction
from pespec.multiaxis.rope.presets import PRESETS
from pespec.multiaxis.rope.run import check

NAMES = ("ggml:ggml_rope_multi-vision", "ggml:ggml_rope_multi-vision-heads")


def test_arguments_are_llama_cpp_vision_graph_ones() -> None:
    # tools/mtmd/models/qwen2vl.cpp: sections d_head/4 × 4, n_dims d_head/2, mode 24,
    # n_ctx_orig 32768, base 10000; d_head = 1280 / 16 (Qwen2.5-VL-7B vision_config).
    args = vision_args("qwen2.5-vl-vision")
    assert (args.head_dim, args.n_dims, args.sections) == (80, 40, (20, 20, 20, 20))
    assert args.call() == (40, (20, 20, 20, 20), MODE_VISION, 32768, 10000.0)
    assert MODE_VISION == 24 and "mode=24 n_dims=40" in args.describe()
    with pytest.raises(ValueError, match=r"config must be one of qwen2\.5-vl-vision"):
        vision_args("qwen2.5-vl-7b")


def test_position_blocks_are_h_w_h_w() -> None:
    # clip.cpp: positions[ptr] = y, [n + ptr] = x, [2n + ptr] = y, [3n + ptr] = x
    blocks = vision_blocks(np.array([[0, 1], [2, 3], [4, 5]]))
    assert blocks.dtype == np.int32
    assert blocks.ravel().tolist() == [0, 2, 4, 1, 3, 5, 0, 2, 4, 1, 3, 5]


def test_catalog_entries() -> None:
    for name in NAMES:
        client = get_client(name)
        assert client.family == "multiaxis-rope" and client.library == "ggml-python"
        assert client.adapter == "pespec.clients.ggml_vision:build"
        assert client.configs == ("qwen2.5-vl-vision",) and set(PRESETS) >= set(client.configs)
        assert client.dtypes == ("float32", "float16")
        assert client.options["engine_env"] == "ggml"
    assert get_client(NAMES[0]).options["shape"] == "tokens"
    assert get_client(NAMES[1]).options["shape"] == "heads"
    rows = planned_rows([get_client(n) for n in NAMES])
    assert [(r["client"], r["dtype"]) for r in rows] == [
        (n, d) for n in NAMES for d in ("float32", "float16")
    ]
    assert all(reproduction(r).startswith("tools/engine-env ggml DIR") for r in rows)


@pytest.mark.parametrize("shape", ["tokens", "heads"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_ggml_vision_rope_is_conformant(shape: str, dtype: str) -> None:
    pytest.importorskip("ggml")
    client = get_client(NAMES[0] if shape == "tokens" else NAMES[1])
    report = check(client.build(dtype, "qwen2.5-vl-vision"), config="qwen2.5-vl-vision")
    assert report.conformant, [c.message for c in report.checks if c.status != "passed"]
    assert report.level == f"float32/{dtype}/{dtype}"


def test_ggml_vision_rope_turns_pair_k_by_h_and_pair_20_plus_k_by_w() -> None:
    # ops.cpp: pair k < 20 turns by p_0 = h, pair 20 + k by p_1 = w, each at 10000^(−2k/40).
    # Unit vectors e_k give the angle directly. ggml's angle p·scale^k is a running float32
    # product: scale = powf(10000, −2/40) within 1 ulp (2u), compounded k ≤ 19 times, plus k
    # roundings: ≤ 3·19u < 64u relative; atan2 of the float32 cos, sin: ≤ 2^-22 absolute.
    pytest.importorskip("ggml")
    from pespec.clients.ggml_vision import ggml_rope_vision

    args = vision_args("qwen2.5-vl-vision")
    x = np.zeros((40, 80))
    x[np.arange(40), np.arange(40)] = 1.0
    h, w = 13, 6
    y = ggml_rope_vision(x, np.tile([h, w], (40, 1)), args, "float32").astype(np.float64)
    got = np.arctan2(y[np.arange(40), 40 + np.arange(40)], y[np.arange(40), np.arange(40)])
    k = np.arange(40) % 20
    want = np.where(np.arange(40) < 20, h, w) * 10000.0 ** (-2.0 * k / 40)
    gap = np.abs(np.angle(np.exp(1j * (got - want))))  # the difference wrapped to [0, π]
    assert np.all(gap <= 64 * 2.0**-24 * want + 2.0**-22)
    # the check can fail: pairs 0-19 read as turned by w (h and w exchanged) are far off
    swapped = w * 10000.0 ** (-2.0 * k[:20] / 40)
    assert np.max(np.abs(np.angle(np.exp(1j * (got[:20] - swapped))))) > 1.0


def test_compare_view_shows_the_vision_arguments() -> None:
    from pespec.clients.compare_engines import render_compare

    row = {"client": NAMES[1], "config": "qwen2.5-vl-vision", "dtype": "float32"}
    text = render_compare(
        {"rows": [{**row, "library": "ggml-python", "verdict": "X"}]}, row["config"]
    )
    assert "mode=24 n_dims=40 sections=[20, 20, 20, 20] base=10000 n_ctx_orig=32768" in text
