"""Objects that are no backend, and the adapters that make modules backends (issue 12, item 4).

Before: a class or a module instance whose call does not fit ``backend(positions, d_model,
base)`` got "NON-CONFORMANT at level unknown (0 passed, 31 failed)", exit 1. Now it is a
usage error (exit 2) pointing to the adapters, decided by the call signature and by what
the first contract probe returns; :func:`module_backend` and :func:`table_backend` build a
module or table once per (d_model, base).
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from numpy.typing import NDArray

from pespec.cli import main
from pespec.conformance import (
    BackendLoadError,
    CallProtocolError,
    check,
    load_backend,
    module_backend,
    table_backend,
)
from pespec.sinusoidal.reference.encoding import encode

GOLDEN = ("contract", "golden")

NUMPY_MODULES = '''\
import numpy as np
from pespec.sinusoidal.reference.encoding import encode


class Table:
    """A table of max_len rows built for one d_model (no __call__ at all); its constructor
    takes three arguments, so only the first call shows that it is no backend."""

    def __init__(self, d_model, dropout=0.1, max_len=5000):
        self.table = encode(np.arange(max_len), d_model)


class SmallTable:
    """The same with a constructor that cannot take (positions, d_model, base)."""

    def __init__(self, d_model, max_len=5000):
        self.table = encode(np.arange(max_len), d_model)


class AddsToEmbeddings:
    """A module-like object whose call takes embeddings."""

    def __init__(self, d_model):
        self.table = encode(np.arange(64), d_model)

    def __call__(self, x):
        return x + self.table[: x.shape[0]]


adds = AddsToEmbeddings(16)


class Encoder:
    """A callable object with the backend's signature: a valid backend."""

    def __call__(self, positions, d_model, base):
        return encode(positions, d_model, base=base)


encoder = Encoder()
'''


@pytest.fixture
def modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "my_pe.py").write_text(NUMPY_MODULES, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("attribute", "why"),
    [
        ("Table", "it is a class, and calling Table(positions, d_model, base) constructs one"),
        ("SmallTable", "its call takes (d_model, max_len=5000) (class)"),
        ("adds", "its call takes (x) (AddsToEmbeddings)"),
    ],
)
def test_an_object_that_is_no_backend_exits_2(
    modules: Path, attribute: str, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["check", f"my_pe.py:{attribute}", "--json", "r.json"])
    err = capsys.readouterr().err
    assert code == 2, err  # was 1: NON-CONFORMANT at level unknown (0 passed, 31 failed)
    assert "does not fit the calling convention backend(positions, d_model, base)" in err
    assert why in err
    assert "'Adapting a module' in docs/guide.md" in err
    assert not (modules / "r.json").exists()


def test_the_api_raises_call_protocol_error(modules: Path) -> None:
    with pytest.raises(CallProtocolError, match="it is a class") as caught:
        check("my_pe.py:Table", stages=GOLDEN)
    assert isinstance(caught.value, BackendLoadError)
    with pytest.raises(CallProtocolError, match=r"takes \(x\)"):
        load_backend("my_pe.py:adds")


@pytest.mark.slow
def test_a_callable_object_with_the_right_signature_is_a_backend(modules: Path) -> None:
    assert check("my_pe.py:encoder", stages=GOLDEN).conformant


def test_a_function_returning_none_is_still_a_verdict() -> None:
    """A forgotten return is a wrong backend, not a misuse: non-conformant, not exit 2."""

    def forgot_return(positions: NDArray[Any], d_model: int, base: float) -> None:
        encode(positions, d_model, base=base)

    report = check(forgot_return, stages=GOLDEN)
    assert not report.conformant
    assert "got NoneType" in report.get("contract:shape").message


@pytest.mark.slow
def test_the_plugin_stops_with_a_usage_error_for_a_class(modules: Path) -> None:
    command = [sys.executable, "-m", "pytest", "--pyargs", "pespec.conformance", "-q"]
    command += ["-p", "no:cacheprovider", "--pe-backend", "my_pe.py:Table"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 4, run.stdout[-2000:] + run.stderr[-2000:]
    assert "does not fit the calling convention" in run.stdout + run.stderr


# --- the adapters ------------------------------------------------------------------------------


def _counting_table(builds: list[tuple[int, float]]) -> Any:
    def build(d_model: int, base: float) -> NDArray[np.float64]:
        builds.append((d_model, base))
        return encode(np.arange(6000), d_model, base=base)[None]  # (1, rows, d) like a buffer

    return build


@pytest.mark.slow
def test_table_backend_builds_once_per_configuration() -> None:
    builds: list[tuple[int, float]] = []
    calls: list[tuple[int, float]] = []
    backend = table_backend(_counting_table(builds), rows=5000, bases=None)
    inner = backend.fn

    def counted(positions: NDArray[Any], d_model: int, base: float) -> Any:
        calls.append((d_model, base))
        return inner(positions, d_model, base)

    backend.fn = counted
    report = check(backend, stages=GOLDEN)
    assert report.conformant, report.summary()
    runs = 1 + sum(a != b for a, b in itertools.pairwise(calls))  # runs of one configuration
    assert len(builds) <= runs < len(calls)  # at most one build per run, not one per call
    caps = report.capabilities
    assert caps["integer_positions_only"] and caps["non_negative_positions"]
    assert caps["max_position"] == 4999 and caps["bases"] is None


def test_table_backend_keeps_only_the_last_tables() -> None:
    builds: list[tuple[int, float]] = []
    backend = table_backend(_counting_table(builds), rows=10, cache_size=1)
    positions = np.arange(3)
    for d_model in (4, 8, 4, 4):
        assert np.array_equal(backend(positions, d_model, 10000.0), encode(positions, d_model))
    assert builds == [(4, 10000.0), (8, 10000.0), (4, 10000.0)]


def test_table_backend_rejects_bad_arguments_and_tables() -> None:
    with pytest.raises(ValueError, match="rows must be a positive int; got 0"):
        table_backend(_counting_table([]), rows=0)
    with pytest.raises(TypeError, match="build must be a callable"):
        table_backend("nope", rows=3)  # type: ignore[arg-type]
    short = table_backend(lambda d, b: np.zeros((3, d)), rows=10)
    with pytest.raises(ValueError, match=r"table of shape \(>= 10, 4\); got \(3, 4\)"):
        short(np.arange(2), 4, 10000.0)


class _NumpyModule:
    """A module-like object built for one (d_model, base) with an ``encode`` method."""

    built: ClassVar[list[tuple[int, float]]] = []

    def __init__(self, d_model: int, base: float) -> None:
        _NumpyModule.built.append((d_model, base))
        self.d_model, self.base = d_model, base

    def encode(self, positions: NDArray[Any]) -> NDArray[np.float64]:
        return encode(positions, self.d_model, base=self.base)


def test_module_backend_builds_once_per_configuration() -> None:
    _NumpyModule.built = []
    report = check(module_backend(_NumpyModule, method="encode", cache_size=64), stages=GOLDEN)
    assert report.conformant, report.summary()
    assert len(_NumpyModule.built) == len(set(_NumpyModule.built))  # never built twice


def test_module_backend_with_a_torch_module() -> None:
    torch = pytest.importorskip("torch")

    class Encoding(torch.nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self, d_model: int, base: float) -> None:
            super().__init__()
            exponent = torch.arange(0, d_model, 2, dtype=torch.float64) / d_model
            self.register_buffer("inv_freq", base**-exponent)

        def forward(self, positions: Any) -> Any:
            assert isinstance(positions, torch.Tensor)  # the adapter passes a tensor
            theta = positions.to(torch.float64)[:, None] * self.inv_freq[None, :]
            return torch.stack([torch.sin(theta), torch.cos(theta)], dim=-1).flatten(1)[None]

    backend = module_backend(Encoding)
    positions = np.array([0, 1, 1000, 5])
    out = backend(positions, 8, 10000.0)
    assert out.shape == (4, 8)  # the leading batch axis of 1 is dropped
    assert np.max(np.abs(out - encode(positions, 8))) < 1e-12
    with pytest.raises(CallProtocolError, match=r"its forward takes \(x"):
        load_backend(_TorchAddsToEmbeddings.make(torch))


class _TorchAddsToEmbeddings:
    @staticmethod
    def make(torch: Any) -> Any:
        class AddsToEmbeddings(torch.nn.Module):  # type: ignore[misc,name-defined]
            def forward(self, x: Any) -> Any:
                return x

        return AddsToEmbeddings()
