"""Deprecated alias of pespec.sincos.run (issue 25); removed in the next release."""

import sys
from typing import TYPE_CHECKING

from pespec.sincos import run as _m

if TYPE_CHECKING:  # the names, for type checkers; at run time the module is the new one
    from pespec.sincos.run import *  # noqa: F403

sys.modules[__name__] = _m
