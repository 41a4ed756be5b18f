"""The ``rope`` family's registry entry (:mod:`pespec.conformance.family`) and the type of
its ``--seq-len`` option."""

from __future__ import annotations

from pespec.conformance.family import Family, option

__all__ = ["FAMILY", "seq_len_argument"]


def seq_len_argument(text: str) -> int | str:
    """``--seq-len``: an int ℓ or ``per-call`` (SPEC Annex G.1); an argparse usage error
    naming both otherwise."""
    import argparse

    if text == "per-call":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an int or per-call; got {text!r}") from None


FAMILY = Family(
    name="rope",
    summary="rotary position embeddings (SPEC §8)",
    suite="pespec.rope.suite:RopeSuite",
    check="pespec.rope.suite:check",
    load_backend="pespec.rope.backends:load_rope_backend",
    check_file="pespec.rope.fromfile:check_file",
    command="pespec.cli.rope:run_check",
    fixtures="pespec.rope.golden",
    report="pespec.rope.report",
    options=(
        option(
            "--config",
            default=None,
            help="preset name (pespec rope presets lists them), or a JSON file: a "
            "RopeConfig dict or a transformers config.json",
        ),
        option("--layer-type", default=None, help="layer type of a config.json"),
        option(
            "--seq-len",
            type=seq_len_argument,
            default=None,
            help="ℓ for dynamic/longrope (an int, or per-call)",
        ),
        option(
            "--output-layout",
            choices=("halves", "interleaved"),
            default=None,
            help="where each pair's two outputs are written, when not as the pairing implies "
            "(sets the config's output_layout; SPEC §8.2)",
        ),
        option(
            "--mode",
            default=None,
            metavar="elements|scores",
            help="what is judged: elements (default: every rotated element and its layout) or "
            "scores (q·k scores of rotated pairs only; a map applied alike to q and k, such as "
            "an output permutation, passes; SPEC R8.14)",
        ),
        option(
            "--max-position",
            type=int,
            default=None,
            metavar="N",
            help="claim positions 0..N (default: the backend's max_position, else the "
            "config's context, integer positions 0..N-1)",
        ),
        option(
            "--fractional-positions",
            action="store_true",
            default=None,
            help="claim fractional positions too (sent as float64)",
        ),
    ),
)
