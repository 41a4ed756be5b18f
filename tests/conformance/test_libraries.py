"""The shared parts of built-in backends on optional libraries (pespec.conformance.libraries):
both families' built-in names go through them, so their messages are the same."""

from __future__ import annotations

import pytest

from pespec.conformance.guard import BackendLoadError
from pespec.conformance.libraries import import_optional, library_spec, torch_device
from pespec.rope.backends import load_rope_backend
from pespec.sinusoidal.builtin_backends import builtin_backend


def test_library_spec_splits_and_defaults() -> None:
    assert library_spec("torch") == ("torch", "float32", "")
    assert library_spec("torch-bfloat16:cuda") == ("torch", "bfloat16", "cuda")


@pytest.mark.parametrize("load", [builtin_backend, load_rope_backend])
def test_a_bad_dtype_names_the_spec_and_what_is_allowed(load: object) -> None:
    with pytest.raises(BackendLoadError, match=r"'torch-float8'.*dtype must be one of"):
        load("torch-float8")  # type: ignore[operator]


def test_a_missing_library_says_how_to_install_it() -> None:
    with pytest.raises(BackendLoadError, match=r"needs no_such_lib_xyz.*pip install 'pespec\[x\]'"):
        import_optional("no_such_lib_xyz", "x", "spec")


def test_an_unavailable_torch_device_is_a_load_error() -> None:
    torch = pytest.importorskip("torch")
    with pytest.raises(BackendLoadError, match=r"torch device 'nosuchdevice' is not available"):
        torch_device(torch, "nosuchdevice", "torch:nosuchdevice")
