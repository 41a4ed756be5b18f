"""The real library code as backends declaring their convention (the ``[integration]`` extra).

transformers' Whisper ``sinusoids``, M2M100 ``get_embedding``, Marian ``create_weight`` and
XLM ``create_sinusoidal_embeddings``, and diffusers' ``get_timestep_embedding`` /
``Timesteps`` as UNet2DConditionModel, SD3/PixArt and Flux call them, wrapped in
tests/catalog/libraries.py. Each must be CONFORMANT at float32 to the convention it declares
in the default profile; the Flux path that casts timesteps to bfloat16 (as diffusers' Flux
transformer does in a bfloat16 pipeline) must not be, and its diagnosis must say where the
rounding happens. Skipped when torch, transformers or diffusers is absent.
"""

from __future__ import annotations

import pytest

from pespec.conformance import check

pytest.importorskip("torch")

TRANSFORMERS = ["whisper_sinusoids", "m2m100", "marian", "xlm"]
DIFFUSERS = ["diffusers_default", "diffusers_unet", "sd3_timesteps", "flux_timesteps"]


def _backend(name: str) -> object:
    from catalog import libraries

    return getattr(libraries, name)


@pytest.mark.slow
@pytest.mark.parametrize("name", TRANSFORMERS + DIFFUSERS)
def test_real_library_backend_is_conformant_to_its_declared_convention(name: str) -> None:
    pytest.importorskip("transformers" if name in TRANSFORMERS else "diffusers")
    report = check(_backend(name))
    assert report.conformant, report.summary()
    assert report.level == "float32"
    assert report.convention is not None and report.convention["declared"] is True
    calls = report.backend_calls
    assert calls is not None and calls["suite_calls"] > 0
    assert "diagnosis_calls" not in calls  # nothing failed, nothing diagnosed


@pytest.mark.slow
def test_flux_with_bfloat16_timesteps_is_not_conformant_at_float32() -> None:
    pytest.importorskip("diffusers")
    report = check(_backend("flux_timesteps_bfloat16"), stages=("contract", "golden"))
    assert not report.conformant
    assert report.get("golden:timesteps").status == "failed"
    assert "the scaled timestep 1000·t rounded to bfloat16" in str(report.diagnosis_sentence)
