"""More of transformers' sinusoidal position tables as sinusoidal backends (issue 29).

Each builds its model's table for the requested d_model with the modeling file's own function
(as the model's weight init does) and looks rows up: fairseq-style ``get_embedding(num, dim,
padding_idx=1)`` read at row position + 2 (``make_positions``; FSMT, Speech2Text, XGLM,
TrOCR), Marian-style halves (Pegasus ``create_weight``, CTRL ``positional_encoding``) and
XLM-style interleaved (DistilBERT ``create_sinusoidal_embeddings``). base 10000 is fixed by
every one of them; positions are integers in the table.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.clients.model import Client
from pespec.clients.sinusoidal_libraries import PYTHON_LOOP_TABLES

__all__ = ["ADAPTERS", "build"]

ROWS = 512
"""Rows of every table (the smallest max_position_embeddings among these models: TrOCR's)."""


def _module(name: str) -> Any:
    return importlib.import_module(f"transformers.models.{name}.modeling_{name}")


def _rows(table: Any, rows: NDArray[Any]) -> NDArray[Any]:
    torch = importlib.import_module("torch")
    out: NDArray[Any] = table[torch.as_tensor(rows)].detach().cpu().numpy()
    return out


def _fairseq(model: str, attr: str) -> Callable[[NDArray[Any], int, float], NDArray[Any]]:
    def fn(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        offset = 2  # padding_idx 1 + 1: the first token's row (fairseq make_positions)
        make = getattr(_module(model), attr).get_embedding
        table = make(ROWS + offset, d_model, padding_idx=1)
        return _rows(table, np.asarray(positions, dtype=np.int64) + offset)

    fn.pespec_capabilities = _capabilities("fairseq")  # type: ignore[attr-defined]
    return fn


def _capabilities(convention: str, rows: int = ROWS, max_d_model: int = 1024) -> dict[str, Any]:
    return {
        "integer_positions_only": True,
        "non_negative_positions": True,
        "max_position": rows - 1,
        "max_d_model": max_d_model,
        "convention": convention,
        "bases": [10000.0],
    }


@functools.lru_cache(maxsize=PYTHON_LOOP_TABLES)
def _pegasus_table(d_model: int) -> Any:
    """The table, built once per d_model (create_weight loops in Python: seconds a call)."""
    return _module("pegasus").PegasusSinusoidalPositionalEmbedding(ROWS, d_model).create_weight()


def pegasus(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """``PegasusSinusoidalPositionalEmbedding(ROWS, d).create_weight()`` (Marian halves)."""
    return _rows(_pegasus_table(d_model), np.asarray(positions, dtype=np.int64))


pegasus.pespec_capabilities = _capabilities("marian")  # type: ignore[attr-defined]


def ctrl(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """CTRL ``positional_encoding(n_positions 256, d, torch.float32)`` (Marian halves)."""
    torch = importlib.import_module("torch")
    table = _module("ctrl").positional_encoding(256, d_model, torch.float32)
    return _rows(table, np.asarray(positions, dtype=np.int64))


ctrl.pespec_capabilities = _capabilities("marian", rows=256, max_d_model=1280)  # type: ignore[attr-defined]


@functools.lru_cache(maxsize=PYTHON_LOOP_TABLES)
def _distilbert_table(d_model: int) -> Any:
    """The table, built once per d_model (the function loops in Python)."""
    torch = importlib.import_module("torch")
    out = torch.empty(ROWS, d_model, dtype=torch.float32)
    _module("distilbert").create_sinusoidal_embeddings(ROWS, d_model, out)
    return out


def distilbert(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """DistilBERT ``create_sinusoidal_embeddings(ROWS, d, out)`` into float32 (interleaved)."""
    return _rows(_distilbert_table(d_model), np.asarray(positions, dtype=np.int64))


distilbert.pespec_capabilities = _capabilities("canonical")  # type: ignore[attr-defined]

ADAPTERS: dict[str, Callable[[NDArray[Any], int, float], NDArray[Any]]] = {
    "transformers:fsmt": _fairseq("fsmt", "SinusoidalPositionalEmbedding"),
    "transformers:speech_to_text": _fairseq(
        "speech_to_text", "Speech2TextSinusoidalPositionalEmbedding"
    ),
    "transformers:xglm": _fairseq("xglm", "XGLMSinusoidalPositionalEmbedding"),
    "transformers:trocr": _fairseq("trocr", "TrOCRSinusoidalPositionalEmbedding"),
    "transformers:pegasus": pegasus,
    "transformers:ctrl": ctrl,
    "transformers:distilbert": distilbert,
}
"""Client name -> its backend (float32)."""


def build(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter: the backend function of the client."""
    return ADAPTERS[client.name]
