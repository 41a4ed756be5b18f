"""The ``fourier`` family's registry entry: data only (:mod:`pespec.conformance.family`)."""

from __future__ import annotations

from pespec.conformance.family import Family, option

__all__ = ["FAMILY"]

FAMILY = Family(
    name="fourier",
    summary="Fourier features: NeRF frequency encodings, random Fourier features given B, "
    "timm's Fourier grids (SPEC §10)",
    suite="pespec.fourier.run:FourierSuite",
    check="pespec.fourier.run:check",
    load_backend="pespec.fourier.run:load_fourier_backend",
    check_file="pespec.fourier.fromfile:check_file",
    command="pespec.cli.fourier:run",
    fixtures="pespec.fourier.golden",
    report="pespec.fourier.report",
    options=(
        option(
            "--config",
            default=None,
            help="a fourier preset (nerf, nerf-paper, nerfstudio-nerf, rff-tancik, "
            "diffusers-gaussian-fourier, timm-fourier, ...) or a JSON file of "
            "FourierConvention.to_dict() or {preset, ...changes}",
        ),
        option(
            "--convention",
            metavar="NAME|FILE.json",
            default=None,
            help="the same as --config for --family fourier",
        ),
        option(
            "--stages",
            default=None,
            help="comma-separated subset of contract,golden,reference,property (default: all)",
        ),
    ),
)
