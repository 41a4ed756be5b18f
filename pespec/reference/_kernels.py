"""Facade: the compiled kernels live in :mod:`pespec.numerics.kernels` (issue 25).

This module *is* that module (``sys.modules`` alias), so old imports, their private names and
``set_enabled`` act on the one module the exact reference uses.
"""

from __future__ import annotations

import sys

from pespec.numerics import kernels

sys.modules[__name__] = kernels
