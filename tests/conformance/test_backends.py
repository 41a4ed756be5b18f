"""Loading backends (pespec.conformance.backends): built-in names, module and file specs,
entry points, capabilities, and moving results to host (torch, __array__, DLPack).

The expected outcomes are fixed by construction (a missing attribute must be named, a
bfloat16 tensor must keep its bits, ...); the numerical verdicts on real bugs are in
test_catalog.py.
"""

from __future__ import annotations

import sys
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from catalog import misbehaving
from numpy.typing import NDArray
from paths import CATALOG

from pespec.cli import main
from pespec.conformance import BackendLoadError, Capabilities, load_backend
from pespec.conformance import loading as loading_module
from pespec.conformance.host import to_host
from pespec.sinusoidal.reference.encoding import encode

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


def test_capabilities_from_a_json_mapping_keep_sequences_as_tuples() -> None:
    """A declaration read from JSON gives lists; each family's sequence fields (the engine's
    one ``from_mapping``) become tuples, hashable and equal to the Python declaration."""
    from pespec.rope.backends import RopeCapabilities, resolve_config

    caps = Capabilities.from_mapping({"bases": [10000, 500000], "max_d_model": 64})
    assert caps == Capabilities(bases=(10000.0, 500000.0), max_d_model=64)
    assert isinstance(caps, Capabilities) and isinstance(caps.bases, tuple)
    rope = RopeCapabilities.from_mapping({"configs": ["Llama-2-7B"], "level": None})
    assert isinstance(rope, RopeCapabilities)
    assert rope.configs == (resolve_config("Llama-2-7B"),)
    with pytest.raises(ValueError, match=r"unknown \['bases'\]"):
        RopeCapabilities.from_mapping({"bases": [10000]})  # a sinusoidal field, not rotary


def test_capabilities_from_a_mapping_refuse_a_string_for_a_sequence_field() -> None:
    """A JSON declaration ``"configs": "Llama-2-7B"`` (one name, not a list) is refused naming
    the field, not split into the characters 'L', 'l', ... (each then an unknown preset)."""
    from pespec.rope.backends import RopeCapabilities

    with pytest.raises(TypeError, match=r"capabilities\['configs'\] must be a list.*'Llama-2-7B'"):
        RopeCapabilities.from_mapping({"configs": "Llama-2-7B"})
    with pytest.raises(TypeError, match=r"capabilities\['bases'\] must be a list.*10000"):
        Capabilities.from_mapping({"bases": 10000})
    with pytest.raises(TypeError, match="capabilities must be a mapping"):
        Capabilities.from_mapping([("bases", [10000])])  # type: ignore[arg-type]


@pytest.mark.slow  # over 25 s with the other core busy (issue 37)
def test_torch_cuda_without_a_gpu_is_a_load_error() -> None:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present; the unavailable-device path cannot be exercised")
    with pytest.raises(BackendLoadError, match="torch device 'cuda' is not available"):
        load_backend("torch:cuda")
    assert main(["check", "torch-float16:cuda"]) == 2


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
