"""The ``multiaxis-rope`` family's registry entry: data only (:mod:`pespec.conformance.family`)."""

from __future__ import annotations

from pespec.conformance.family import Family, option

__all__ = ["FAMILY"]

FAMILY = Family(
    name="multiaxis-rope",
    summary="multi-axis rotary: 1-D rotary sections over t/h/w (Qwen-VL M-RoPE, Flux; SPEC §9.7)",
    suite="pespec.multiaxis.rope.run:MRopeSuite",
    check="pespec.multiaxis.rope.run:check",
    load_backend="pespec.multiaxis.rope.run:load_mrope_backend",
    check_file="pespec.multiaxis.rope.fromfile:check_file",
    command="pespec.cli.mrope:run",
    fixtures="pespec.multiaxis.rope.golden",
    report="pespec.multiaxis.rope.report",
    options=(
        option(
            "--config",
            default=None,
            help="a multiaxis-rope preset (qwen2.5-vl-7b, qwen3-vl-4b, flux.1, wan2.1, "
            "hunyuanvideo, cogvideox-5b, eva02-b), a Qwen-VL "
            "config.json or a JSON file {config, ids, grid, text_before, text_after}",
        ),
        option(
            "--positions",
            help="with --from-file: a .npy or .csv of k columns, the positions of the "
            "file's rows (default: an .npz's positions, else the preset's ids)",
        ),
    ),
)
