"""The ``sinusoidal`` family's registry entry: data only (:mod:`pespec.conformance.family`)."""

from __future__ import annotations

from pespec.conformance.family import Family, option

__all__ = ["FAMILY"]

FAMILY = Family(
    name="sinusoidal",
    summary="sinusoidal positional encoding (SPEC §1-§7)",
    suite="pespec.sinusoidal.run:Suite",
    check="pespec.sinusoidal.run:check",
    load_backend="pespec.sinusoidal.loading:load_backend",
    check_file="pespec.sinusoidal.checkfile:check_file",
    command="pespec.cli.check:run_sinusoidal",
    fixtures="pespec.sinusoidal.golden_format",
    report="pespec.sinusoidal.report",
    exports=(
        ("STAGES", "pespec.sinusoidal.run:STAGES"),
        ("Suite", "pespec.sinusoidal.run:Suite"),
        ("check", "pespec.sinusoidal.run:check"),
        ("Capabilities", "pespec.sinusoidal.capabilities:Capabilities"),
        ("load_backend", "pespec.sinusoidal.loading:load_backend"),
        ("module_backend", "pespec.sinusoidal.adapters:module_backend"),
        ("table_backend", "pespec.sinusoidal.adapters:table_backend"),
        ("compare_saved_output", "pespec.sinusoidal.fromfile:compare_saved_output"),
        ("reproduce", "pespec.sinusoidal.reproduce:reproduce"),
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
