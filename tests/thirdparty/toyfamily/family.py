"""The toy family's registry entry: the object of the entry point ``pespec.families``."""

from __future__ import annotations

from pespec.conformance.family import Family, option

FAMILY = Family(
    name="toy",
    summary="ALiBi head slopes 2^(-8h/H) (a third-party example family)",
    suite="toyfamily.run:ToySuite",
    check="toyfamily.run:check",
    load_backend="toyfamily.run:load_toy_backend",
    check_file="pespec.cli.family_check:run",  # no from-file check: the command refuses it
    command="pespec.cli.family_check:run",  # pespec's check command: --heads is a keyword
    report="toyfamily.report",
    options=(
        option(
            "--heads",
            default=None,
            metavar="H,H,...",
            help="the head counts to check (powers of two; default: the backend's declared "
            "heads, else the profile's)",
        ),
    ),
)
