"""The supervisor: the suite runs in a child process that pespec watches (SPEC §6.6).

A backend can end the process it runs in: ``os._exit(0)``, a segfault or an abort in native
code, the out-of-memory killer. In pespec's own process that ended pespec with no report
(exit 0 after ``os._exit(0)``). ``pespec check``, ``pespec rope check`` and the pytest plugin
therefore run the backend in a child (:mod:`pespec.supervised.worker`, started with
``subprocess`` as ``python -P -c "...; pespec.supervised.worker.main()"``: a fresh
interpreter (the parent's ``sys.path``, the current folder not first), which
CUDA, JAX and torch's threads need, unlike ``fork``) and read its events, JSON lines on a
pipe of their own (the backend keeps stdout and stderr; nothing is pickled). The parent
rebuilds the child's report from its JSON (:mod:`pespec.supervised.report_load`).

When the child ends without its report, the parent writes it: the checks that finished are
kept, the check that was running fails with the cause named (:func:`ended_cause`: "the backend
ended the process with os._exit(0) or exit(0)", "... killed by SIGSEGV (a segmentation
fault)", "the backend aborted the process (SIGABRT)") and the rest are listed as not run, so
the verdict is NON-CONFORMANT (exit 1). A child that ends while loading the backend makes it
unloadable (:class:`BackendLoadError`, exit 2), as the load errors the child reports are.
Ctrl-C is forwarded to the child once (it runs in its own process group) and gives the
partial report (exit 130). The Python API (:func:`pespec.conformance.check`,
:func:`pespec.rope.check`) runs in-process: a callable need not be importable by a child.
POSIX only (the events pipe is passed by descriptor); elsewhere the commands run in-process.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pespec.conformance.guard import BackendLoadError, CallProtocolError
from pespec.conformance.planned import PlannedCheck
from pespec.conformance.report import CheckResult, Report
from pespec.supervised.faults import new_fault_file, read_and_remove, tell
from pespec.supervised.report_load import apply_state, check_from_dict, report_from_dict

__all__ = [
    "INTERRUPT_GRACE_S",
    "NotRun",
    "SupervisedSuite",
    "SupervisorError",
    "available",
    "ended_cause",
    "run_supervised",
]

WORKER = "pespec.supervised.worker"
"""The child's module (:func:`pespec.supervised.worker.main` runs it)."""

INTERRUPT_GRACE_S = 30.0
"""Seconds the child gets, after Ctrl-C, to send its partial report before it is killed."""

_SIGNALS = {
    "SIGSEGV": "a segmentation fault",
    "SIGBUS": "a bus error",
    "SIGFPE": "a floating-point exception",
    "SIGILL": "an illegal instruction",
    "SIGKILL": "e.g. by the out-of-memory killer",
    "SIGTERM": "asked to terminate",
}


class SupervisorError(RuntimeError):
    """pespec itself failed in the check process (its traceback is the message)."""


class NotRun(Exception):
    """A check the plugin asked for after the backend ended the check process."""


def available() -> bool:
    """True where the commands supervise (POSIX: the events pipe is passed by descriptor)."""
    return os.name == "posix"


def ended_cause(returncode: int) -> str:
    """What ended the child, in words, from its exit status (negative: the signal)."""
    if returncode >= 0:
        return f"the backend ended the process with os._exit({returncode}) or exit({returncode})"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = f"signal {-returncode}"
    if name == "SIGABRT":
        return "the backend aborted the process (SIGABRT: abort() or a failed native assertion)"
    what = _SIGNALS.get(name)
    return f"the process running the backend was killed by {name}" + (f" ({what})" if what else "")


class _Child:
    """The check process: started with its request, its events read one line at a time."""

    def __init__(self, request: dict[str, Any]) -> None:
        read, write = os.pipe()
        full = {**request, "events_fd": write, "sys_path": list(sys.path)}
        full["hypothesis_home"] = _hypothesis_home()
        self.fault_file = full["fault_file"] = new_fault_file()
        # -u: what the backend printed survives its crash; -P: the current folder not first
        flags = ["-u", "-P"] if sys.version_info >= (3, 11) else ["-u"]
        group: dict[str, Any] = (
            {"process_group": 0} if sys.version_info >= (3, 11) else {"start_new_session": True}
        )
        root = str(Path(__file__).resolve().parents[2])  # where this pespec is, as a fallback
        boot = f"import sys; sys.path.append({root!r}); import {WORKER}; {WORKER}.main()"
        try:
            self.process = subprocess.Popen(
                [sys.executable, *flags, "-c", boot],
                stdin=subprocess.PIPE,
                pass_fds=(write,),
                **group,
            )
        finally:
            os.close(write)
        self.fd, self.buffer = read, b""
        self.send(full)
        if request["mode"] == "run":
            self.close_input()

    def send(self, command: dict[str, Any]) -> None:
        """One JSON line on the child's stdin (nothing when the child is gone)."""
        stdin = self.process.stdin
        try:
            if stdin is not None and not stdin.closed:
                stdin.write((json.dumps(command) + "\n").encode())
                stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def close_input(self) -> None:
        if self.process.stdin is not None and not self.process.stdin.closed:
            try:
                self.process.stdin.close()
            except OSError:
                pass

    def next(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next event; None when the child closed the pipe (ended); TimeoutError."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.buffer:
            if deadline is not None:
                left = max(0.0, deadline - time.monotonic())
                if not select.select([self.fd], [], [], left)[0]:
                    raise TimeoutError("the check process sent nothing in time")
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        event: dict[str, Any] = json.loads(line)
        return event

    def interrupt(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)

    def wait(self) -> int:
        return self.process.wait()

    def close(self) -> None:
        """End the child (closing its input first lets a serving child end by itself)."""
        self.close_input()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        try:
            os.close(self.fd)
        except OSError:
            pass
        self.fault = read_and_remove(self.fault_file)


def _hypothesis_home() -> str | None:
    """Hypothesis's storage folder as this process set it (None: not imported, the default)."""
    if "hypothesis" not in sys.modules:
        return None
    from hypothesis.configuration import storage_directory

    try:
        directory: Any = storage_directory(intent_to_write=False)
    except TypeError:  # an older Hypothesis: no intent_to_write, a Path
        directory = storage_directory()
    return str(os.fspath(getattr(directory, "home_directory", directory)))


def _load_error(event: dict[str, Any]) -> Exception:
    """The exception a ``load_error`` event names, with the child's message."""
    kinds: dict[str, type[Exception]] = {
        "CallProtocolError": CallProtocolError,
        "BackendLoadError": BackendLoadError,
        "OSError": OSError,
        "TypeError": TypeError,
    }
    return kinds.get(event["kind"], ValueError)(event["message"])


Progress = Callable[[str, Any], None]
"""``progress(kind, data)``: ``("loaded", (backend name, plan size))``, ``("start", check
id)``, ``("result", CheckResult)``."""


class _Watch:
    """What the parent knows of a run: the plan, the header, the results, the running check."""

    def __init__(self, backend: str) -> None:
        self.backend = backend
        self.header: dict[str, Any] | None = None
        self.plan: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None
        self.current: str | None = None
        self.final: dict[str, Any] | None = None
        self.picture: str | None = None

    def take(self, event: dict[str, Any], progress: Progress | None) -> None:
        """Record one event (raising for a load error or pespec's own failure)."""
        kind = event["event"]
        if kind == "loaded":
            self.header, self.plan = event["header"], event["plan"]
            if progress is not None:
                progress("loaded", (self.header["backend"]["name"], len(self.plan)))
        elif kind == "start":
            self.current = event["id"]
            if progress is not None:
                progress("start", self.current)
        elif kind == "result":
            self.results.append(event["check"])
            self.state, self.current = event["state"], None
            if progress is not None:
                progress("result", check_from_dict(event["check"]))
        elif kind == "report":
            self.final = event
        elif kind == "picture":
            self.picture = event["name"]
        elif kind == "load_error":
            raise _load_error(event)
        elif kind == "internal_error":
            raise SupervisorError(f"pespec failed in the check process:\n{event['traceback']}")
        elif kind == "interrupted":
            raise KeyboardInterrupt

    def running(self) -> dict[str, Any]:
        """The check the child was in: the one started, else the next one (it ended between
        checks), else a ``process:ended`` check (it ended after the last one)."""
        done = {c["id"] for c in self.results}
        left = [p for p in self.plan if p["id"] not in done]
        started = [p for p in left if p["id"] == self.current]
        if started or left:
            return (started or left)[0]
        return {
            "id": "process:ended",
            "stage": "process",
            "title": "the backend's process ran to its end",
            "section": "§6.6",
        }

    def partial(
        self, reason: str, failed: str | None = None, details: dict[str, Any] | None = None
    ) -> Report:
        """The report of the checks that finished; the running check failed with ``failed``
        (when given), the others ``not_run`` with ``reason``."""
        assert self.header is not None
        report = report_from_dict(self.header)
        apply_state(report, self.state)
        report.checks = [check_from_dict(c) for c in self.results]
        if failed is not None:
            running = self.running()
            message = f"{failed} during check {running['id']}"
            report.checks.append(
                PlannedCheck(**running).result("failed", message, details=dict(details or {}))
            )
        done = {c.id for c in report.checks}
        for planned in self.plan:
            if planned["id"] not in done:
                report.not_run[planned["id"]] = reason
        report.duration_s = sum(c.duration_s for c in report.checks)
        return report

    def ended(self, returncode: int) -> Report:
        """The report of a child that ended without its own: NON-CONFORMANT, cause named."""
        cause = ended_cause(returncode)
        if self.header is None:
            raise BackendLoadError(
                f"backend {self.backend!r} could not be loaded: {cause} while it was being loaded"
            )
        done = {c["id"] for c in self.results}
        if (
            self.current is None
            and all(p["id"] in done for p in self.plan)
            and any(c["status"] == "failed" for c in self.results)
        ):  # every check ran, one failed: the child ended in the diagnosis
            report = self.partial("")
            report.diagnosis_sentence = f"diagnosis unavailable: {cause} during the diagnosis"
            return report
        return self.partial(
            f"not run: {cause} during check {self.running()['id']}",
            failed=cause,
            details={"process_ended": {"exit_status": returncode}},
        )


def run_supervised(request: dict[str, Any], progress: Progress | None = None) -> Report:
    """Run the suite of ``request`` in a child and return its report (see the module text).

    ``request``: ``family`` (``sinusoidal`` or ``rope``), ``backend`` (a spec string),
    ``options`` (the keywords of the family's suite factory in :mod:`pespec.families`; rope's
    ``config`` a RopeConfig dict),
    ``picture`` (``{"markdown": PATH, "timeout": S}`` or None: the child draws the error plot,
    named by the report's ``error_plot``). Raises the child's load errors; Ctrl-C raises
    :class:`pespec.conformance.engine.Interrupted` with the partial report.
    """
    child = _Child({**request, "mode": "run"})
    watch = _Watch(str(request["backend"]))
    try:
        try:
            while (event := child.next()) is not None:
                watch.take(event, progress)
        except KeyboardInterrupt:
            _interrupted(child, watch)
        returncode = child.wait()
    finally:
        child.close()
    if watch.final is None:
        shown = request.get("shown") or {}
        tell(child.fault, verbose=bool(shown.get("verbose")), quiet=bool(shown.get("quiet")))
        return watch.ended(returncode)
    report = report_from_dict(watch.final["report"])
    report.error_plot = watch.picture  # type: ignore[attr-defined]
    if watch.final["interrupted"]:
        from pespec.conformance.engine import Interrupted

        raise Interrupted(report)
    return report


def _interrupted(child: _Child, watch: _Watch) -> None:
    """Ctrl-C: forward it once, wait for the child's partial report (else build one), raise
    :class:`~pespec.conformance.engine.Interrupted`."""
    from pespec.conformance.engine import INTERRUPTED, Interrupted

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # the write must not be cut
    try:
        child.interrupt()
        deadline = time.monotonic() + INTERRUPT_GRACE_S
        try:
            while (
                watch.final is None
                and (event := child.next(max(0.0, deadline - time.monotonic()))) is not None
            ):
                watch.take(event, None)
        except (TimeoutError, KeyboardInterrupt):
            child.process.kill()
    finally:
        signal.signal(signal.SIGINT, previous)
    if watch.final is not None:
        raise Interrupted(report_from_dict(watch.final["report"]))
    if watch.header is None:
        raise KeyboardInterrupt
    raise Interrupted(watch.partial(INTERRUPTED))


class SupervisedSuite:
    """The pytest plugin's Suite, run in a serving child: :meth:`plan`, :meth:`run_check`
    (one check per pytest test), :meth:`report` and the diagnosis, as
    :class:`~pespec.conformance.engine.Suite` offers them. After the backend ended the
    child, the check running fails with the cause and later ones raise :class:`NotRun`."""

    def __init__(self, request: dict[str, Any]) -> None:
        self.child = _Child({**request, "mode": "serve"})
        self.watch = _Watch(str(request["backend"]))
        self.ended: str | None = None
        """What ended the child and when (``... during check golden:tiny``), else None."""
        try:
            while self.watch.header is None:
                event = self.child.next()
                if event is None:
                    self.watch.ended(self.child.wait())  # raises BackendLoadError
                else:
                    self.watch.take(event, None)
        except BaseException:
            self.child.close()
            raise
        self.name = str(self.watch.header["backend"]["name"])

    @property
    def stopped(self) -> str | None:
        """Why the checks not run did not run (the backend ended the child), else None."""
        return None if self.ended is None else f"not run: {self.ended}"

    def plan(self) -> list[PlannedCheck]:
        """The planned checks (without payload: the child holds the real ones)."""
        return [PlannedCheck(**p) for p in self.watch.plan]

    def run_check(self, planned: PlannedCheck) -> CheckResult:
        """Run one check in the child; a child that ends fails it with the cause."""
        if self.ended is not None:
            raise NotRun(f"not run: {self.ended}")
        self.child.send({"do": "run", "id": planned.id})
        while (event := self.child.next()) is not None:
            self.watch.take(event, None)
            if event["event"] == "result":
                return check_from_dict(event["check"])
        returncode = self.child.wait()
        self.ended = f"{ended_cause(returncode)} during check {planned.id}"
        return planned.result(
            "failed", self.ended, details={"process_ended": {"exit_status": returncode}}
        )

    def report(self, results: list[CheckResult], started: str, duration: float) -> Report:
        """A report of ``results`` with the header and level the child sent."""
        assert self.watch.header is not None
        report = report_from_dict(self.watch.header)
        apply_state(report, self.watch.state)
        report.checks, report.timestamp, report.duration_s = list(results), started, duration
        return report

    def diagnose(self, report: Report) -> None:
        """The child's diagnosis of its failures (none after the backend ended it)."""
        if self.ended is None:
            self.child.send({"do": "diagnose"})
            while (event := self.child.next()) is not None:
                if event["event"] == "diagnosis":
                    report.diagnosis, report.diagnosis_sentence = (
                        event["diagnosis"],
                        event["sentence"],
                    )
                    report.backend_calls = event["backend_calls"]
                    return
            self.ended = f"{ended_cause(self.child.wait())} during the diagnosis"
        report.diagnosis_sentence = f"diagnosis unavailable: {self.ended}"

    def close(self) -> None:
        """End the child."""
        self.child.close()
