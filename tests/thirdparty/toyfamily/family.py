"""The toy family's registry entry: the object of the entry point ``pespec.families``."""

from __future__ import annotations

from pespec.conformance.family import Family, option

FAMILY = Family(
    name="toy",
    summary="ALiBi head slopes 2^(-8h/H) (a third-party example family)",
    run="toyfamily.run:ToyRun",  # its suite, check and load; pespec's check command
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
