"""The conformance table's ``module-bfloat16`` rows of transformers' rotary modules (issue 29:
"the ``.to(bfloat16)`` module cast as users do it"), their cause confirmed by an independent
mpmath computation of what transformers computes.

``LlamaRotaryEmbedding`` keeps ``inv_freq`` as a float buffer; ``module.to(torch.bfloat16)``
(what ``model.to(torch.bfloat16)`` does to every submodule) rounds it to bfloat16, and the
forward's ``.float()`` cannot bring the lost bits back: the model rotates by p·bf16(ω_k)
instead of p·ω_k. ``from_pretrained(dtype=torch.bfloat16)`` leaves the buffer float32 (the
plain ``bfloat16`` rows, CONFORMANT). The test shows the cast module's frequencies are
bf16(ω_k) with ω_k = 10000^(−2k/128) computed in mpmath and rounded by ml_dtypes, that its
output is the rotation by those frequencies within bfloat16 output accuracy and far from the
rotation by ω_k, and that pespec's verdict is NON-CONFORMANT naming that cause.
"""

from __future__ import annotations

import json
from pathlib import Path

import mpmath
import numpy as np
import pytest

from pespec.clients import get_client
from pespec.clients.hf_rotary import MODULE_CAST
from pespec.conformance.host import to_host
from pespec.rope.presets import read_config
from tests.clirun import run_cli

pytest.importorskip("torch")
pytest.importorskip("transformers")
ml_dtypes = pytest.importorskip("ml_dtypes")

D, THETA, P = 128, 10000, 4095  # Llama-2-7B: head_dim 128, θ 10^4, its last position
U32 = 2.0**-24


def _omegas() -> list[mpmath.mpf]:
    mpmath.mp.dps = 50
    return [mpmath.mpf(THETA) ** (-mpmath.mpf(2 * k) / D) for k in range(D // 2)]


def _bf16(value: mpmath.mpf) -> float:
    """bfloat16 of the float32 nearest ``value`` (transformers builds inv_freq in float32)."""
    return float(np.float32(float(value)).astype(ml_dtypes.bfloat16))


def test_the_cast_module_rotates_by_bfloat16_frequencies() -> None:
    backend = get_client("transformers:llama").build(MODULE_CAST, "Llama-2-7B")
    rope = read_config("Llama-2-7B")
    omegas = _omegas()
    rounded = [_bf16(w) for w in omegas]
    # the pair whose angle at P the rounding moves most (cos/sin apart by more than 0.2)
    apart = [
        abs(mpmath.cos(P * r) - mpmath.cos(P * w)) + abs(mpmath.sin(P * r) - mpmath.sin(P * w))
        for r, w in zip(rounded, omegas, strict=True)
    ]
    j = int(np.argmax([float(a) for a in apart]))
    assert apart[j] > 0.2
    x = np.zeros((1, D))
    x[0, j] = 1.0  # halves pairing (Llama): pair j is columns j and j + 64
    y = to_host(backend(x, np.array([P]), rope)).astype(np.float64)[0]
    # bound: the float32 angle P·ω' (≤ 2 ulp of P) and cos/sin rounded to bfloat16 (2^-9
    # relative, 2^-8 to be safe with x·cos + 0·sin summed in bfloat16)
    tol = 2.0**-8 + 2 * P * U32

    def miss(omega: float | mpmath.mpf) -> float:
        return abs(y[j] - float(mpmath.cos(P * omega))) + abs(
            y[j + D // 2] - float(mpmath.sin(P * omega))
        )

    assert miss(rounded[j]) <= 2 * tol
    assert miss(omegas[j]) > 0.1


def test_the_cast_modules_frequencies_are_the_bfloat16_roundings() -> None:
    torch = pytest.importorskip("torch")
    from transformers import AutoConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    from pespec.rope.presets import published_config

    data = json.loads(Path(published_config("llama-2-7b-hf")).read_text(encoding="utf-8"))
    module = LlamaRotaryEmbedding(AutoConfig.for_model(**data)).to(torch.bfloat16)
    library = module.inv_freq.float().numpy().astype(np.float64)
    expected = np.array([_bf16(w) for w in _omegas()])
    assert np.array_equal(library, expected)
    assert np.max(np.abs(library / np.array([float(w) for w in _omegas()]) - 1)) > 2.0**-10


def test_pespec_names_the_cause(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    argv = ["check", "--client", "transformers:llama", "--dtype", MODULE_CAST]
    code, _, _ = run_cli([*argv, "--config", "Llama-2-7B", "--json", str(report)], capsys)
    data = json.loads(report.read_text(encoding="utf-8"))
    assert code == 1 and data["conformant"] is False
    assert "inverse frequencies in bfloat16" in data["diagnosis_sentence"]
