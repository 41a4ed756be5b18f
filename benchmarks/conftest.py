"""Benchmark collection: pytest's default file pattern is ``test_*.py``; ours are ``bench_*.py``.

python -m pytest benchmarks --benchmark-only
"""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Module | None:
    """Collect ``benchmarks/bench_*.py`` (files named on the command line are collected anyway)."""
    if file_path.suffix != ".py" or not file_path.name.startswith("bench_"):
        return None
    if parent.session.isinitpath(file_path):
        return None  # pytest's own collector takes paths given as arguments
    module: pytest.Module = pytest.Module.from_parent(parent, path=file_path)
    return module
