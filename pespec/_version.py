"""Version numbers: the package version and the version of the specification it implements."""

__version__ = "1.0.0.dev0"
SPEC_VERSION = "1.1"
