"""One client module per library (issue 38, step 5): a library whose adapters have a module
declares its clients there; transformers and diffusers declare all their clients in one module
each (their adapters are shared by kind of call); the catalog still loads without NumPy or a
family."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pespec.clients import diffusers_clients, transformers_clients
from pespec.clients.catalog import CLIENTS
from pespec.clients.equinox_clients import EQUINOX_CLIENTS
from pespec.clients.keras_hub_clients import KERAS_HUB_CLIENTS
from pespec.clients.mlx_clients import MLX_CLIENTS
from pespec.clients.model import Client
from pespec.clients.onnx_clients import ONNX_CLIENTS
from pespec.clients.rotary_embedding_torch_clients import ROTARY_EMBEDDING_TORCH_CLIENTS
from pespec.clients.torchtune_clients import TORCHTUNE_CLIENTS
from pespec.clients.x_transformers_clients import X_TRANSFORMERS_CLIENTS

MODULES = {
    "pespec.clients.mlx_clients": (MLX_CLIENTS, {"mlx", "mlx-lm"}),
    "pespec.clients.torchtune_clients": (TORCHTUNE_CLIENTS, {"torchtune"}),
    "pespec.clients.keras_hub_clients": (KERAS_HUB_CLIENTS, {"keras-hub"}),
    "pespec.clients.onnx_clients": (ONNX_CLIENTS, {"onnx", "onnxruntime"}),
    "pespec.clients.x_transformers_clients": (X_TRANSFORMERS_CLIENTS, {"x-transformers"}),
    "pespec.clients.equinox_clients": (EQUINOX_CLIENTS, {"equinox"}),
    "pespec.clients.rotary_embedding_torch_clients": (
        ROTARY_EMBEDDING_TORCH_CLIENTS,
        {"rotary-embedding-torch"},
    ),
}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_library_module_holds_every_client_of_its_library(module: str) -> None:
    declared, libraries = MODULES[module]
    assert declared and {c.library for c in declared} == libraries
    # every client of those libraries is declared there, and runs that module's adapters
    of_library = [c for c in CLIENTS.values() if c.library in libraries]
    assert sorted(c.name for c in of_library) == sorted(c.name for c in declared)
    assert {c.adapter.partition(":")[0] for c in declared} == {module}
    assert all(CLIENTS[c.name] == c for c in declared)


DECLARING = {
    "transformers": (
        transformers_clients.ROTARY
        + transformers_clients.SURVEY_CLIENTS
        + transformers_clients.SINUSOIDS
        + transformers_clients.RELATIVE
        + transformers_clients.MORE_SINUSOIDS
        + transformers_clients.MULTIAXIS_ROTARY
    ),
    "diffusers": (
        diffusers_clients.SINUSOIDS
        + diffusers_clients.ROTARY
        + diffusers_clients.SINCOS
        + diffusers_clients.MULTIAXIS_ROTARY
        + diffusers_clients.FOURIER
    ),
}


@pytest.mark.parametrize("library", sorted(DECLARING))
def test_one_module_declares_every_client_of_transformers_and_diffusers(library: str) -> None:
    declared: tuple[Client, ...] = DECLARING[library]
    assert declared and {c.library for c in declared} == {library}
    of_library = [c for c in CLIENTS.values() if c.library == library]
    assert sorted(c.name for c in of_library) == sorted(c.name for c in declared)
    assert all(CLIENTS[c.name] == c for c in declared)
    # each declared adapter path resolves to a callable of an importable module
    for adapter in sorted({c.adapter for c in declared}):
        module, _, name = adapter.partition(":")
        assert callable(getattr(pytest.importorskip(module), name)), adapter


def test_loading_the_catalog_imports_no_numpy_and_no_family() -> None:
    code = (
        "import sys, pespec.clients.catalog\n"
        "loaded = [m for m in sys.modules if m == 'numpy' or m.startswith('pespec.rope')]\n"
        "print(loaded)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
