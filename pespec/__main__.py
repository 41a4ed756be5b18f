"""``python -m pespec`` runs the command line."""

import sys

from pespec.cli import main

sys.exit(main())
