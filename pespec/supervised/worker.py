"""The check process of the supervisor (SPEC §6.6): :func:`main`, in a fresh interpreter.

:mod:`pespec.supervised.supervisor` starts this module in a child process, writes one JSON
request line on its stdin, and reads its events: one JSON object per line on the file
descriptor ``events_fd`` it passes down (never stdout, which belongs to the backend, and never
pickle). The child loads the backend, runs the suite and streams what happened:

* ``loaded``: the plan (id, stage, title, section of each check) and the report header
  (``Report.to_dict()`` with no checks), or ``load_error`` (kind and message: a usage error,
  exit 2, never a crash);
* ``start`` (check id) and ``result`` (``CheckResult.to_dict()`` and the level/dtype state);
* ``report``: the final ``Report.to_dict()`` (``interrupted`` true after Ctrl-C), then
  ``picture`` (the error plot's file name) when a Markdown report was asked for;
* ``internal_error``: pespec's own failure, with its traceback (never blamed on the backend).

``mode`` ``run`` runs the whole suite (the CLI); ``serve`` reads commands on stdin, one JSON
line each (``{"do": "run", "id": ID}``, ``{"do": "diagnose"}``), for the pytest plugin, whose
tests ask for one check at a time. The process always ends with ``os._exit`` after its last
event, so a backend thread still running cannot hold or abort the interpreter's shutdown.
"""

from __future__ import annotations

import faulthandler
import json
import os
import sys
import traceback
from datetime import datetime, timezone
from typing import Any

__all__ = ["Events", "main"]

LOAD_ERRORS = ("CallProtocolError", "BackendLoadError", "OSError", "ValueError", "TypeError")
"""The exception kinds a ``load_error`` event names (the parent raises the same kind)."""


class Events:
    """Writes one JSON object per line to the events file descriptor (unbuffered)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send(self, event: str, **fields: Any) -> None:
        """Send ``{"event": event, **fields}``; the parent gone ends this process."""
        data = (json.dumps({"event": event, **fields}, allow_nan=False) + "\n").encode()
        try:
            while data:
                data = data[os.write(self.fd, data) :]
        except OSError:  # the supervisor is gone (killed): nobody reads the verdict
            os._exit(1)


def _build_suite(request: dict[str, Any]) -> Any:
    """The Suite of the family the request names, built by that family's suite factory in
    :mod:`pespec.families` (the options are its keywords); raises the load and usage errors."""
    from pespec.clients.resolve import resolve
    from pespec.families import get_family

    factory = get_family(request["family"]).load("suite")
    backend = resolve(request["backend"], request.get("config_text"))
    return factory(backend, **request["options"])


def _load(request: dict[str, Any], events: Events) -> Any:
    """Load the backend and send ``loaded`` (or ``load_error`` and None)."""
    from pespec.conformance.guard import BackendLoadError

    try:  # the plan reads the fixtures: a changed one is a usage error too (R7.3)
        suite = _build_suite(request)
        planned = suite.plan()
    except (BackendLoadError, OSError, ValueError, TypeError) as exc:
        events.send("load_error", kind=_kind(exc), message=str(exc))
        return None
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    plan = [{"id": p.id, "stage": p.stage, "title": p.title, "section": p.section} for p in planned]
    events.send("loaded", plan=plan, header=suite.report([], started, 0.0).to_dict())
    return suite


def _kind(exc: BaseException) -> str:
    """The name of the first :data:`LOAD_ERRORS` kind ``exc`` is an instance of."""
    for klass in type(exc).__mro__:
        if klass.__name__ in LOAD_ERRORS:
            return klass.__name__
    return "ValueError"


def state(suite: Any) -> dict[str, Any]:
    """What a report built now would say about the level, dtype and calls (it changes once the
    contract probes ran): the parent's report of a run that ended early uses the last one."""
    now = suite.report([], "", 0.0)
    return {
        "output_dtype": now.output_dtype,
        "level": now.level,
        "working_dtype": now.working_dtype,
        "backend_calls": now.backend_calls,
        "level_stages": now.level_stages,
    }


def _result(suite: Any, events: Events, planned: Any, result: Any) -> None:
    if result is None:
        events.send("start", id=planned.id)
    else:
        events.send("result", check=result.to_dict(), state=state(suite))


def _run(request: dict[str, Any], events: Events) -> int:
    """Mode ``run``: the whole suite, its report, and the picture for a Markdown report."""
    from pespec.conformance.engine import Interrupted
    from pespec.conformance.guard import CallProtocolError

    suite = _load(request, events)
    if suite is None:
        return 2
    try:
        report = suite.run(lambda planned, result: _result(suite, events, planned, result))
    except Interrupted as stop:
        events.send("report", report=stop.report.to_dict(), interrupted=True)
        return 130
    except CallProtocolError as exc:
        events.send("load_error", kind="CallProtocolError", message=str(exc))
        return 2
    events.send("report", report=report.to_dict(), interrupted=False)
    picture = request.get("picture")
    if picture:
        from pespec.plot import report_error_plot

        name = report_error_plot(
            request["backend"], report.level, picture["markdown"], timeout=picture["timeout"]
        )
        events.send("picture", name=name)
    return 0


def _serve(request: dict[str, Any], events: Events) -> int:
    """Mode ``serve``: run the checks the parent asks for, one at a time; diagnose on demand."""
    from pespec.conformance.guard import CallProtocolError

    suite = _load(request, events)
    if suite is None:
        return 2
    planned = {p.id: p for p in suite.plan()}
    results: list[Any] = []
    for line in sys.stdin:
        command = json.loads(line)
        if command["do"] == "run":
            check = planned[command["id"]]
            events.send("start", id=check.id)
            try:
                result = suite.run_check(check)
            except CallProtocolError as exc:
                events.send("load_error", kind="CallProtocolError", message=str(exc))
                continue
            results.append(result)
            events.send("result", check=result.to_dict(), state=state(suite))
        elif command["do"] == "diagnose":
            report = suite.report(results, "", 0.0)
            suite.diagnose(report)
            events.send(
                "diagnosis",
                diagnosis=report.diagnosis,
                sentence=report.diagnosis_sentence,
                backend_calls=report.backend_calls,
            )
    return 0


def _prepare(request: dict[str, Any]) -> None:
    """The parent's import path and Hypothesis storage, so loading resolves as it would."""
    sys.path[:] = list(request["sys_path"])
    home = request.get("hypothesis_home")
    if home:
        from hypothesis.configuration import set_hypothesis_home_dir

        set_hypothesis_home_dir(home)


_FAULT_FILE: Any = None  # open while the process lives: faulthandler writes to it


def main() -> None:
    """Read the request, run, send the events; always ends with ``os._exit``."""
    faulthandler.enable()  # a segfault in native backend code prints where, on stderr
    from pespec.conformance import contract

    contract.GUARD_OS_EXIT = False  # here the supervisor sees an exit and names it
    request = json.loads(sys.stdin.readline())
    if request.get("fault_file"):  # the supervisor tells the backend's frames (faults.py)
        global _FAULT_FILE
        _FAULT_FILE = open(request["fault_file"], "w", encoding="utf-8")
        faulthandler.enable(file=_FAULT_FILE)
    events = Events(int(request["events_fd"]))
    code = 3
    try:
        _prepare(request)
        code = _serve(request, events) if request["mode"] == "serve" else _run(request, events)
    except KeyboardInterrupt:  # Ctrl-C outside the suite's loop (loading): no report
        events.send("interrupted")
        code = 130
    except BaseException:  # pespec's own failure, told as such
        events.send("internal_error", traceback=traceback.format_exc())
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


if __name__ == "__main__":
    main()
