"""The registry of families: each family named once, with what the front ends need.

A family is a kind of position encoding pespec checks: ``sinusoidal`` (SPEC §1–§7),
``rope`` (rotary, §8), ``multiaxis`` (sin-cos over 2-D/3-D grids, §9) and
``multiaxis-rope`` (rotary sections over t/h/w, §9.7) and ``fourier`` (Fourier features,
§10). Its entry names,
as ``module:attribute`` strings imported on first use
(so ``pespec --help`` imports no family), the suite class, the check function, the backend
loader, the from-file check and the command-line runner; and, as data, the ``pespec check``
options only that family takes. ``pespec check --family NAME`` and the reports' ``family``
field use these names.

A third-party package adds a family with an entry point in the group ``pespec.families``
whose object is a :class:`Family` (read only when ``--family`` names a family not built in;
such a family takes the options every family shares). Usage::

    [project.entry-points."pespec.families"]
    mine = "my_package.pespec_family:FAMILY"
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from pespec._suggest import did_you_mean

__all__ = [
    "DEFAULT_FAMILY",
    "ENTRY_POINT_GROUP",
    "FAMILIES",
    "Family",
    "Option",
    "families",
    "get_family",
    "seq_len_argument",
]

DEFAULT_FAMILY = "sinusoidal"
ENTRY_POINT_GROUP = "pespec.families"


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


@dataclass(frozen=True)
class Option:
    """One command-line option of a family: argparse's flags and keyword arguments."""

    flags: tuple[str, ...]
    kwargs: tuple[tuple[str, Any], ...] = ()

    @property
    def help(self) -> str:
        """The option's help text (empty when it has none)."""
        return str(dict(self.kwargs).get("help", ""))

    @property
    def dest(self) -> str:
        """The attribute argparse stores it under (``--d-model`` -> ``d_model``)."""
        return self.flags[0].lstrip("-").replace("-", "_")

    def add_to(self, parser: Any) -> None:
        """Add this option to an argparse parser or argument group."""
        parser.add_argument(*self.flags, **dict(self.kwargs))


def option(*flags: str, **kwargs: Any) -> Option:
    """An :class:`Option` (flags and argparse keyword arguments)."""
    return Option(tuple(flags), tuple(kwargs.items()))


@dataclass(frozen=True)
class Family:
    """What the front ends need of one family; every callable is a ``module:attr`` string."""

    name: str
    summary: str
    suite: str
    check: str
    load_backend: str
    check_file: str
    command: str
    """``run(args, prog) -> int``: the check command on parsed arguments (exit code)."""
    options: tuple[Option, ...] = ()
    fixtures: str | None = None
    """The module whose import registers the family's golden-fixture format handler
    (:mod:`pespec.conformance.fixtures`); None: the family ships no fixtures."""
    exports: tuple[tuple[str, str], ...] = ()
    """(name, ``module:attr``) of the names the engine's package ``pespec.conformance`` has
    always exported for this family (only the default family's are read there): its lazy
    facade resolves them here, so the engine's package names no family."""
    report: str | None = None
    """The module of the family's report hooks: ``rebuilt(report, data)`` (a report read back
    from its JSON ``data``) and ``refresh(report)`` (its data changed); None: the family's
    reports need neither (:mod:`pespec.supervised.report_load`)."""

    def load(self, role: str) -> Any:
        """The object of ``role`` (``suite``, ``check``, ``load_backend``, ``check_file``,
        ``command``), imported now."""
        if role not in ("suite", "check", "load_backend", "check_file", "command"):
            raise ValueError(
                f"role must be suite, check, load_backend, check_file or command; got {role!r}"
            )
        module, _, attr = str(getattr(self, role)).partition(":")
        return getattr(importlib.import_module(module), attr)

    def export(self, name: str) -> Any:
        """The object this family exports as ``pespec.conformance.<name>`` (see
        :attr:`exports`), imported now; AttributeError if it exports no such name."""
        target = dict(self.exports).get(name)
        if target is None:
            raise AttributeError(f"module 'pespec.conformance' has no attribute {name!r}")
        module, _, attr = target.partition(":")
        return getattr(importlib.import_module(module), attr)

    def report_hook(self, hook: str) -> Any:
        """The report hook ``hook`` (``rebuilt`` or ``refresh``) of :attr:`report`, imported
        now, or None when the family has no report module."""
        if hook not in ("rebuilt", "refresh"):
            raise ValueError(f"hook must be rebuilt or refresh; got {hook!r}")
        if self.report is None:
            return None
        return getattr(importlib.import_module(self.report), hook)

    @property
    def option_dests(self) -> frozenset[str]:
        """The attribute names of this family's own options."""
        return frozenset(o.dest for o in self.options)


SINUSOIDAL = Family(
    name="sinusoidal",
    summary="sinusoidal positional encoding (SPEC §1-§7)",
    suite="pespec.sincos.run:Suite",
    check="pespec.sincos.run:check",
    load_backend="pespec.sincos.loading:load_backend",
    check_file="pespec.sincos.checkfile:check_file",
    command="pespec.cli.check:run_sinusoidal",
    fixtures="pespec.sincos.golden_format",
    report="pespec.sincos.report",
    exports=(
        ("STAGES", "pespec.sincos.run:STAGES"),
        ("Suite", "pespec.sincos.run:Suite"),
        ("check", "pespec.sincos.run:check"),
        ("Capabilities", "pespec.sincos.capabilities:Capabilities"),
        ("load_backend", "pespec.sincos.loading:load_backend"),
        ("module_backend", "pespec.sincos.adapters:module_backend"),
        ("table_backend", "pespec.sincos.adapters:table_backend"),
        ("compare_saved_output", "pespec.sincos.fromfile:compare_saved_output"),
        ("reproduce", "pespec.sincos.reproduce:reproduce"),
    ),
    options=(
        option(
            "--convention",
            metavar="NAME|FILE.json",
            default=None,
            help="judge against this convention: a preset name (canonical, whisper, marian, "
            "fairseq, flux, ...) or a JSON file of Convention.to_dict() (default: the "
            "backend's declared convention, else canonical)",
        ),
        option(
            "--stages",
            default=None,
            help="comma-separated subset of contract,golden,property,large (default: all)",
        ),
        option(
            "--examples", type=int, default=None, help="Hypothesis examples per property (override)"
        ),
        option("--no-shrink", action="store_true", help="do not shrink failing property examples"),
        option(
            "--no-fail-fast",
            action="store_true",
            help="run every stage after a failed output contract (shape, dtype, finite; by "
            "default the property and large stages are then left out, SPEC R6.14)",
        ),
        option(
            "--d-model",
            type=int,
            help="with --from-file: d_model of the saved output (default: its column count)",
        ),
        option(
            "--positions",
            help="with --from-file: START:STOP, a,b,c or a .npy/.csv file (default: 0..n-1); "
            "descending:P, two-sided:P or FIRST..LAST: a relative table's rows (SPEC §10.10)",
        ),
        option(
            "--base",
            type=float,
            default=None,
            help="with --from-file: frequency base (> 1; default 10000)",
        ),
    ),
)

ROPE = Family(
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

MULTIAXIS = Family(
    name="multiaxis",
    summary="multi-axis sin-cos encodings: 2-D/3-D grids, one 1-D section per axis (SPEC §9)",
    suite="pespec.multiaxis.run:MultiAxisSuite",
    check="pespec.multiaxis.run:check",
    load_backend="pespec.multiaxis.run:load_multiaxis_backend",
    check_file="pespec.multiaxis.fromfile:check_file",
    command="pespec.cli.multiaxis:run",
    fixtures="pespec.multiaxis.golden",
    report="pespec.multiaxis.report",
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

MULTIAXIS_ROPE = Family(
    name="multiaxis-rope",
    summary="multi-axis rotary: 1-D rotary sections over t/h/w (Qwen-VL M-RoPE, Flux; SPEC §9.7)",
    suite="pespec.mrope.run:MRopeSuite",
    check="pespec.mrope.run:check",
    load_backend="pespec.mrope.run:load_mrope_backend",
    check_file="pespec.mrope.fromfile:check_file",
    command="pespec.cli.mrope:run",
    fixtures="pespec.mrope.golden",
    report="pespec.mrope.report",
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

FOURIER = Family(
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

FAMILIES: dict[str, Family] = {
    family.name: family for family in (SINUSOIDAL, ROPE, MULTIAXIS, MULTIAXIS_ROPE, FOURIER)
}
"""The built-in families, by name (the default first)."""


def families(*, entry_points: bool = True) -> dict[str, Family]:
    """Every family by name: the built-in ones, then (``entry_points``) those of the group
    ``pespec.families`` (one that does not load, is not a :class:`Family` or reuses a
    built-in name is left out)."""
    found = dict(FAMILIES)
    if not entry_points:
        return found
    import importlib.metadata

    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            family = entry.load()
        except Exception:  # a broken third-party plug-in must not stop pespec
            continue
        if isinstance(family, Family) and family.name not in found:
            found[family.name] = family
    return found


def get_family(name: str | None) -> Family:
    """The family called ``name`` (None: the default, sinusoidal); ValueError names the known
    ones and the closest."""
    if name is None:
        return FAMILIES[DEFAULT_FAMILY]
    if name in FAMILIES:
        return FAMILIES[name]
    known = families()
    if name in known:
        return known[name]
    raise ValueError(
        f"--family must be one of {', '.join(known)}; got {name!r}{did_you_mean(name, known)}"
    )
