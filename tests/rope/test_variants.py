"""Named configurations beyond the presets (issue 36, pespec.rope.variants): published files
with a documented rotary block, and rotary-embedding-torch's pixel frequencies."""

from __future__ import annotations

import mpmath
import pytest

from pespec.rope.presets import PRESETS, load_config
from pespec.rope.variants import DECLARED, VARIANTS, pixel_config


@pytest.mark.parametrize(
    ("name", "schedule", "length", "rule"),
    [
        ("Llama-2-7B-dynamic-4-seq-len-4096", "dynamic", 4096, None),
        ("Llama-2-7B-dynamic-4-seq-len-16384", "dynamic", 16384, None),
        ("Llama-2-7B-dynamic-4-per-call", "dynamic", None, "per-call"),
        ("Qwen2.5-7B-Instruct-yarn-4", "yarn", None, None),
        ("Phi-3.5-MoE-instruct-per-call", "longrope", None, "per-call"),
    ],
)
def test_variants_read_as_their_blocks_say(
    name: str, schedule: str, length: int | None, rule: str | None
) -> None:
    config = load_config(name).config
    assert (config.rope_type, config.seq_len, config.seq_len_rule) == (schedule, length, rule)


def test_the_blocks_values() -> None:
    dynamic = load_config("Llama-2-7B-dynamic-4-seq-len-16384").config
    # L0 = Llama-2's 4096 (the file's max_position_embeddings), s = 4, checked to s·L0
    assert (dynamic.factor, dynamic.max_position_embeddings) == (4.0, 4096)
    assert dynamic.context_length == 16384
    yarn = load_config("Qwen2.5-7B-Instruct-yarn-4").config  # the model card's block
    assert (yarn.factor, yarn.original_max_position_embeddings, yarn.truncate) == (
        4.0,
        32768,
        True,
    )
    assert yarn.theta == PRESETS["Qwen2.5-7B-Instruct"].theta
    moe = load_config("Phi-3.5-MoE-instruct-per-call").config
    assert (moe.short_mscale, moe.long_mscale) == (1.0, 1.1902380714238083)


def test_a_variant_fixes_its_length() -> None:
    with pytest.raises(ValueError, match="--seq-len does not apply"):
        load_config("Llama-2-7B-dynamic-4-per-call", seq_len=8192)


def test_names_do_not_collide_with_presets() -> None:
    assert not (set(VARIANTS) | set(DECLARED)) & set(PRESETS)


def test_pixel_frequencies_against_mpmath() -> None:
    # ω_j = π·(1 + j·(max_freq/2 − 1)/(n − 1)), n = 32, max_freq = 10 (the library's
    # documented π·linspace(1, max_freq/2, dim/2)); each float64 within 2 roundings
    config = pixel_config()
    assert config.omegas is not None and len(config.omegas) == 32
    with mpmath.workprec(200):
        for j, omega in enumerate(config.omegas):
            exact = mpmath.pi * (1 + j * (mpmath.mpf(5) - 1) / 31)
            assert abs(mpmath.mpf(omega) / exact - 1) <= 2 * mpmath.mpf(2) ** -52
