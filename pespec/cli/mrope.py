"""``pespec check --family multiaxis-rope BACKEND --config PRESET``: the check command.

It takes the options every family shares (``--level``, ``--profile``, ``--json``,
``--markdown``, ``--timeout``, ``--quiet``, ``--verbose``, ``--in-process``) and ``--config``
(a preset of :data:`pespec.multiaxis.rope.presets.PRESETS` or a JSON file); ``--from-file PATH``
[``--positions FILE``] checks a saved output instead (:mod:`pespec.multiaxis.rope.fromfile`). By
default the backend runs in pespec's supervised child process, which builds this family's
suite through the registry.
"""

from __future__ import annotations

import argparse

from pespec.cli.multiaxis import run_family

__all__ = ["run"]


def run(args: argparse.Namespace, prog: str = "pespec check") -> int:
    """The multi-axis rotary check: 0 conformant, 1 not, 2 usage error, 130 interrupted."""
    return run_family(args, prog, "pespec.multiaxis.rope", "multiaxis-rope")
