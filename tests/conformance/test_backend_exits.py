"""A backend that calls sys.exit(), raises GeneratorExit or is interrupted (issue 12, items 1, 5).

SystemExit, KeyboardInterrupt and GeneratorExit are not ``Exception``: code that catches only
``Exception`` lets a backend's ``sys.exit(0)`` end pespec with exit 0, "conformant", and no
report. Each test below failed before the fix (the exit status or the exception says so).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from pespec.cli import main
from pespec.conformance import BackendLoadError, check, load_backend
from pespec.sinusoidal.diagnosis import diagnose
from pespec.sinusoidal.properties.base import LEVELS, EncodingConfig
from pespec.sinusoidal.properties.registry import PROPERTIES

SCRIPT = """\
import sys
import numpy as np

def pe(positions, d_model, base):
    return np.zeros((len(positions), d_model))

def main():
    print("script output")
    return 0

{tail}
"""


def _script(tmp_path: Path, tail: str, name: str = "script_pe.py") -> Path:
    path = tmp_path / name
    path.write_text(SCRIPT.format(tail=tail), encoding="utf-8")
    return path


def test_cli_backend_module_calling_sys_exit_at_import_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: the import's sys.exit(0) ended `pespec check` with exit 0 and no report."""
    _script(tmp_path, "sys.exit(main())")
    monkeypatch.chdir(tmp_path)
    code = main(["check", "script_pe.py:pe", "--json", "r.json"])
    err = capsys.readouterr().err
    assert code == 2
    assert "importing script_pe.py called sys.exit(0)" in err
    assert "__main__" in err  # says how to fix it
    assert not (tmp_path / "r.json").exists()


@pytest.mark.slow
def test_cli_sys_exit_at_import_in_a_fresh_process(tmp_path: Path) -> None:
    """The console entry, as a user runs it: exit 2, not 0, and no traceback."""
    _script(tmp_path, "sys.exit()")
    run = subprocess.run(
        [sys.executable, "-m", "pespec", "check", "script_pe.py:pe"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 2, run.stdout + run.stderr
    assert "importing script_pe.py called sys.exit()" in run.stderr
    assert "Traceback" not in run.stdout + run.stderr


def test_check_api_raises_backend_load_error_for_sys_exit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: pespec.conformance.check('script_pe.py:pe') ended the calling process."""
    _script(tmp_path, "sys.exit(main())")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BackendLoadError, match=r"importing script_pe\.py called sys\.exit\(0\)"):
        check("script_pe.py:pe", stages=("contract",))


def test_generator_exit_at_import_is_a_load_error(tmp_path: Path) -> None:
    path = _script(tmp_path, "raise GeneratorExit('odd')", name="gen_pe.py")
    with pytest.raises(BackendLoadError, match="failed: GeneratorExit: odd"):
        load_backend(f"{path}:pe")


def test_keyboard_interrupt_at_import_is_an_interruption(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C during a slow import is the user's: it propagates (exit 130), not a load error."""
    path = _script(tmp_path, "raise KeyboardInterrupt", name="ctrl_c_pe.py")
    with pytest.raises(KeyboardInterrupt):
        load_backend(f"{path}:pe")
    assert main(["check", f"{path}:pe"]) == 130
    assert "interrupted" in capsys.readouterr().err


def _exits(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    sys.exit(0)


def _generator_exit(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    raise GeneratorExit


@pytest.mark.parametrize("backend", [_exits, _generator_exit], ids=["sys.exit", "GeneratorExit"])
def test_a_backend_call_that_exits_is_a_failed_verdict(backend: Any) -> None:
    report = check(backend, stages=("contract", "golden"))
    assert not report.conformant
    name = "SystemExit" if backend is _exits else "GeneratorExit"
    assert name in report.get("contract:shape").message


@pytest.mark.parametrize("backend", [_exits, _generator_exit], ids=["sys.exit", "GeneratorExit"])
def test_diagnosis_probes_survive_a_backend_that_exits(backend: Any) -> None:
    """Before: the diagnosis called the encoder directly and SystemExit escaped it."""
    found = diagnose(backend, level=LEVELS["float64"])
    assert not found.explained
    notes = " ".join(found.evidence["probe_notes"].values())
    assert ("SystemExit" if backend is _exits else "GeneratorExit") in notes


def test_a_property_check_turns_sys_exit_into_a_violation() -> None:
    from pespec.sinusoidal.properties.base import PropertyViolation

    config = EncodingConfig(np.arange(4, dtype=np.int64), 8, 10000.0)
    with pytest.raises(PropertyViolation, match="SystemExit"):
        PROPERTIES["norm"](_exits, config, LEVELS["float64"])


def test_plot_error_of_a_backend_that_exits_is_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: sys.exit(0) inside the backend ended `pespec plot error` with exit 0."""
    pytest.importorskip("matplotlib")
    path = tmp_path / "exits_pe.py"
    path.write_text("import sys\ndef pe(p, d, b):\n    sys.exit(0)\n", encoding="utf-8")
    code = main(
        ["plot", "error", f"{path}:pe", "--level", "float64", "-o", str(tmp_path / "e.png")]
    )
    assert code == 1
    assert "SystemExit" in capsys.readouterr().err


# --- Ctrl-C during `pespec check` (item 5) ---------------------------------------------------

SLOW = '''\
import time
from pathlib import Path

from pespec.conformance import load_backend

_reference = load_backend("numpy")
_calls = [0]


def pe(positions, d_model, base):
    """Correct for the contract and golden stages, then hangs (a slow backend)."""
    _calls[0] += 1
    if _calls[0] > {calls}:
        Path({marker!r}).write_text("hanging", encoding="utf-8")
        {hang}
    return _reference(positions, d_model, base)
'''


def _interrupt_run(tmp_path: Path, hang: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Run `pespec check` on a backend that hangs after the golden stage; send SIGINT."""
    from pespec.sinusoidal.run import Suite

    suite = Suite("numpy", stages=("contract", "golden"))
    calls = 4 + sum(1 for planned in suite.plan() if planned.stage == "golden")
    marker = tmp_path / "hanging"
    (tmp_path / "slow_pe.py").write_text(
        SLOW.format(calls=calls, marker=str(marker), hang=hang), encoding="utf-8"
    )
    command = [sys.executable, "-m", "pespec", "check", "slow_pe.py:pe", "--json", "r.json"]
    command += ["--markdown", "r.md", "--timeout", "600"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        command,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        # A background job inherits SIGINT ignored, and Python then keeps ignoring it:
        # restore the default so that the child gets its KeyboardInterrupt, as in a terminal.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        return _interrupt(process, marker, command), tmp_path
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def _interrupt(
    process: subprocess.Popen[str], marker: Path, command: list[str]
) -> subprocess.CompletedProcess[str]:
    deadline = time.monotonic() + 240
    while not marker.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the backend was never called beyond the goldens"
        time.sleep(0.1)
    time.sleep(0.5)  # let the main thread reach its wait on the hanging call
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    return subprocess.CompletedProcess(command, process.returncode, out, err)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize(
    "hang",
    ["time.sleep(600)", "while True: pass"],
    ids=["sleeping", "busy"],
)
def test_ctrl_c_exits_130_with_a_partial_report(tmp_path: Path, hang: str) -> None:
    """Before: a 57-line traceback (and with torch a SIGABRT from the live daemon thread),
    no report written. After: "interrupted", exit 130, both reports written, incomplete."""
    run, folder = _interrupt_run(tmp_path, hang)
    output = run.stdout + run.stderr
    assert run.returncode == 130, output[-3000:]
    assert "interrupted" in run.stderr
    assert "Traceback" not in output and "terminate called" not in output
    data = json.loads((folder / "r.json").read_text(encoding="utf-8"))
    assert data["complete"] is False
    golden = [c for c in data["checks"] if c["id"].startswith("golden:")]
    assert golden and all(c["status"] == "passed" for c in golden)
    assert any(key.startswith("property:") for key in data["not_run"])
    assert all("interrupted" in reason for reason in data["not_run"].values())
    assert "Partial run" in (folder / "r.md").read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_with_a_torch_backend_in_its_thread_does_not_abort(tmp_path: Path) -> None:
    """The reported SIGABRT: a torch computation still running in the daemon worker thread
    while the interpreter shuts down ("terminate called without an active exception")."""
    pytest.importorskip("torch")
    hang = (
        "import torch\n        x = torch.ones(1024, 1024)\n"
        "        while True: x = torch.tanh(x @ x)"
    )
    run, folder = _interrupt_run(tmp_path, hang)
    output = run.stdout + run.stderr
    assert run.returncode == 130, output[-3000:]
    assert "Traceback" not in output and "terminate called" not in output
    assert json.loads((folder / "r.json").read_text(encoding="utf-8"))["complete"] is False


def test_check_api_raises_interrupted_with_the_partial_report() -> None:
    from pespec.sinusoidal.run import Interrupted

    calls = [0]
    reference = load_backend("numpy")

    def interrupts(positions: NDArray[Any], d_model: int, base: float) -> Any:
        return reference(positions, d_model, base)

    def progress(planned: Any, result: Any) -> None:
        calls[0] += result is not None
        if planned.stage == "golden" and result is None:
            raise KeyboardInterrupt

    with pytest.raises(Interrupted) as caught:
        check(interrupts, stages=("contract", "golden"), progress=progress)
    assert isinstance(caught.value, KeyboardInterrupt)
    report = caught.value.report
    assert not report.complete and len(report.checks) == calls[0] == 5
    interrupted = [key for key, why in report.not_run.items() if "interrupted" in why]
    assert interrupted and all(key.startswith("golden:") for key in interrupted)
