"""Every generated block in SPEC.md, README.md and docs/*.md is up to date (CONTRIBUTING)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from paths import ROOT


@pytest.mark.slow
def test_generated_docs_are_up_to_date() -> None:
    # The same command CI documents; exit 1 names the stale files.
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "generate_docs.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_spec_has_every_part_in_order() -> None:
    spec = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    headings = [line for line in spec.splitlines() if line.startswith("## ")]
    numbers = [int(line.split()[1].rstrip(".")) for line in headings]
    parts = sorted((ROOT / "spec").glob("[0-9][0-9]-*.md"))[1:]  # 00 is the front matter
    assert numbers == list(range(1, len(parts) + 1)), headings
    assert len(parts) >= 12, parts  # 1-11 the sinusoidal encoding, 12 rotary (SPEC 1.1)
    assert "<!-- GENERATED: pespec.tables:quoted_table -->" in spec
