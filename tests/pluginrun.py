"""Run the conformance pytest plugin in a fresh process, as a backend author would.

``run_plugin(backend, *options)`` is ``python -m pytest --pyargs pespec.conformance -q
-p no:cacheprovider --pe-backend BACKEND OPTIONS...``; it returns the completed process
(stdout and stderr captured as text, never raising on a non-zero exit).
"""

from __future__ import annotations

import subprocess
import sys


def run_plugin(
    backend: str, *options: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--pyargs",
        "pespec.conformance",
        "-q",
        "-p",
        "no:cacheprovider",
        "--pe-backend",
        backend,
        *options,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
