"""The supervisor: a front end's backend runs in a watched child process (SPEC R6.20).

:mod:`~pespec.supervised.supervisor` starts the child (:mod:`~pespec.supervised.worker`),
which builds any family's suite through the registry (:mod:`pespec.families`) and reports
each check; :mod:`~pespec.supervised.report_load` rebuilds the child's report from its JSON.
Front-end machinery (the CLI and the pytest plugin use it), moved out of the engine's folder
in issue 25 (the old ``pespec.conformance`` paths were deleted in issue 38).
"""
