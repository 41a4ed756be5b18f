"""The conformance suite's machinery: backends, robustness, reports, CLI, from-file checks.

The numerical verdicts on real bugs are in test_conformance_catalog.py; here the expected
outcomes are fixed by construction (a backend built to raise must fail contract:shape with
the exception's text, a value corrupted at (p, j) must be reported at p and j, ...).
"""

from __future__ import annotations

import json
import math
import pickle
import sys
import time
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from numpy.typing import NDArray

from pespec.cli import main
from pespec.conformance import (
    BackendLoadError,
    Capabilities,
    check,
    compare_saved_output,
    load_backend,
)
from pespec.conformance import loading as loading_module
from pespec.conformance.compare import REFERENCE_ERROR, compare_blocks
from pespec.conformance.host import to_host
from pespec.conformance.report import REPORT_SCHEMA, REPORT_SCHEMA_VERSION, SUITE_VERSION
from pespec.properties.base import LEVELS
from pespec.reference.encoding import encode

CATALOG = Path(__file__).parent / "catalog"
sys.path.insert(0, str(Path(__file__).parent))

from catalog import misbehaving  # noqa: E402

FAST = {"stages": ("contract",), "diagnose": False}


# ---------------------------------------------------------------------------------------------
# Loading backends


@pytest.mark.parametrize(
    ("spec", "dtype"),
    [
        ("numpy", np.float64),
        ("numpy-float32", np.float32),
        ("numpy-float16", np.float16),
        ("numpy-bfloat16", ml_dtypes.bfloat16),
    ],
)
def test_builtin_numpy_backends_store_their_dtype(spec: str, dtype: Any) -> None:
    backend = load_backend(spec)
    out = backend(np.arange(5, dtype=np.int64), 8, 10000.0)
    assert backend.spec == spec
    assert out.shape == (5, 8)
    assert out.dtype == np.dtype(dtype)
    # Row 0 is sin 0 = 0 and cos 0 = 1 in every format (exactly representable).
    assert out[0].astype(np.float64).tolist() == [0.0, 1.0] * 4


def test_builtin_low_precision_backend_is_float32_work_rounded_once() -> None:
    # numpy-float16 = round(float32 computation): compare with that computation written out.
    positions = np.array([3, 700, 5000], dtype=np.int64)
    omega = (10000.0 ** (-np.arange(0, 16, 2) / 16.0)).astype(np.float32)
    theta = positions.astype(np.float32)[:, None] * omega[None, :]
    out = load_backend("numpy-float16")(positions, 16, 10000.0)
    assert np.array_equal(out[:, 0::2], np.sin(theta).astype(np.float16))
    assert np.array_equal(out[:, 1::2], np.cos(theta).astype(np.float16))


def test_numpy_backend_takes_positions_beyond_the_reference_domain() -> None:
    # The reference accepts |p| <= 2^53; beyond, the float64 level's bound exceeds 1 (SPEC §4)
    # and the backend falls back to the naive formula instead of raising.
    big = np.array([2**53, 2**53 + 1, -(2**53 + 1), 5], dtype=np.int64)
    out = load_backend("numpy")(big, 8, 10000.0)
    assert out.shape == (4, 8) and np.all(np.abs(out) <= 1.0)
    assert np.array_equal(out[[0, 3]], encode(big[[0, 3]], 8, base=10000.0))


def test_jax_not_installed_is_a_load_error_naming_the_fix() -> None:
    # jax is deliberately not installed in the development environment.
    if "jax" in sys.modules or _importable("jax"):
        pytest.skip("jax is installed here; the not-installed path cannot be exercised")
    with pytest.raises(BackendLoadError, match=r"needs jax, which is not installed.*pespec\[jax\]"):
        load_backend("jax")
    assert main(["check", "jax-bfloat16"]) == 2


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def test_unknown_backend_names_what_is_allowed() -> None:
    with pytest.raises(BackendLoadError, match=r"built-in name .*numpy-float16.*got 'nonesuch'"):
        load_backend("nonesuch")
    with pytest.raises(BackendLoadError, match="has no attribute 'missing'"):
        load_backend(f"{CATALOG}/buggy.py:missing")
    with pytest.raises(BackendLoadError, match="importing no_such_module_xyz failed"):
        load_backend("no_such_module_xyz:fn")
    with pytest.raises(BackendLoadError, match="must be a callable"):
        load_backend(f"{CATALOG}/buggy.py:TABLE_ROWS")


def test_module_attr_and_file_specs_load_the_same_function() -> None:
    by_module = load_backend("catalog.buggy:swapped")
    by_file = load_backend(f"{CATALOG}/buggy.py:swapped")
    positions = np.arange(4, dtype=np.int64)
    assert np.array_equal(by_module(positions, 4, 100.0), by_file(positions, 4, 100.0))
    assert by_module.spec == "catalog.buggy:swapped"


def test_entry_point_group_is_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    class FakeEntryPoint:
        name = "vendor-kernel"
        value = "vendor.kernels:pe"

        def load(self) -> Any:
            return misbehaving.float64_claiming_float32

    def entry_points(group: str) -> list[Any]:
        return [FakeEntryPoint()] if group == "pespec.backends" else []

    monkeypatch.setattr(loading_module.importlib.metadata, "entry_points", entry_points)
    backend = load_backend("vendor-kernel")
    assert backend.name == "vendor-kernel"
    assert backend.capabilities.level == "float32"  # read from pespec_capabilities


def test_capabilities_reject_bad_declarations() -> None:
    with pytest.raises(ValueError, match=r"max_d_model must be a positive even int; got 7"):
        Capabilities(max_d_model=7)
    with pytest.raises(ValueError, match="bases"):
        Capabilities(bases=(0.5,))
    with pytest.raises(ValueError, match="level must be"):
        Capabilities(level="float8")
    with pytest.raises(ValueError, match=r"unknown \['max_len'\]"):
        Capabilities.from_mapping({"max_len": 10})


# ---------------------------------------------------------------------------------------------
# Moving results to host


def test_torch_bfloat16_maps_to_ml_dtypes_bfloat16_bit_for_bit() -> None:
    torch = pytest.importorskip("torch")
    values = [0.0, 1.0, -0.5, 0.1, 3.140625, 1e-3]
    tensor = torch.tensor(values, dtype=torch.float32).to(torch.bfloat16)
    host = to_host(tensor)
    assert host.dtype == np.dtype(ml_dtypes.bfloat16)
    # Both round float32 to bfloat16 to nearest-even, so the bits must agree.
    expected = np.array(values, dtype=np.float32).astype(ml_dtypes.bfloat16)
    assert host.view(np.uint16).tolist() == expected.view(np.uint16).tolist()


def test_array_and_dlpack_objects_are_accepted_and_lists_rejected() -> None:
    data = np.arange(6, dtype=np.float32).reshape(2, 3)

    class HasArray:
        def __array__(self, dtype: Any = None, copy: Any = None) -> NDArray[Any]:
            return data

    class HasDlpack:
        def __dlpack__(self, **kwargs: Any) -> Any:
            return data.__dlpack__(**kwargs)

        def __dlpack_device__(self) -> Any:
            return data.__dlpack_device__()

    assert np.array_equal(to_host(HasArray()), data)
    assert np.array_equal(to_host(HasDlpack()), data)
    with pytest.raises(TypeError, match=r"must return an array.*got list"):
        to_host([[0.0]])


# ---------------------------------------------------------------------------------------------
# Robustness: a misbehaving backend fails, the suite never crashes


@pytest.mark.parametrize(
    ("backend", "item", "text"),
    [
        (misbehaving.raises, "shape", "raised RuntimeError: kernel launch failed"),
        (misbehaving.returns_list, "shape", "must return an array"),
        (misbehaving.integer_output, "dtype", "got int64"),
        (misbehaving.mutates_input, "input-unchanged", "became"),
        (misbehaving.non_deterministic, "deterministic", "different outputs"),
        (misbehaving.float64_claiming_float32, "dtype", "must be float32"),
    ],
)
def test_misbehaving_backend_fails_the_right_contract_item(
    backend: Any, item: str, text: str
) -> None:
    report = check(backend, **FAST)  # type: ignore[arg-type]
    assert report.verdict == "non-conformant"
    result = report.get(f"contract:{item}")
    assert result.status == "failed"
    assert text in result.message


@pytest.mark.slow
def test_hung_backend_times_out_and_later_calls_fail_at_once() -> None:
    start = time.perf_counter()
    report = check(
        misbehaving.hangs,
        timeout=0.3,
        stages=("contract", "large"),
        large_sizes=((16, 4), (32, 4)),
        diagnose=False,
    )
    elapsed = time.perf_counter() - start
    assert "did not return within 0.3 s" in report.get("contract:shape").message
    assert "no level to test against: the backend hung" in report.get("large:16x4").message
    forced = check(misbehaving.hangs, level="float64", timeout=0.3, stages=("large",))
    assert "did not return within 0.3 s" in forced.checks[0].message
    assert all("hung in an earlier call" in c.message for c in forced.checks[1:])
    assert report.verdict == "non-conformant"
    assert elapsed < 2.5  # one timeout per suite, not one per call (each call sleeps 3 s)


def test_a_check_that_raises_inside_the_suite_becomes_a_failed_check() -> None:
    # A shape-(n, d) object array passes to_host but breaks arithmetic in the comparison.
    def objects(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        return np.full((positions.shape[0], d_model), None, dtype=object)

    report = check(objects, level="float64", stages=("contract", "large"), large_sizes=((8, 4),))
    assert report.get("large:8x4").status == "failed"
    assert report.get("contract:dtype").status == "failed"


# ---------------------------------------------------------------------------------------------
# The block comparison against the exact reference


def test_large_comparison_locates_a_single_corrupted_element() -> None:
    positions = np.arange(3000, dtype=np.int64)
    output = load_backend("numpy-float32")(positions, 64, 10000.0)
    output[2345, 17] += np.float32(1e-3)  # far above the float32 bound (about 1e-6 here)
    worst = compare_blocks(output, positions, 64, 10000.0, LEVELS["float32"], block_elements=4096)
    assert worst.violations == 1
    assert (worst.position, worst.column) == (2345, 17)
    assert worst.error is not None and worst.error > 9e-4


def test_large_comparison_of_the_reference_with_itself_is_exact() -> None:
    positions = np.arange(0, 2000, dtype=np.int64)
    reference = encode(positions, 32, base=10000.0)
    worst = compare_blocks(reference, positions, 32, 10000.0, LEVELS["float64"])
    assert worst.violations == 0 and worst.max_abs_error == 0.0
    assert worst.bound is not None and worst.bound >= REFERENCE_ERROR


# ---------------------------------------------------------------------------------------------
# Reports


def test_json_report_has_the_versioned_schema(tmp_path: Path) -> None:
    report = check(misbehaving.raises, **FAST)  # type: ignore[arg-type]
    path = tmp_path / "sub" / "report.json"
    report.write_json(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["schema"] == REPORT_SCHEMA and data["schema_version"] == REPORT_SCHEMA_VERSION
    assert data["suite_version"] == SUITE_VERSION and data["spec_version"]
    assert data["verdict"] == "non-conformant" and data["conformant"] is False
    assert data["backend"]["name"] == "raises"
    assert {"device", "libraries", "python", "platform"} <= set(data["execution"])
    assert [c["id"] for c in data["checks"]] == [
        "contract:shape",
        "contract:dtype",
        "contract:finite",
        "contract:deterministic",
        "contract:input-unchanged",
    ]
    assert all(c["status"] == "failed" for c in data["checks"])
    assert data["timestamp"].endswith("+00:00")
    assert not list(path.parent.glob(".*.tmp"))  # atomic write left no temporary file


def test_non_finite_numbers_become_null_in_json() -> None:
    report = check(misbehaving.raises, **FAST)  # type: ignore[arg-type]
    report.checks[0].max_error = math.nan
    report.checks[0].bound = math.inf
    text = report.to_json()  # allow_nan=False: would raise on NaN
    assert json.loads(text)["checks"][0]["max_error"] is None


def test_markdown_report_states_verdict_and_reproductions(tmp_path: Path) -> None:
    report = check(misbehaving.raises, **FAST)  # type: ignore[arg-type]
    path = tmp_path / "report.md"
    report.write_markdown(path)
    text = path.read_text(encoding="utf-8")
    assert "**Verdict: non-conformant**" in text
    assert "| `contract:shape` | failed |" in text
    assert "## Reproductions" in text


# ---------------------------------------------------------------------------------------------
# CLI and from-file


def test_suite_arguments_are_validated() -> None:
    with pytest.raises(ValueError, match=r"large_sizes\[\]\[1\] must be a positive even int"):
        check("numpy", large_sizes=((16, 7),))
    with pytest.raises(ValueError, match="profile must be one of"):
        check("numpy", profile="fast")
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        check("numpy", timeout=0)
    with pytest.raises(ValueError, match="examples must be a positive int"):
        check("numpy", examples=0)


def test_cli_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check"]) == 2
    assert main(["check", "numpy", "--from-file", "x.npy"]) == 2
    assert main(["check", "numpy", "--stages", "contract,nonsense"]) == 2
    assert main(["check", "numpy", "--level", "float8"]) == 2
    assert main(["check", "nonesuch"]) == 2
    err = capsys.readouterr().err
    assert "stages must be a subset" in err and "got 'nonesuch'" in err


def test_cli_non_conformant_exits_1_and_writes_reports(tmp_path: Path) -> None:
    json_path, md_path = tmp_path / "r.json", tmp_path / "r.md"
    spec = f"{CATALOG}/misbehaving.py:raises"
    code = main(
        [
            "check",
            spec,
            "--stages",
            "contract",
            "--json",
            str(json_path),
            "--markdown",
            str(md_path),
        ]
    )
    assert code == 1
    assert json.loads(json_path.read_text())["backend"]["spec"] == spec
    assert "Verdict: non-conformant" in md_path.read_text()


def _saved_float32(tmp_path: Path, n: int = 700, d: int = 32) -> tuple[Path, NDArray[Any]]:
    out = load_backend("numpy-float32")(np.arange(n, dtype=np.int64), d, 10000.0)
    path = tmp_path / "out.npy"
    np.save(path, out)
    return path, out


def test_from_file_npy_conformant_and_corrupted(tmp_path: Path) -> None:
    path, out = _saved_float32(tmp_path)
    assert main(["check", "--from-file", str(path), "--d-model", "32", "--quiet"]) == 0
    out[321, 5] = -out[321, 5] if out[321, 5] != 0 else np.float32(0.5)
    np.save(path, out)
    report = compare_saved_output(np.load(path, allow_pickle=False), np.arange(700), 32)
    reference = report.get("reference:file")
    assert reference.status == "failed"
    assert (reference.worst_position, reference.worst_column) == (321, 5)
    assert main(["check", "--from-file", str(path), "--d-model", "32", "--quiet"]) == 1


def test_from_file_csv_and_npz_with_positions(tmp_path: Path) -> None:
    positions = np.array([0, 7, 1000, 4097], dtype=np.int64)
    values = encode(positions, 8, base=10000.0)
    csv = tmp_path / "out.csv"
    np.savetxt(csv, values, delimiter=",", fmt="%.17g")  # 17 digits: round-trips float64
    args = ["check", "--from-file", str(csv), "--d-model", "8", "--quiet"]
    assert main([*args, "--positions", "0,7,1000,4097"]) == 0
    assert main([*args, "--positions", "0:4"]) == 1  # rows are not positions 0..3
    float32 = tmp_path / "out32.csv"
    low = load_backend("numpy-float32")(positions, 8, 10000.0)
    np.savetxt(float32, low, delimiter=",", fmt="%.9g")  # 9 digits: round-trips float32
    args32 = ["check", "--from-file", str(float32), "--d-model", "8", "--quiet"]
    assert main([*args32, "--positions", "0,7,1000,4097", "--level", "float32"]) == 0
    npz = tmp_path / "out.npz"
    np.savez(npz, encoding=values, positions=positions)
    assert main(["check", "--from-file", str(npz), "--d-model", "8", "--quiet"]) == 0


def test_from_file_refuses_pickles_and_wrong_shapes(tmp_path: Path) -> None:
    # An object array can only be stored as a pickle: write such a .npy by hand (a format
    # 1.0 header declaring dtype object, then the pickled array); loading must refuse it.
    pickled = tmp_path / "obj.npy"
    objects = np.array([{"a": 1}], dtype=object)
    with open(pickled, "wb") as handle:
        np.lib.format.write_array_header_1_0(
            handle, np.lib.format.header_data_from_array_1_0(objects)
        )
        pickle.dump(objects, handle, protocol=3)
    assert main(["check", "--from-file", str(pickled), "--d-model", "2"]) == 2
    path, _ = _saved_float32(tmp_path, n=10, d=8)
    report = compare_saved_output(np.load(path), np.arange(10), 16)
    assert report.get("contract:shape").status == "failed"
    assert not report.conformant


def test_spec_schema_table_names_exactly_the_report_fields() -> None:
    from pespec.conformance.report import _SCHEMA_FIELDS

    report = check(misbehaving.raises, **FAST)  # type: ignore[arg-type]
    documented = {name.strip() for row, _ in _SCHEMA_FIELDS for name in row.split(",")}
    documented = {name.removesuffix("[]") for name in documented}
    assert documented == set(report.to_dict())
    check_fields = next(text for row, text in _SCHEMA_FIELDS if row == "checks[]")
    assert {f.strip() for f in check_fields.split(",")} == set(report.checks[0].to_dict())


def test_torch_cuda_without_a_gpu_is_a_load_error() -> None:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present; the unavailable-device path cannot be exercised")
    with pytest.raises(BackendLoadError, match="torch device 'cuda' is not available"):
        load_backend("torch:cuda")
    assert main(["check", "torch-float16:cuda"]) == 2


@pytest.mark.slow
def test_reproduction_lines_run_and_show_the_failure(tmp_path: Path) -> None:
    import subprocess

    spec = f"{CATALOG}/buggy.py:sqrt_cos"
    report = check(spec, stages=("golden", "property"), examples=2, shrink=False, diagnose=False)
    golden = report.get("golden:tiny-d4-L3")
    assert golden.reproduction is not None and golden.reproduction.startswith("python -c ")
    command = golden.reproduction.removeprefix("python -c ").strip('"')
    run = subprocess.run(
        [sys.executable, "-c", command], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 1, run.stderr  # exit_status=True: past the bound exits 1
    # cos 2 < 0: the reproduction prints the backend's |cos 2| next to the exact cos 2.
    line = next(x for x in run.stdout.splitlines() if x.startswith("position 2 column 1:"))
    assert "exact -0.4161468365471424" in line and "EXCEEDS BOUND" in line
    accuracy = report.get("property:accuracy")
    assert accuracy.status == "failed" and accuracy.reproduction is not None
    command = accuracy.reproduction.removeprefix("python -c ").strip('"')
    run = subprocess.run(
        [sys.executable, "-c", command], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode != 0 and "PropertyViolation" in run.stderr


@pytest.mark.slow
def test_a_raising_backend_shows_no_error_numbers_in_property_rows(tmp_path: Path) -> None:
    # No output means no |error| and no bound: the rows said inf and 0 (a ratio of inf).
    report = check(
        misbehaving.raises,  # type: ignore[arg-type]
        level="float64",
        stages=("property",),
        examples=2,
        shrink=False,
        diagnose=False,
    )
    rows = [c for c in report.checks if c.status == "failed"]
    assert len(rows) >= 8  # every property but low_precision (not applicable at float64)
    for row in rows:
        assert (row.max_error, row.bound, row.ratio) == (None, None, None), row.id
        assert "the backend raised RuntimeError: kernel launch failed" in row.message
        assert "BackendFailure" not in row.message
    for entry in json.loads(report.to_json())["checks"]:
        if entry["status"] == "failed":
            assert (entry["max_error"], entry["bound"], entry["ratio"]) == (None, None, None)
    path = tmp_path / "report.md"
    report.write_markdown(path)
    text = path.read_text(encoding="utf-8")
    for row in rows:
        assert f"| `{row.id}` | failed |  |  |" in text
    assert "| inf |" not in text
