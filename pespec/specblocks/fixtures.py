"""Generated block of SPEC Annex F: the shipped golden fixture sets (read from the files)."""

from __future__ import annotations

from pespec.conformance.fixtures import MANIFEST, fixture_directory
from pespec.sinusoidal.golden import fixture_files, parse_fixture

__all__ = ["fixture_catalog_table"]


def fixture_catalog_table() -> str:
    """The shipped sets: configuration, size and bytes of each, and the total (SPEC §7)."""
    lines = [
        "| file | d_model | base | convention | positions | columns | values | bytes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    total_values = total_bytes = 0
    directory = fixture_directory()
    for path in fixture_files(directory):
        data = path.read_bytes()
        fixture = parse_fixture(path.name, data)
        count = fixture.values.size
        total_values += count
        total_bytes += len(data)
        lines.append(
            f"| `{path.name}` | {fixture.d_model} | {fixture.base:g} | "
            f"{fixture.convention.name} | {fixture.positions.size} | {fixture.columns.size} | "
            f"{count} | {len(data)} |"
        )
    total_bytes += (directory / MANIFEST).stat().st_size
    lines.append(f"| total (with MANIFEST) | | | | | | {total_values} | {total_bytes} |")
    return "\n".join(lines) + "\n"
