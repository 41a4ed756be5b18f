"""Deprecated alias of pespec.sincos.diagnosis (issue 25); removed in the next release.

Each submodule's old path (``pespec.conformance.diagnosis.fit``, ...) is the new module too:
the package alias points at the new folder, so its submodules are registered here under
their old names before the swap (and each old file is an alias as well).
"""

import importlib
import sys
from typing import TYPE_CHECKING

from pespec.sincos import diagnosis as _m

if TYPE_CHECKING:  # the names, for type checkers; at run time the module is the new one
    from pespec.sincos.diagnosis import *  # noqa: F403

SUBMODULES = ("fit", "pipeline", "precision", "probes", "result", "rounding", "slips", "verify")
"""The package's modules, each aliased under its old dotted name."""

for _name in SUBMODULES:
    sys.modules[f"{__name__}.{_name}"] = importlib.import_module(f"{_m.__name__}.{_name}")

sys.modules[__name__] = _m
