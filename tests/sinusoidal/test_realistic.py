"""The suite on realistic backends: the tutorial ``PositionalEncoding`` module (tests/catalog/
tutorial.py) adapted to pespec's calling convention, in float32, in a float16/bfloat16 model
(angles in the model dtype: the keras-hub/HF bug) and cast from float32 (correct); the same
computation in NumPy, so that the regressions run without torch too. Around them, what a
backend author meets: reproduction lines that must run when pasted, partial runs (stages,
skip files) that must say so, a backend that is non-deterministic only sometimes, results
exposing only DLPack, a batched output, an unwritable report path.

Expected outcomes are facts about how each backend is built (a table of 5000 rows cannot
serve position 12345; a float16 model forms its angles in float16), not the suite's output.
Each run is small (contract and golden stages), so every test takes a few seconds.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pespec.conformance import check

# This file is also a backend (wrong_at_d768), loaded by path in a fresh pytest process that
# has none of this project's pytest settings: it puts tests/ on sys.path itself.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from catalog import tutorial
from paths import TESTS
from pluginrun import run_plugin

FAST: dict[str, Any] = {"stages": ("contract", "golden")}


def _python_c(command: str, cwd: Path = TESTS) -> subprocess.CompletedProcess[str]:
    """Run a reproduction line ``python -c "..."`` as pasted in a shell in ``cwd``."""
    assert command.startswith('python -c "') and command.endswith('"'), command
    code = command.removeprefix('python -c "').removesuffix('"')
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=cwd,
    )


def test_tutorial_table_declaring_its_capabilities_is_conformant() -> None:
    report = check(tutorial.numpy_float32_declared, **FAST)
    assert report.conformant, report.summary()
    assert report.level == "float32"
    # Declared: bases [10000] and non-negative positions below 5000; the narrowing says why.
    assert "bases [10000.0]" in report.get("golden:base-100-d128").message
    negative = report.get("golden:negative-d64")
    assert negative.status == "skipped" and "inside the declared capabilities" in negative.message
    assert report.get("golden:transformer-d512-L5000").status == "passed"  # rows 0..4999


def _torch(name: str) -> Any:
    pytest.importorskip("torch")
    return getattr(tutorial, name)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "dtype"),
    [
        ("numpy_float16_model", "float16"),
        ("numpy_bfloat16_model", "bfloat16"),
        ("torch_float16_model", "float16"),
        ("torch_bfloat16_model", "bfloat16"),
    ],
)
def test_model_dtype_table_is_diagnosed_as_low_precision_angles(name: str, dtype: str) -> None:
    """A table built in the model dtype forms p·ω in that dtype: non-conformant, and the
    diagnosis names the dtype. Its declared max_position (4999) bounds the diagnosis probes,
    so no "departure" is reported at positions the table does not have."""
    backend = _torch(name) if name.startswith("torch") else getattr(tutorial, name)
    report = check(backend, **FAST)
    assert not report.conformant
    assert report.level == dtype  # the output dtype's default level
    assert report.diagnosis is not None and report.diagnosis_sentence is not None
    assert report.diagnosis["working_precision"] == dtype
    assert report.diagnosis["departs_from_position"] is None, report.diagnosis_sentence
    assert f"angles computed in {dtype} at every stage" in report.diagnosis_sentence
    assert "departs" not in report.diagnosis_sentence
    # bases [10000] declared: no probe at another base, so a table that ignores ``base``
    # is not reported as "base fixed at ... whatever base is requested".
    assert report.diagnosis_sentence.startswith("Output follows the canonical convention")
    # The backend is importable, so its reproductions run when pasted (from tests/).
    failed = next(c for c in report.failed if c.stage == "golden")
    assert failed.reproduction is not None and "catalog.tutorial:" in failed.reproduction
    run = _python_c(failed.reproduction)
    assert run.returncode == 1, run.stderr  # the line exits 1 when an element exceeds its bound
    assert "EXCEEDS BOUND" in run.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "dtype"), [("torch_float16_cast", "float16"), ("torch_bfloat16_cast", "bfloat16")]
)
def test_float32_table_cast_to_half_precision_is_conformant(name: str, dtype: str) -> None:
    report = check(_torch(name), **FAST)
    assert report.conformant, report.summary()
    assert report.level == dtype


@pytest.mark.slow
def test_contract_reproduction_calls_the_probe_that_failed() -> None:
    """Without capabilities the table is asked for fractional position 12345.5 (the second
    contract probe) and raises IndexError; the integer probe 0..47 works. The reproduction
    must make the failing call, not the working one."""
    report = check(tutorial.numpy_float32, stages=("contract",), diagnose=False)
    shape = report.get("contract:shape")
    assert shape.status == "failed" and "IndexError" in shape.message
    assert shape.reproduction is not None and "12345.5" in shape.reproduction
    run = _python_c(shape.reproduction)
    assert run.returncode != 0
    assert "IndexError" in run.stderr and "12345" in run.stderr


def test_reproductions_of_a_callable_defined_in_a_session_run_with_it_bound(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A closure cannot be rebuilt in a fresh interpreter: its reproductions are Python lines
    that run where ``backend`` is the checked callable (they used to be ``python -c``
    commands naming an undefined ``backend``)."""

    def session_backend(positions: Any, d_model: int, base: float) -> Any:
        out = tutorial.numpy_float32_declared(positions, d_model, base).copy()
        out[:, 1] = np.abs(out[:, 1])  # |cos|: wrong where cos p < 0, e.g. p = 2
        return out

    session_backend.pespec_capabilities = dict(tutorial.TABLE_CAPABILITIES)  # type: ignore[attr-defined]
    report = check(session_backend, stages=("golden",), diagnose=False)
    tiny = report.get("golden:tiny-d4-L3")
    assert tiny.status == "failed" and tiny.worst_position == 2 and tiny.worst_column == 1
    assert tiny.reproduction is not None and not tiny.reproduction.startswith("python -c")
    namespace = {"backend": session_backend}
    exec(tiny.reproduction, namespace)  # the line the report tells users to run
    printed = capsys.readouterr().out
    line = next(x for x in printed.splitlines() if x.startswith("position 2 column 1:"))
    assert "exact -0.4161468365471424" in line and "EXCEEDS BOUND" in line  # cos 2


def wrong_at_d768(positions: Any, d_model: int, base: float) -> Any:
    """The declared float32 table, with column 5 (cos of pair 2) zeroed at d_model = 768:
    wrong at every position (|cos θ| = 1 at p = 0), so only golden:gpt2-d768-L1024 fails."""
    out = tutorial.numpy_float32_declared(positions, d_model, base).copy()
    if d_model == 768:
        out[:, 5] = 0.0
    return out


wrong_at_d768.pespec_capabilities = dict(tutorial.TABLE_CAPABILITIES)  # type: ignore[attr-defined]


@pytest.mark.slow
def test_a_check_skipped_by_a_skip_file_is_listed_as_not_run(tmp_path: Path) -> None:
    """pytest --pe-skip-file: the skipped failing check must not vanish from the verdict."""
    import json

    assert not check(wrong_at_d768, **FAST).conformant  # the whole golden stage fails it
    skip = tmp_path / "skip.txt"
    skip.write_text("golden:gpt2-d768-L1024  # known bug\n", encoding="utf-8")
    report_path = tmp_path / "report.json"
    run = run_plugin(
        f"{Path(__file__)}:wrong_at_d768",
        "--pe-stages",
        "contract,golden",
        "--pe-skip-file",
        str(skip),
        "--pe-json",
        str(report_path),
    )
    assert run.returncode == 0, run.stdout[-2000:]  # pytest semantics: a skip is not a failure
    data = json.loads(report_path.read_text(encoding="utf-8"))
    assert data["complete"] is False
    assert "skip" in data["not_run"]["golden:gpt2-d768-L1024"]
    assert set(data["not_run"]) == {"golden:gpt2-d768-L1024", "property:*", "large:*"}
    assert "PARTIAL RUN" in data["summary"] and "PARTIAL RUN" in run.stdout
    assert "golden:gpt2-d768-L1024" not in {c["id"] for c in data["checks"]}


class GlitchOnce:
    """numpy-float32, except that call number ``glitch`` (1-based) adds 0.5 to element
    [0, 0]: a backend that is non-deterministic only sometimes (a race, an uninitialised
    buffer)."""

    def __init__(self, glitch: int) -> None:
        from pespec.conformance import load_backend

        self.inner = load_backend("numpy-float32")
        self.glitch = glitch
        self.calls = 0

    def __call__(self, positions: Any, d_model: int, base: float) -> Any:
        self.calls += 1
        out = np.array(self.inner(positions, d_model, base), copy=True)
        if self.calls == self.glitch:
            out[0, 0] += np.float32(0.5)
        return out


@pytest.mark.slow
def test_a_property_failure_that_does_not_repeat_is_reported_as_non_determinism() -> None:
    """The third call (an accuracy example) is off by 0.5; Hypothesis re-runs the example,
    which passes. The check must fail saying the backend is not deterministic, with the first
    failure's numbers (it used to be 'check raised FlakyFailure' with Hypothesis internals)."""
    report = check(GlitchOnce(3), level="float32", stages=("property",), examples=3, diagnose=False)
    accuracy = report.get("property:accuracy")
    assert accuracy.status == "failed"
    assert accuracy.message.startswith("the backend is not deterministic"), accuracy.message
    assert "accuracy (SPEC §5.1) violated" in accuracy.message
    assert accuracy.max_error is not None and accuracy.max_error >= 0.49
    assert accuracy.reproduction is not None and "prop_accuracy" in accuracy.reproduction


def test_diagnosis_of_an_output_that_changes_between_identical_calls() -> None:
    """The second call (the repeat of the first fit probe) differs by 0.5 at position 0: the
    diagnosis says so instead of fitting a precision to a glitch."""
    from pespec.sinusoidal.diagnosis import diagnose
    from pespec.sinusoidal.properties.base import parse_level

    diagnosis = diagnose(GlitchOnce(2), level=parse_level("float32"))
    assert diagnosis.non_deterministic is not None
    assert diagnosis.non_deterministic["max_difference"] == pytest.approx(0.5, rel=1e-6)
    assert (diagnosis.non_deterministic["position"], diagnosis.non_deterministic["column"]) == (
        0.0,
        0,
    )
    assert diagnosis.sentence().startswith("Output is not deterministic")
    assert diagnosis.convention is None and not diagnosis.explained
    # A deterministic backend is unaffected: the repeat of each fit probe agrees.
    assert diagnose(GlitchOnce(0), level=parse_level("float32")).non_deterministic is None


def test_diagnosis_of_a_batched_output_says_why_nothing_was_fitted() -> None:
    """x + pe[:, :n] returns (1, n, d): every probe has the wrong shape, and the sentence
    says so instead of only 'matches no known convention'."""
    from pespec.conformance import load_backend

    reference = load_backend("numpy-float32")

    def batched(positions: Any, d_model: int, base: float) -> Any:
        return reference(positions, d_model, base)[None]

    report = check(batched, stages=("contract",))
    assert report.diagnosis_sentence is not None
    assert "(1, 129, 64), expected (129, 64)" in report.diagnosis_sentence
    assert "a leading batch axis of 1?" in report.get("contract:shape").message


@pytest.mark.slow
def test_closest_candidates_are_distinct() -> None:
    """Row 17, column 10 off by 0.5 in every call: the fit is exactly canonical but does
    not explain that element, and the closest candidates (fit, then presets) are listed once
    each (the fit and the canonical preset used to be listed as two 'canonical' entries)."""
    from pespec.conformance import load_backend

    reference = load_backend("numpy")

    def one_wrong_element(positions: Any, d_model: int, base: float) -> Any:
        out = np.array(reference(positions, d_model, base), copy=True)
        out[np.asarray(positions) == 17, 10] += 0.5
        return out

    report = check(one_wrong_element, stages=("golden",))
    assert report.diagnosis is not None and not report.diagnosis["explained"]
    listed = [c["convention"] for c in report.diagnosis["candidates"]]
    assert len(listed) >= 2 and all(listed[i] not in listed[:i] for i in range(len(listed)))
    presets = [c["preset"] for c in listed]
    assert presets[0] == "canonical" and presets.count("canonical") == 1


def test_an_undeclared_table_is_diagnosed_as_integer_positions_only() -> None:
    """The tutorial table truncates fractional positions (index = position.long()) and has
    5000 rows: the diagnosis says both instead of 'matches no known convention'. It also
    hard-codes 10000 (and, undeclared, is asked for base 500): issue 12 has the sentence say
    so instead of calling it canonical."""
    report = check(tutorial.numpy_float32, stages=("contract",))
    assert report.diagnosis is not None and report.diagnosis["explained"]
    assert report.diagnosis["explained_at_integers_only"] is True
    assert report.diagnosis["convention"]["base_follows_argument"] is False
    sentence = report.diagnosis_sentence or ""
    assert sentence.startswith(
        "Output follows the canonical convention computed in float32, but with the base fixed "
        "at 10000 whatever base is requested"
    )
    assert "only at integer positions" in sentence
    assert "declare integer_positions_only" in sentence
    # The 5000-row table raises beyond its last row; the first such probe is 3·2^11 + 1.
    assert report.diagnosis["departs_from_position"] == 6145
    assert "on the backend fails" in sentence


class DLPackOnly:
    """A foreign array exposing only the DLPack protocol (no __array__)."""

    def __init__(self, tensor: Any) -> None:
        self._tensor = tensor

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self._tensor.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self) -> Any:
        return self._tensor.__dlpack_device__()


def test_bfloat16_result_exposing_only_dlpack_is_read() -> None:
    """NumPy imports no bfloat16 DLPack tensor; the suite goes through torch, keeping the
    bits (the float32 reference cast to bfloat16 is conformant at bfloat16). It used to fail
    with 'the backend raised RuntimeError: Unsupported dtype in DLTensor'."""
    torch = pytest.importorskip("torch")

    def dlpack_bfloat16(positions: Any, d_model: int, base: float) -> Any:
        values = tutorial.numpy_float32(positions, d_model, base)
        return DLPackOnly(torch.from_numpy(values).to(torch.bfloat16))

    dlpack_bfloat16.pespec_capabilities = dict(tutorial.TABLE_CAPABILITIES)  # type: ignore[attr-defined]
    report = check(dlpack_bfloat16, **FAST)
    assert report.conformant, report.summary()
    assert report.level == "bfloat16"


def test_a_result_that_cannot_be_converted_is_not_blamed_on_the_backend_raising() -> None:
    class Unconvertible:
        def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
            raise ValueError("device memory is not mapped")

    def backend(positions: Any, d_model: int, base: float) -> Any:
        return Unconvertible()

    shape = check(backend, stages=("contract",), diagnose=False).get("contract:shape")
    assert shape.status == "failed"
    assert "the backend raised" not in shape.message
    assert "got Unconvertible" in shape.message and "device memory is not mapped" in shape.message


def test_markdown_fences_a_python_reproduction_as_python() -> None:
    """A session callable's reproduction is Python, not a shell command."""

    def swapped(positions: Any, d_model: int, base: float) -> Any:
        return tutorial.numpy_float32_declared(positions, d_model, base)[:, ::-1].copy()

    swapped.pespec_capabilities = dict(tutorial.TABLE_CAPABILITIES)  # type: ignore[attr-defined]
    report = check(swapped, stages=("golden",), diagnose=False)
    text = report.to_markdown()
    failed = report.get("golden:tiny-d4-L3")
    assert failed.reproduction is not None
    assert f"```python\n{failed.reproduction}\n```" in text
    assert "```bash" not in text


@pytest.mark.slow
def test_reproduction_of_a_relative_file_spec_keeps_the_spec_as_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue #12 item 12: a reproduction names the spec as the user gave it (no absolute
    local path), runs from the folder the check ran in, and exits 1 past the bound."""
    monkeypatch.chdir(TESTS)
    report = check("catalog/tutorial.py:numpy_float16_model", stages=("golden",), diagnose=False)
    failed = report.failed[0]
    assert failed.reproduction is not None
    assert "'catalog/tutorial.py:numpy_float16_model'" in failed.reproduction
    assert str(TESTS) not in failed.reproduction
    run = _python_c(failed.reproduction, cwd=TESTS)
    assert run.returncode == 1, run.stderr
    assert "EXCEEDS BOUND" in run.stdout


def test_report_level_is_the_level_tested_not_the_backends_dtype() -> None:
    """A float64 output claiming float16@float64 fails contract:dtype; the report's level
    object must still describe float16@float64 (output float16), and the backend's own
    output dtype stays under backend.output_dtype."""
    from pespec.conformance import load_backend

    reference = load_backend("numpy")

    def claims_float16(positions: Any, d_model: int, base: float) -> Any:
        return reference(positions, d_model, base)

    claims_float16.pespec_capabilities = {"level": "float16@float64"}  # type: ignore[attr-defined]
    report = check(claims_float16, stages=("contract",), diagnose=False)
    assert report.get("contract:dtype").status == "failed"
    data = report.to_dict()
    assert data["level"] == {  # one level shape for both families (schema 1.3, issue 25)
        "name": "float16@float64",
        "stages": {"working": "float64", "output": "float16"},
        "output_dtype": "float16",
        "working_dtype": "float64",
    }
    assert data["backend"]["output_dtype"] == "float64"
    assert (
        "(output float16, the level assumes working precision float64; the backend returned "
        "float64)"
    ) in report.to_markdown()


def test_a_non_conformant_run_without_failures_is_not_diagnosed() -> None:
    """Only the contract ran and passed: non-conformant (no golden check passed) with
    nothing to explain; the diagnosis used to call the backend again and report 'the
    failure is neither a different convention nor a lower working precision'."""
    calls = []

    def counted(positions: Any, d_model: int, base: float) -> Any:
        calls.append(d_model)
        return tutorial.numpy_float32_declared(positions, d_model, base)

    counted.pespec_capabilities = dict(tutorial.TABLE_CAPABILITIES)  # type: ignore[attr-defined]
    report = check(counted, stages=("contract",))
    assert not report.conformant and not report.failed
    assert report.diagnosis is None and report.diagnosis_sentence is None
    assert len(calls) == 2  # the contract's one integer probe, twice; no diagnosis probes


@pytest.mark.slow
def test_plugin_report_path_that_cannot_be_written_is_a_usage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    run = run_plugin("numpy", "--pe-stages", "contract", "--pe-json", str(blocker / "report.json"))
    assert run.returncode == 4, run.stdout[-2000:] + run.stderr[-2000:]  # USAGE_ERROR
    assert "cannot write the report" in run.stderr
    assert "Traceback" not in run.stdout + run.stderr


def test_diagnosis_calls_stay_within_the_declared_bases() -> None:
    called: set[float] = set()

    def table(positions: Any, d_model: int, base: float) -> Any:
        called.add(float(base))
        return tutorial.numpy_bfloat16_model(positions, d_model, base)

    table.pespec_capabilities = dict(tutorial.TABLE_CAPABILITIES)  # type: ignore[attr-defined]
    report = check(table, **FAST)
    assert report.diagnosis is not None and report.diagnosis["working_precision"] == "bfloat16"
    assert called == {10000.0}


def test_torch_result_requiring_grad_is_read() -> None:
    """A module's output is usually part of an autograd graph (requires_grad); .numpy() on it
    raises, so the suite must detach it."""
    torch = pytest.importorskip("torch")

    def with_grad(positions: Any, d_model: int, base: float) -> Any:
        table = torch.from_numpy(tutorial.numpy_float32_declared(positions, d_model, base))
        weight = torch.ones((), requires_grad=True)
        return table * weight  # a non-leaf tensor in a graph

    with_grad.pespec_capabilities = dict(tutorial.TABLE_CAPABILITIES)  # type: ignore[attr-defined]
    report = check(with_grad, **FAST)
    assert report.conformant, report.summary()
