"""``python -m pespec`` runs the command line."""

from pespec.cli import console_main

console_main()
