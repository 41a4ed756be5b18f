"""The SPEC as a static site (issue 40): :mod:`sitegen.sources` lays out the Markdown the site
is built from (the SPEC's chapters, docs/, the table page), :mod:`sitegen.build` runs MkDocs
(Material theme) on it with warnings as errors::

    python tools/sitegen/build.py OUT_DIR
"""
