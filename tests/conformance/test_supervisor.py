"""A backend that ends, crashes or is killed gets NON-CONFORMANT with the cause (issue 24, item 3).

Before: ``os._exit(0)`` inside the backend ended ``pespec check`` (and ``pespec rope check``,
and a pytest session of the plugin) with exit 0 and nothing printed; a segfault or an abort
killed pespec without a report. Each command here runs in a fresh process, as a user runs it
(the failure ended the process that ran it). Expected exit statuses are the documented ones
(1 non-conformant, 2 not loadable); the causes are the signal's or the exit status's name.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pespec.supervised.supervisor import ended_cause

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the supervisor is POSIX only")

CRASHERS = '''\
import ctypes
import os
import signal

from pespec.conformance import load_backend

_reference = load_backend("numpy")


def exit0(positions, d_model, base):
    os._exit(0)


def exit3(positions, d_model, base):
    os._exit(3)


def segv(positions, d_model, base):
    os.kill(os.getpid(), signal.SIGSEGV)


def null_read(positions, d_model, base):
    return ctypes.string_at(0)  # a real segmentation fault


def aborts(positions, d_model, base):
    os.abort()


def killed(positions, d_model, base):
    os.kill(os.getpid(), signal.SIGKILL)


def tiny_ends(positions, d_model, base):
    """Correct, until the golden fixture tiny-d4-L3 (d_model 4, 3 positions)."""
    if d_model == 4 and len(positions) == 3:
        os._exit(0)
    return _reference(positions, d_model, base)


def rope_exit0(x, positions, rope):
    os._exit(0)


def rope_segv(x, positions, rope):
    os.kill(os.getpid(), signal.SIGSEGV)
'''

CAUSES = {  # function: what the verdict must name
    "exit0": "the backend ended the process with os._exit(0)",
    "exit3": "the backend ended the process with os._exit(3)",
    "segv": "killed by SIGSEGV (a segmentation fault)",
    "null_read": "killed by SIGSEGV (a segmentation fault)",
    "aborts": "the backend aborted the process (SIGABRT",
    "killed": "killed by SIGKILL",
}


def _write(folder: Path) -> Path:
    (folder / "crashers.py").write_text(CRASHERS, encoding="utf-8")
    return folder


def _run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m ARGS`` in ``folder``; stdout with rich's line wrapping undone."""
    command = [sys.executable, "-m", *args]
    run = subprocess.run(
        command, cwd=folder, capture_output=True, text=True, timeout=300, check=False
    )
    run.stdout = " ".join(run.stdout.split())
    return run


def _report(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / "r.json").read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("function", sorted(CAUSES))
def test_check_of_a_backend_that_ends_the_process_is_non_conformant(
    tmp_path: Path, function: str
) -> None:
    """Before: exit 0 (os._exit(0)), 3, -11, -6 or -9, with nothing printed."""
    folder = _write(tmp_path)
    run = _run(
        folder,
        "pespec",
        "check",
        f"crashers.py:{function}",
        "--json",
        "r.json",
        "--markdown",
        "r.md",
    )
    assert run.returncode == 1, run.stdout + run.stderr
    cause = f"{CAUSES[function]}"
    assert cause in run.stdout and "NON-CONFORMANT" in run.stdout
    data = _report(folder)
    assert data["verdict"] == "non-conformant" and data["complete"] is False
    first = data["checks"][0]
    assert first["id"] == "contract:shape" and first["status"] == "failed"
    assert cause in first["message"] and first["message"].endswith("during check contract:shape")
    assert all(cause in why for why in data["not_run"].values())
    assert cause in (folder / "r.md").read_text(encoding="utf-8")


def test_the_checks_done_before_the_backend_ended_the_process_are_kept(tmp_path: Path) -> None:
    folder = _write(tmp_path)
    run = _run(
        folder,
        "pespec",
        "check",
        "crashers.py:tiny_ends",
        "--stages",
        "contract,golden",
        "--json",
        "r.json",
    )
    assert run.returncode == 1, run.stdout + run.stderr
    data = _report(folder)
    failed = [c for c in data["checks"] if c["status"] == "failed"]
    assert [c["id"] for c in failed] == ["golden:tiny-d4-L3"]
    assert failed[0]["message"] == (
        "the backend ended the process with os._exit(0) or exit(0) during check golden:tiny-d4-L3"
    )
    before = data["checks"][: data["checks"].index(failed[0])]
    assert before and all(c["status"] == "passed" for c in before)
    assert {c["id"] for c in before} >= {"contract:shape", "contract:deterministic"}


@pytest.mark.parametrize(
    ("function", "cause"), [("rope_exit0", "os._exit(0)"), ("rope_segv", "killed by SIGSEGV")]
)
def test_rope_check_of_a_backend_that_ends_the_process_is_non_conformant(
    tmp_path: Path, function: str, cause: str
) -> None:
    folder = _write(tmp_path)
    run = _run(
        folder,
        "pespec",
        "rope",
        "check",
        f"crashers.py:{function}",
        "--config",
        "Llama-2-7B",
        "--json",
        "r.json",
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert cause in run.stdout and "NON-CONFORMANT" in run.stdout
    data = _report(folder)
    assert data["family"] == "rope" and data["verdict"] == "non-conformant"
    assert cause in data["checks"][0]["message"]


def test_a_backend_that_ends_the_process_while_loading_is_not_loadable(tmp_path: Path) -> None:
    """Ending the process at import is no verdict: the backend cannot be loaded (exit 2)."""
    (tmp_path / "at_import.py").write_text(
        "import os\nos._exit(0)\ndef pe(p, d, b):\n    return p\n", encoding="utf-8"
    )
    run = _run(tmp_path, "pespec", "check", "at_import.py:pe")
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stderr.strip() == (
        "pespec check: error: backend 'at_import.py:pe' could not be loaded: the backend ended "
        "the process with os._exit(0) or exit(0) while it was being loaded"
    )


def test_what_the_backend_printed_before_ending_the_process_is_kept(tmp_path: Path) -> None:
    """The child is unbuffered: a backend's last words before os._exit reach the user."""
    (tmp_path / "printer.py").write_text(
        "import os\ndef pe(p, d, b):\n    print('about to end')\n    os._exit(5)\n",
        encoding="utf-8",
    )
    run = _run(tmp_path, "pespec", "check", "printer.py:pe", "--quiet")
    assert run.returncode == 1
    assert run.stdout.startswith("about to end printer.py:pe: NON-CONFORMANT")
    assert "os._exit(5) or exit(5) during check contract:shape" in run.stdout


ENDS_IN_DIAGNOSIS = """\
import os

from pespec.conformance import load_backend

_reference = load_backend("numpy")
_calls = [0]


def pe(positions, d_model, base):
    \"\"\"Off by one position; ends the process on the first call after the suite's.\"\"\"
    _calls[0] += 1
    if _calls[0] > {calls}:
        os._exit(0)
    return _reference(positions + 1, d_model, base)
"""


def test_a_backend_that_ends_the_process_in_the_diagnosis_keeps_every_check(
    tmp_path: Path,
) -> None:
    """Every check ran (the verdict is complete); the diagnosis says why it is missing."""
    from pespec.conformance import check

    source = ENDS_IN_DIAGNOSIS.format(calls=10**9)
    namespace: dict[str, Any] = {}
    exec(compile(source, "ends.py", "exec"), namespace)  # the suite's own call count
    calls = check(namespace["pe"], stages=("contract", "golden"), diagnose=False)
    suite_calls = calls.backend_calls["suite_calls"] if calls.backend_calls else 0
    assert suite_calls > 0
    (tmp_path / "ends.py").write_text(ENDS_IN_DIAGNOSIS.format(calls=suite_calls), encoding="utf-8")
    run = _run(
        tmp_path, "pespec", "check", "ends.py:pe", "--stages", "contract,golden", "--json", "r.json"
    )
    assert run.returncode == 1, run.stdout + run.stderr
    data = _report(tmp_path)
    assert [c["id"] for c in data["checks"]] == [c.id for c in calls.checks]
    assert data["diagnosis_sentence"] == (
        "diagnosis unavailable: the backend ended the process with os._exit(0) or exit(0) "
        "during the diagnosis"
    )


def test_in_process_keeps_the_old_unsupervised_run(tmp_path: Path) -> None:
    """``--in-process``: pespec's own process (a debugger's); the documented escape hatch.
    A backend's os._exit there is refused and failed (issue 41), never the process's status."""
    folder = _write(tmp_path)
    run = _run(folder, "pespec", "check", "crashers.py:exit3", "--in-process")
    assert run.returncode == 1 and "NON-CONFORMANT" in run.stdout
    assert "os._exit(3)" in run.stdout


def _plugin(folder: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return _run(
        folder, "pytest", "--pyargs", "pespec.conformance", "-q", "-p", "no:cacheprovider", *options
    )


@pytest.mark.parametrize("function", ["exit0", "segv"])
def test_plugin_session_of_a_backend_that_ends_the_process_fails(
    tmp_path: Path, function: str
) -> None:
    """Before: the session ended with exit 0 (os._exit(0)) or -11, no test result."""
    folder = _write(tmp_path)
    run = _plugin(folder, "--pe-backend", f"crashers.py:{function}", "--pe-json", "r.json")
    output = run.stdout + run.stderr
    assert run.returncode == 1, output
    assert "1 failed" in output and f"{CAUSES[function]}" in output
    assert "NON-CONFORMANT" in output
    data = _report(folder)
    assert data["checks"][0]["status"] == "failed" and data["complete"] is False
    assert all(CAUSES[function] in why for why in data["not_run"].values())


def test_plugin_rope_session_of_a_backend_that_ends_the_process_fails(tmp_path: Path) -> None:
    folder = _write(tmp_path)
    run = _plugin(
        folder, "--pe-rope-backend", "crashers.py:rope_exit0", "--pe-rope-config", "Llama-2-7B"
    )
    output = run.stdout + run.stderr
    assert run.returncode == 1, output
    assert "the backend ended the process with os._exit(0)" in output


def test_plugin_with_a_backend_that_ends_the_process_while_loading_fails(
    tmp_path: Path,
) -> None:
    """Ending the process at import is no verdict under pytest either: a usage error."""
    (tmp_path / "at_import.py").write_text("import os\nos._exit(0)\n", encoding="utf-8")
    run = _plugin(tmp_path, "--pe-backend", "at_import.py:pe")
    output = run.stdout + run.stderr
    assert run.returncode == 4, output  # pytest's USAGE_ERROR; was 0
    assert "could not be loaded: the backend ended the process with os._exit(0)" in output


def test_plugin_keeps_the_checks_before_the_crash(tmp_path: Path) -> None:
    folder = _write(tmp_path)
    run = _plugin(
        folder,
        "--pe-backend",
        "crashers.py:tiny_ends",
        "--pe-stages",
        "contract,golden",
        "--pe-json",
        "r.json",
    )
    assert run.returncode == 1, run.stdout + run.stderr
    data = _report(folder)
    assert [c["id"] for c in data["checks"] if c["status"] == "failed"] == ["golden:tiny-d4-L3"]
    assert sum(c["status"] == "passed" for c in data["checks"]) >= 5


def _comparable(path: Path) -> dict[str, Any]:
    """The JSON report without the run's clock (timestamp, durations) and the libraries the
    process had imported besides the backend's (torch, jax: this test process may have)."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    for name in ("torch", "jax"):
        data["execution"]["pespec_libraries"].pop(name, None)
    for key in ("timestamp", "duration_s"):
        data.pop(key)
    for check in data["checks"]:
        check.pop("duration_s")
    return data


@pytest.mark.parametrize("spec", ["numpy-float32", "offby.py:pe"])
def test_supervised_report_is_the_in_process_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spec: str
) -> None:
    """The parent rebuilds the child's report from its JSON: same verdict, checks and
    diagnosis (an off-by-one backend has one), the same JSON document (the clock aside)."""
    from pespec.cli import main

    (tmp_path / "offby.py").write_text(
        "from pespec.conformance import load_backend\n_ref = load_backend('numpy')\n"
        "def pe(positions, d_model, base):\n    return _ref(positions + 1, d_model, base)\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    runs = {}
    for name, extra in (("supervised", []), ("in_process", ["--in-process"])):
        runs[name] = main(
            [
                "check",
                spec,
                "--stages",
                "contract,golden",
                "--json",
                f"{name}.json",
                "--quiet",
                *extra,
            ]
        )
    assert runs["supervised"] == runs["in_process"] == (0 if spec.startswith("numpy") else 1)
    supervised = _comparable(tmp_path / "supervised.json")
    assert supervised == _comparable(tmp_path / "in_process.json")
    assert spec.startswith("numpy") or supervised["diagnosis_sentence"]


def test_supervised_child_imports_as_the_parent_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``module:attr`` importable through the parent's sys.path loads in the child."""
    from pespec.cli import main

    (tmp_path / "only_here_pe.py").write_text(
        "from pespec.conformance import load_backend\npe = load_backend('numpy').fn\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["check", "only_here_pe:pe", "--stages", "contract,golden", "--quiet"]) == 0


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (0, "the backend ended the process with os._exit(0) or exit(0)"),
        (-signal.SIGSEGV, "killed by SIGSEGV (a segmentation fault)"),
        (-signal.SIGABRT, "the backend aborted the process (SIGABRT"),
        (-signal.SIGKILL, "killed by SIGKILL (e.g. by the out-of-memory killer)"),
    ],
)
def test_ended_cause_names_the_exit_status_or_the_signal(status: int, words: str) -> None:
    assert words in ended_cause(status)


def test_supervised_rope_report_is_the_in_process_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The rotary report's own fields (domain, its advice, the config reader's notes) survive
    the child's JSON: the same document and the same verdict line as in process (a config.json
    without rope_theta, so the note "θ defaulted" must reach the line)."""
    from pespec.cli import main

    config = {
        "model_type": "llama",
        "hidden_size": 256,
        "num_attention_heads": 4,
        "max_position_embeddings": 512,
    }
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    lines = {}
    for name, extra in (("supervised", []), ("in_process", ["--in-process"])):
        code = main(
            [
                "rope",
                "check",
                "numpy-float32",
                "--config",
                "config.json",
                "--json",
                f"{name}.json",
                "--quiet",
                *extra,
            ]
        )
        assert code == 0
        lines[name] = capsys.readouterr().out
    assert lines["supervised"] == lines["in_process"]
    assert "θ defaulted to 10000" in lines["supervised"]
    assert "integer positions 0..511" in lines["supervised"]
    supervised = _comparable(tmp_path / "supervised.json")
    assert supervised == _comparable(tmp_path / "in_process.json")
    assert supervised["domain"]["max_position"] == 511
