"""Shared test configuration.

Activates the derandomized ``ci`` Hypothesis profile unless PESPEC_PROFILE names another.
"""

from pespec.properties.profiles import load_profile

load_profile()
