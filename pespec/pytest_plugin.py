"""The pytest plugin (entry point ``pytest11``): the conformance suite as pytest tests (SPEC §6).

A front end of both families, outside the engine (issue 25): the engine's folder keeps only the
test module that ``--pyargs pespec.conformance`` collects, :mod:`pespec.conformance.test_suite`,
which imports nothing of pespec and runs each check through this plugin's ``pe_run`` fixture.

    pytest --pyargs pespec.conformance --pe-backend numpy-float16 [--pe-level L]
        [--pe-convention NAME|FILE.json]
        [--pe-profile ci|dev|thorough] [--pe-skip-file F] [--pe-xfail-file F] [--pe-json PATH]
    pytest --pyargs pespec.conformance --pe-rope-backend torch-bfloat16 --pe-rope-config PRESET
    pytest --pyargs pespec.conformance --pe-family NAME --pe-backend SPEC [--pe-option K=V ...]

The rotary suite (SPEC §8.8) runs through the same machinery: ``--pe-rope-backend`` with
``--pe-rope-config`` (a preset name or a JSON file, as ``pespec rope check --config``) builds a
:class:`~pespec.rope.suite.RopeSuite`; ``--pe-level`` then names a stage tuple.

``--pe-family NAME`` runs any family of :mod:`pespec.families`, an entry-point family of another
package included, through its registered suite factory; ``--pe-option KEY=VALUE`` passes the
family's own keywords (VALUE read as JSON).

One test per planned check (``test_conformance[golden:tiny]``, ``...[property:norm]``), run by
the same :class:`~pespec.sinusoidal.run.Suite` as ``pespec check``, so the verdicts agree.
Skip/xfail files hold one check id (or test name, node id, or fnmatch pattern) per line;
``#`` starts a comment; a line that matches no test gives a warning.

A session given ``--pe-backend`` never passes without a verdict: when no conformance test
was collected (``pytest --pe-backend X`` in a project, without ``--pyargs
pespec.conformance``) it is a usage error saying how to run the suite, and when none ran
(all skipped or deselected) the session fails.

pytest loads this module in every run of an environment where pespec is installed, so it
imports nothing heavy and does nothing unless ``--pe-backend`` is given.
"""

from __future__ import annotations

import fnmatch
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

_SUITE = pytest.StashKey[Any]()
_RESULTS = pytest.StashKey[dict[str, Any]]()
_SKIPPED = pytest.StashKey[dict[str, str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the ``--pe-*`` options."""
    group = parser.getgroup("pespec", "pespec conformance suite")
    group.addoption("--pe-backend", default=None, help="backend spec to check (see pespec check)")
    group.addoption(
        "--pe-rope-backend",
        default=None,
        help="rotary backend spec to check (see pespec rope check)",
    )
    group.addoption(
        "--pe-rope-config", default=None, help="rotary configuration: a preset name or a JSON file"
    )
    group.addoption(
        "--pe-family",
        default=None,
        help="the family of --pe-backend (default sinusoidal; rope, or a family of the "
        "pespec.families entry points)",
    )
    group.addoption(
        "--pe-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a keyword of the family's suite (repeatable; VALUE is read as JSON, else text)",
    )
    group.addoption("--pe-level", default=None, help="level, e.g. float16 or float16@float64")
    group.addoption(
        "--pe-convention",
        default=None,
        help="convention to judge against: a preset name or a JSON file (default: canonical)",
    )
    group.addoption(
        "--pe-profile", default=None, choices=("ci", "dev", "thorough"), help="suite profile"
    )
    group.addoption("--pe-timeout", type=float, default=None, help="seconds per backend call")
    group.addoption("--pe-skip-file", default=None, help="file of check ids to skip")
    group.addoption("--pe-xfail-file", default=None, help="file of check ids expected to fail")
    group.addoption("--pe-json", default=None, help="write the JSON report to this path")
    group.addoption("--pe-stages", default=None, help="comma-separated subset of the stages")
    group.addoption("--pe-examples", type=int, default=None, help="examples per property")
    group.addoption(
        "--pe-no-shrink", action="store_true", help="do not shrink failing property examples"
    )
    group.addoption(
        "--pe-in-process",
        action="store_true",
        help="run the backend in pytest's own process (default: a supervised child process, "
        "so a backend that ends or crashes the process still fails the session)",
    )


def _suite(config: pytest.Config) -> Any:
    """The Suite for ``--pe-backend`` (built once per session), or None without the option."""
    if _SUITE in config.stash:
        return config.stash[_SUITE]
    spec = _spec(config)
    suite = None
    if spec:  # the suite writes only where asked: no .hypothesis/ in the working folder
        from pespec.cli.check import hypothesis_storage_outside_cwd

        hypothesis_storage_outside_cwd()
    family = config.getoption("--pe-family")
    if spec and config.getoption("--pe-rope-backend"):
        suite = _rope_suite(config, spec)
    elif spec and family not in (None, "sinusoidal"):
        suite = _family_suite(config, str(family), spec)
    elif spec:
        extra = {
            "examples": config.getoption("--pe-examples"),
            "shrink": not config.getoption("--pe-no-shrink"),
            "convention": config.getoption("--pe-convention"),
        }
        suite = _family_suite(
            config, "sinusoidal", spec, extra=extra, where=f"--pe-backend {spec!r}"
        )
    config.stash[_SUITE] = suite
    config.stash[_RESULTS] = {}
    return suite


def pytest_sessionstart(session: pytest.Session) -> None:
    """Load the backend before collection: a backend that cannot be loaded is a usage error
    told in one line (``ERROR: --pe-rope-backend 'x:y': ...``), not a collection error with a
    traceback followed by a note that no test was collected."""
    if _spec(session.config):
        _suite(session.config)


def _option(config: pytest.Config) -> str:
    """The option that named the backend: ``--pe-rope-backend`` or ``--pe-backend``."""
    return "--pe-rope-backend" if config.getoption("--pe-rope-backend") else "--pe-backend"


def _spec(config: pytest.Config) -> str | None:
    """The backend spec of this session: ``--pe-backend`` or ``--pe-rope-backend``."""
    spec = config.getoption("--pe-backend") or config.getoption("--pe-rope-backend")
    return None if spec is None else str(spec)


def _rope_suite(config: pytest.Config, spec: str) -> Any:
    """The rotary Suite for ``--pe-rope-backend`` and ``--pe-rope-config`` (the one family
    path, :func:`_family_suite`, with the configuration read here)."""
    from pespec.rope.presets import load_config

    if config.getoption("--pe-backend"):
        raise pytest.UsageError("give one of --pe-backend and --pe-rope-backend, not both")
    text = config.getoption("--pe-rope-config")
    if not text:
        raise pytest.UsageError("--pe-rope-backend needs --pe-rope-config PRESET_OR_JSON")
    try:
        reading = load_config(str(text))
    except (OSError, ValueError, TypeError) as exc:
        raise pytest.UsageError(f"--pe-rope-config {str(text)!r}: {exc}") from None
    extra = {"config": reading.config, "config_notes": list(reading.notes)}
    child = {"config": reading.config.to_dict()}  # JSON for the supervised child
    where = f"--pe-rope-backend {spec!r}"
    return _family_suite(config, "rope", spec, extra=extra, child=child, where=where)


def _family_suite(
    config: pytest.Config,
    name: str,
    spec: str,
    *,
    extra: dict[str, Any] | None = None,
    child: dict[str, Any] | None = None,
    where: str | None = None,
) -> Any:
    """The suite of family ``name`` (:mod:`pespec.families`, entry points included) for
    ``--pe-backend``: the options every family takes, ``extra`` (a family's own, read from
    its own options; ``child``: those the supervised child gets as JSON instead), then the
    ``--pe-option`` keywords. The one plugin path of every family (issue 38)."""
    from pespec.conformance.engine import DEFAULT_TIMEOUT
    from pespec.conformance.guard import BackendLoadError
    from pespec.families import get_family

    try:
        factory = get_family(name).load("suite")
    except (ValueError, ImportError, AttributeError) as exc:
        raise pytest.UsageError(f"--pe-family {name!r}: {exc}") from None
    stages = config.getoption("--pe-stages")
    options: dict[str, Any] = {
        "level": config.getoption("--pe-level"),
        "profile": config.getoption("--pe-profile"),
        "timeout": config.getoption("--pe-timeout") or DEFAULT_TIMEOUT,
        **(extra or {}),
    }
    if stages is not None:
        options["stages"] = [s.strip() for s in stages.split(",")]
    options.update(family_options(config.getoption("--pe-option")))
    label = where or f"--pe-backend {spec!r} (family {name})"
    try:
        supervised = _supervised(config, name, spec, {**options, **(child or {})})
        return supervised or factory(spec, **options)
    except (BackendLoadError, ValueError, TypeError) as exc:
        raise pytest.UsageError(f"{label}: {exc}") from None


def family_options(pairs: list[str]) -> dict[str, Any]:
    """``--pe-option KEY=VALUE`` pairs as suite keywords: VALUE read as JSON (``3``,
    ``true``, ``[1, 2]``), else kept as text; a pair without ``=`` is a usage error."""
    import json

    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key.strip().isidentifier():
            raise pytest.UsageError(f"--pe-option must be KEY=VALUE with KEY a name; got {pair!r}")
        try:
            options[key.strip()] = json.loads(text)
        except ValueError:
            options[key.strip()] = text
    return options


def _supervised(config: pytest.Config, family: str, spec: str, options: dict[str, Any]) -> Any:
    """The suite run in a supervised child process (SPEC §6.6), ended with the session; None
    with ``--pe-in-process`` or where pespec cannot supervise."""
    from pespec.supervised.supervisor import SupervisedSuite, available

    if config.getoption("--pe-in-process") or not available():
        return None
    suite = SupervisedSuite({"family": family, "backend": spec, "options": options})
    config.add_cleanup(suite.close)
    return suite


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize ``pe_check`` with the planned checks (ids = check ids)."""
    if "pe_check" not in metafunc.fixturenames:
        return
    suite = _suite(metafunc.config)
    if suite is None:
        skip = pytest.mark.skip(reason="no backend: pass --pe-backend BACKEND")
        metafunc.parametrize("pe_check", [pytest.param(None, marks=skip)], ids=["no-backend"])
        return
    planned = suite.plan()
    metafunc.parametrize("pe_check", planned, ids=[p.id for p in planned])


@pytest.fixture
def pe_suite(request: pytest.FixtureRequest) -> Any:
    """The session's :class:`~pespec.sinusoidal.run.Suite` (needs ``--pe-backend``)."""
    suite = _suite(request.config)
    if suite is None:
        pytest.skip("no backend: pass --pe-backend BACKEND")
    return suite


@pytest.fixture
def pe_record(request: pytest.FixtureRequest) -> Any:
    """Records a check's result for the session verdict and the ``--pe-json`` report."""
    results = request.config.stash.setdefault(_RESULTS, {})

    def record(result: Any) -> None:
        results[result.id] = result

    return record


@pytest.fixture
def pe_run(pe_suite: Any, pe_record: Any) -> Callable[[Any], tuple[str, str]]:
    """Runs one planned check on the session's backend and records its result; returns the
    outcome (``passed``, ``skipped`` or ``failed``) and the message the test reports with it.
    A callable that is no backend ends the session as a usage error, not a verdict."""

    def run(check: Any) -> tuple[str, str]:
        from pespec.conformance.guard import CallProtocolError
        from pespec.supervised.supervisor import NotRun

        try:
            result = pe_suite.run_check(check)
        except CallProtocolError as exc:  # no backend at all: a usage error, not a verdict
            pytest.exit(f"--pe-backend: {exc}", returncode=pytest.ExitCode.USAGE_ERROR)
        except NotRun as exc:  # the backend ended the supervised process in an earlier check
            return "skipped", str(exc)
        pe_record(result)
        if result.status != "failed":
            return str(result.status), str(result.message)
        lines = [f"{result.id} ({result.section}): {result.message}"]
        if result.reproduction:
            lines.append(f"reproduce: {result.reproduction}")
        return "failed", "\n".join(lines)

    return run


def _read_ids(path: str) -> list[str]:
    """Non-empty lines of ``path`` with ``#`` comments removed."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise pytest.UsageError(f"cannot read check id file {path!r}: {exc}") from None
    ids = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    return [i for i in ids if i]


def _matches(pattern: str, item: pytest.Item) -> bool:
    check = getattr(item, "callspec", None)
    check_id = None if check is None else getattr(check.params.get("pe_check"), "id", None)
    names = [n for n in (check_id, item.name, item.nodeid) if n]
    return any(fnmatch.fnmatchcase(n, pattern) for n in names) or item.nodeid.endswith(pattern)


def _how_to_run(config: pytest.Config, spec: str) -> str:
    """How to run the suite on ``spec``, with the option that named it (and the rotary
    configuration); for a session that ran the suite, what left its tests out instead."""
    if "pespec.conformance" in config.invocation_params.args:  # the suite's own command
        return "check -k, -m, --deselect and --pe-skip-file"
    command = f"pytest --pyargs pespec.conformance {_option(config)} {spec}"
    rope_config = config.getoption("--pe-rope-config")
    if config.getoption("--pe-rope-backend") and rope_config:
        command += f" --pe-rope-config {rope_config}"
    return f"run the suite with: {command}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Refuse a session that would check nothing; apply ``--pe-skip-file``/``--pe-xfail-file``
    and warn on lines that match no test."""
    spec = _spec(config)
    if not spec:
        return
    if config.getoption("--pe-rope-backend") and not config.getoption("--pe-rope-config"):
        raise pytest.UsageError("--pe-rope-backend needs --pe-rope-config PRESET_OR_JSON")
    if not any("pe_check" in getattr(item, "fixturenames", ()) for item in items):
        raise pytest.UsageError(
            f"{_option(config)} {spec!r} was given but no conformance test was collected (or "
            "all were deselected), so nothing would check the backend and the session would "
            f"pass without a verdict; {_how_to_run(config, spec)}"
        )
    for option in ("--pe-skip-file", "--pe-xfail-file"):
        path = config.getoption(option)
        if not path:
            continue
        reason = f"listed in {option} {path}"
        mark = (
            pytest.mark.skip(reason=reason)
            if "skip" in option
            else pytest.mark.xfail(reason=reason)
        )
        skipped = config.stash.setdefault(_SKIPPED, {})
        for pattern in _read_ids(path):
            hits = [item for item in items if _matches(pattern, item)]
            if not hits:
                warnings.warn(
                    pytest.PytestWarning(f"{option} {path}: {pattern!r} matches no test"),
                    stacklevel=1,
                )
            for item in hits:
                item.add_marker(mark)
                check = getattr(item, "callspec", None)
                check_id = (
                    None if check is None else getattr(check.params.get("pe_check"), "id", None)
                )
                if check_id is not None and "skip" in option:
                    skipped.setdefault(check_id, reason)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Print the verdict (and the diagnosis of a non-conformant backend) after the tests."""
    report = _session_report(config)
    if report is None:
        if _NO_VERDICT in config.stash:
            terminalreporter.section("pespec conformance")
            terminalreporter.write_line(config.stash[_NO_VERDICT], red=True)
        return
    terminalreporter.section("pespec conformance")
    summary = report.summary()
    if report.diagnosis_sentence and report.diagnosis_sentence not in summary:  # rotary: in it
        terminalreporter.write_line(f"Diagnosis: {report.diagnosis_sentence}")
    terminalreporter.write_line(summary)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the session when the verdict is non-conformant; write ``--pe-json``."""
    report = _session_report(session.config)
    spec = _spec(session.config)
    if report is None:
        if spec and not session.config.option.collectonly and exitstatus in (0, 5):
            session.config.stash[_NO_VERDICT] = (
                f"{_option(session.config)} {spec!r}: no conformance check ran (all skipped or "
                f"deselected), so there is no verdict; {_how_to_run(session.config, spec)}"
            )
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        return
    path = session.config.getoption("--pe-json")
    if path:
        try:
            report.write_json(path)
        except OSError as exc:  # a usage error, not a verdict and not an internal error
            sys.stderr.write(f"pespec: --pe-json {path}: cannot write the report: {exc}\n")
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            return
    if not report.conformant and exitstatus == 0 and not report.failed:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_REPORT = pytest.StashKey[Any]()
_NO_VERDICT = pytest.StashKey[str]()


def _session_report(config: pytest.Config) -> Any:
    """The report of the checks that ran (all planned checks ran when nothing was deselected)."""
    if _REPORT in config.stash:
        return config.stash[_REPORT]
    suite = config.stash.get(_SUITE, None)
    results = config.stash.get(_RESULTS, {})
    report = None
    if suite is not None and results:
        from datetime import datetime, timezone

        ordered = [results[p.id] for p in suite.plan() if p.id in results]
        stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
        report = suite.report(ordered, stamp, sum(r.duration_s for r in ordered))
        skipped = config.stash.get(_SKIPPED, {})
        for planned in suite.plan():  # a check that did not run must not vanish silently
            if planned.id not in results:
                report.not_run[planned.id] = (
                    skipped.get(planned.id)
                    or getattr(suite, "stopped", None)
                    or "not run in this pytest session (deselected or interrupted)"
                )
        if report.failed:  # a diagnosis explains failures; none, nothing to explain
            suite.diagnose(report)
    config.stash[_REPORT] = report
    return report
