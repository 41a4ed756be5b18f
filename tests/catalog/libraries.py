"""The real library code as sinusoidal backends: pespec.clients.sinusoidal_libraries (issue 29
moved them into the package so that the conformance table and ``--client`` reach them); the
names stay here for the tests that use them."""

from pespec.clients.sinusoidal_libraries import (
    diffusers_default,
    diffusers_unet,
    flux_timesteps,
    flux_timesteps_bfloat16,
    m2m100,
    marian,
    sd3_timesteps,
    whisper_sinusoids,
    xlm,
)

__all__ = [
    "diffusers_default",
    "diffusers_unet",
    "flux_timesteps",
    "flux_timesteps_bfloat16",
    "m2m100",
    "marian",
    "sd3_timesteps",
    "whisper_sinusoids",
    "xlm",
]
