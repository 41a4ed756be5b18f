"""The ``multiaxis`` family's registry entry: data only (:mod:`pespec.conformance.family`)."""

from __future__ import annotations

from pespec.conformance.family import Family, option

__all__ = ["FAMILY"]

FAMILY = Family(
    name="multiaxis",
    summary="multi-axis sin-cos encodings: 2-D/3-D grids, one 1-D section per axis (SPEC §9)",
    suite="pespec.multiaxis.sinusoidal.run:MultiAxisSuite",
    check="pespec.multiaxis.sinusoidal.run:check",
    load_backend="pespec.multiaxis.sinusoidal.run:load_multiaxis_backend",
    check_file="pespec.multiaxis.sinusoidal.fromfile:check_file",
    command="pespec.cli.multiaxis:run",
    fixtures="pespec.multiaxis.sinusoidal.golden",
    report="pespec.multiaxis.sinusoidal.report",
    options=(
        option(
            "--config",
            default=None,
            help="a multiaxis preset (sd3-medium, pixart-alpha-1024, dit-xl-2-256, "
            "mae-vit-b-16, timm-sincos2d-768, big-vision-vit-s16, cogvideox-2b) or a JSON "
            "file {config, grid, base_size, interpolation_scale}",
        ),
        option(
            "--positions",
            help="with --from-file: a .npy or .csv of k columns, the positions of the "
            "file's rows (default: an .npz's positions, else the preset's whole grid)",
        ),
        option(
            "--leading-rows",
            type=int,
            default=None,
            help="with --from-file: rows before the grid's that are no encoding, skipped "
            "(MAE's pos_embed: 1, the cls token's zeros)",
        ),
    ),
)
