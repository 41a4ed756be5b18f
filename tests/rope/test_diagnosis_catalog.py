"""The rotary diagnosis catalog (issue 27): slipped NumPy backends, each named with its value.

Every backend below computes the rotation of a configuration that differs from the declared
one in one parameter or one formula (the slip); the expected parameter and value are the
slip's own definition (the changed field, or the number the slip puts in the formula), never
read from the diagnosis. The diagnosis must name at least 18 of them with the measured value
(SPEC Annex D.9), and say nothing for correct backends.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from pespec.rope import PRESETS, RopeConfig
from pespec.rope.diagnosis import diagnose
from pespec.rope.diagnosis.examples import numpy_backend, rotate_pairs, table_backend
from pespec.rope.diagnosis.formats import round_to
from pespec.rope.schedules import frequencies

Backend = Callable[..., Any]
LLAMA2 = PRESETS["Llama-2-7B"]
LLAMA3 = PRESETS["Llama-3.1-8B"]
QWEN = PRESETS["Qwen2.5-7B-Instruct"]
GEMMA = PRESETS["Gemma-3-4B global layers"]
GPT_OSS = PRESETS["gpt-oss-20b"]
DEEPSEEK = PRESETS["DeepSeek-V3"]
GPTJ = PRESETS["GPT-J-6B"]
NTK = RopeConfig(head_dim=128, theta=10000.0, rope_type="ntk", factor=4.0)
DYNAMIC = RopeConfig(
    head_dim=128,
    theta=10000.0,
    rope_type="dynamic",
    factor=4.0,
    max_position_embeddings=4096,
    seq_len=4096,
)


def slipped(config: RopeConfig, **changes: Any) -> Backend:
    """A float32 stack computing ``config`` with ``changes`` (the oracle's ω', A)."""
    omegas, attention = frequencies(dataclasses.replace(config, **changes))
    return table_backend(omegas, attention)


def with_omegas(config: RopeConfig, change: Callable[[Any], Any]) -> Backend:
    """A float32 stack whose ω'_j are the configuration's, changed by ``change``."""
    omegas, attention = frequencies(config)
    return table_backend(change(omegas.copy()), attention)


def phase_offset(config: RopeConfig, offset: float) -> Backend:
    """A float64 stack computing φ = p·ω_j + ``offset`` (position 0 rotated too)."""
    omegas, attention = frequencies(config)

    def backend(x: Any, positions: Any, rope: RopeConfig) -> Any:
        phase = positions.astype(np.float64)[:, None] * omegas[None, :] + offset
        return rotate_pairs(
            x, np.cos(phase) * attention, np.sin(phase) * attention, rope.d_r, rope.pairing
        )

    return backend


def _halved(w: Any) -> Any:
    w[32:] /= 2  # pairs 32–63 twice too slow
    return w


def _plus(w: Any) -> Any:
    return w + 1e-5  # every pair's phase ahead by 1e-5·p


def _over_head_dim(w: Any) -> Any:
    wide, _ = frequencies(dataclasses.replace(GPTJ, rotary_dim=256))
    return wide[: len(w)]  # ω_j = θ^(−2j/256), j < 32


def _bf16(w: Any) -> Any:
    return round_to(w, "bfloat16")


# (id, declared configuration, backend, words the sentence must hold, the value after them
# (None: the words say it all), relative tolerance of the value as printed)
CASES: list[tuple[str, RopeConfig, Backend, str, float | None, float]] = [
    ("theta-up", LLAMA2, slipped(LLAMA2, theta=1e6), "θ measured", 1e6, 1e-5),
    ("theta-down", QWEN, slipped(QWEN, theta=1e4), "θ measured", 1e4, 1e-5),
    ("theta-llama3", LLAMA3, slipped(LLAMA3, theta=1e4), "θ measured", 1e4, 1e-4),
    ("theta-linear", GEMMA, slipped(GEMMA, theta=1e4), "θ measured", 1e4, 1e-4),
    ("theta-yarn", GPT_OSS, slipped(GPT_OSS, theta=1e4), "θ measured", 1e4, 1e-4),
    ("s-linear", GEMMA, slipped(GEMMA, factor=4.0), "s measured", 4.0, 1e-4),
    ("s-llama3", LLAMA3, slipped(LLAMA3, factor=4.0), "s measured", 4.0, 1e-3),
    ("s-ntk", NTK, slipped(NTK, factor=2.0), "s measured", 2.0, 1e-4),
    (
        "l0-llama3",
        LLAMA3,
        slipped(LLAMA3, original_max_position_embeddings=4096),
        "L0 measured",
        4096,
        1e-3,
    ),
    (
        "low-factor",
        LLAMA3,
        slipped(LLAMA3, low_freq_factor=2.0),
        "low_freq_factor measured",
        2.0,
        1e-3,
    ),
    (
        "high-factor",
        LLAMA3,
        slipped(LLAMA3, high_freq_factor=8.0),
        "high_freq_factor measured",
        8.0,
        1e-3,
    ),
    ("beta-fast", GPT_OSS, slipped(GPT_OSS, beta_fast=64.0), "beta_fast measured", 64.0, 1e-3),
    ("beta-slow", GPT_OSS, slipped(GPT_OSS, beta_slow=2.0), "beta_slow measured", 2.0, 1e-3),
    ("mscale", DEEPSEEK, slipped(DEEPSEEK, mscale=0.707), "mscale measured", 0.707, 1e-3),
    # dynamic declared, static linear scaling by s^(d/(d−2)) = 4^(128/126) computed
    (
        "dynamic-as-linear",
        DYNAMIC,
        slipped(
            DYNAMIC,
            rope_type="linear",
            factor=4.0 ** (128 / 126),
            max_position_embeddings=None,
            seq_len=None,
        ),
        "every frequency divided by",
        4.0 ** (128 / 126),
        5e-3,
    ),
    (
        "undeclared-linear",
        LLAMA2,
        slipped(LLAMA2, rope_type="linear", factor=2.0),
        "every frequency divided by",
        2.0,
        5e-3,
    ),
    # ω_j = θ^(−2j/96) with d_r = 128
    ("denominator", LLAMA2, slipped(LLAMA2, theta=1e4 ** (128 / 96)), "computed over d =", 96, 0),
    ("head-dim-omegas", GPTJ, with_omegas(GPTJ, _over_head_dim), "head_dim = 256", None, 0),
    (
        "bf16-inv-freq",
        LLAMA2,
        with_omegas(LLAMA2, _bf16),
        "inverse frequencies in bfloat16",
        None,
        0,
    ),
    (
        "pairing",
        LLAMA2,
        table_backend(*frequencies(LLAMA2), pairing="interleaved"),
        "pairs formed as interleaved",
        None,
        0,
    ),
    ("truncate", DEEPSEEK, slipped(DEEPSEEK, truncate=False), "truncate taken as False", None, 0),
    (
        "l-for-l0",
        LLAMA3,
        slipped(LLAMA3, original_max_position_embeddings=131072),
        "L = 131072 used",
        None,
        0,
    ),
    # slips it was not tuned to
    (
        "half-pairs-slow",
        LLAMA2,
        with_omegas(LLAMA2, _halved),
        "pairs 32–63 are 2× too slow",
        None,
        0,
    ),
    ("phase-growing", LLAMA2, with_omegas(LLAMA2, _plus), "grows by an extra", 1e-5, 1e-3),
    ("phase-offset", LLAMA2, phase_offset(LLAMA2, 0.01), "constant phase offset of", 0.01, 1e-3),
]


def _named(sentence: str, words: str, value: float | None, tol: float) -> bool:
    if words not in sentence:
        return False
    if value is None:
        return True
    found = re.search(re.escape(words) + r"\s*([-+0-9.]+(?:e-?\d+)?)", sentence)
    return found is not None and math.isclose(float(found.group(1)), value, rel_tol=tol or 1e-12)


@pytest.fixture(scope="module")
def results() -> dict[str, str]:
    return {case[0]: diagnose(case[2], case[1]).sentence for case in CASES}


def test_the_catalog_names_at_least_18(results: dict[str, str]) -> None:
    named = [c[0] for c in CASES if _named(results[c[0]], c[3], c[4], c[5])]
    missed = {c[0]: results[c[0]] for c in CASES if c[0] not in named}
    assert len(CASES) >= 20
    assert len(named) >= 18, missed


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_no_slip_is_called_correct(case: Any, results: dict[str, str]) -> None:
    assert "no bug found" not in results[case[0]]


@pytest.mark.parametrize(
    "config", [LLAMA2, LLAMA3, GEMMA, GPT_OSS, DEEPSEEK, NTK, DYNAMIC], ids=str
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_correct_backends_get_no_cause(config: RopeConfig, dtype: type) -> None:
    result = diagnose(numpy_backend(dtype), config)
    assert result.explained and result.causes == (), result.sentence
