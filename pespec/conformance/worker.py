"""Deprecated alias of pespec.supervised.worker (issue 25); removed in the next release."""

import sys
from typing import TYPE_CHECKING

from pespec.supervised import worker as _m

if TYPE_CHECKING:  # the names, for type checkers; at run time the module is the new one
    from pespec.supervised.worker import *  # noqa: F403

sys.modules[__name__] = _m
