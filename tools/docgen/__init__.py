"""Generators of documentation blocks that read files of the source checkout (benchmark results).

They fill ``<!-- GENERATED: docgen.MODULE:FUNCTION -->`` blocks through ``tools/generate_docs.py``
(which has ``tools/`` on its import path) and are not part of the installed package.
"""
