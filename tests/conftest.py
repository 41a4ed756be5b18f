"""Shared test configuration: the derandomized ``ci`` Hypothesis profile unless PESPEC_PROFILE says otherwise."""

from pespec.properties.profiles import load_profile

load_profile()
