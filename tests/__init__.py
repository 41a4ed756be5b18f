"""pespec's tests, in folders that mirror the package (reference/, properties/, conformance/,
rope/, cli/, teaching/), plus docs/ (README, docs and SPEC) and project/ (install, imports,
module sizes, citation). Each folder is a package, so basenames may repeat; the shared helpers
(paths.py, catalog/, pluginrun.py, ...) stay here, on pytest's pythonpath."""
