"""Backends from code that builds a whole grid's table, as diffusers and MAE do (SPEC §9.3).

``get_2d_sincos_pos_embed(embed_dim, grid_size, ...)`` takes no positions: it returns the
(H·W, D) table of its grid. :func:`grid_table_backend` turns such a function into a
multi-axis backend for a preset: the table is built once, on the first call, and each
position asked for is looked up among the preset's grid positions (a position off the grid
raises ValueError, which the suite reports as a failed check). A table with the model's
leading rows (MAE's ``cls_token=True``: a row of zeros first, the preset's ``leading_rows``)
is taken with ``leading_rows=True``: those rows must be zeros and are skipped; a table of
any other length than the grid's (plus those rows) is refused when first built.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.host import to_host
from pespec.multiaxis.sinusoidal.presets import Preset, resolve_config

__all__ = ["grid_table_backend"]


def _table(build: Callable[[], Any], chosen: Preset, skip: int, rows: int) -> NDArray[Any]:
    """``build()``'s table without its ``skip`` leading rows (which must be zeros); ValueError
    naming the row counts when its length is not ``skip`` + ``rows``."""
    table = to_host(build())
    if table.ndim != 2 or table.shape[0] != skip + rows:
        extra = f" + {skip} leading row(s)" if skip else ""
        hint = (
            f"; pass leading_rows=True for the model's {chosen.leading_rows} leading row(s)"
            if not skip and chosen.leading_rows and table.shape[0] == rows + chosen.leading_rows
            else ""
        )
        raise ValueError(
            f"the table has shape {table.shape}; the grid of {chosen.name} has {rows} "
            f"rows{extra}{hint}"
        )
    if skip and np.any(table[:skip].astype(np.float64) != 0.0):
        raise ValueError(f"the table's {skip} leading row(s) of {chosen.name} are not zeros")
    return table[skip:]


def grid_table_backend(
    build: Callable[[], Any],
    config: Any,
    *,
    name: str | None = None,
    leading_rows: bool = False,
) -> Callable[[NDArray[Any], Any], NDArray[Any]]:
    """A backend ``(positions (n, k), config) -> (n, D)`` answering from ``build()``, the
    (rows of the grid, D) table of the preset or JSON config ``config`` in the grid's row
    order (last axis fastest); ``leading_rows``: the table starts with the preset's
    ``leading_rows`` rows of zeros (MAE's cls token), skipped."""
    chosen: Preset = resolve_config(config)
    grid = chosen.positions()
    index = {tuple(row): r for r, row in enumerate(grid.tolist())}
    cache: dict[str, NDArray[Any]] = {}
    skip = chosen.leading_rows if leading_rows else 0

    def backend(positions: NDArray[Any], _config: Any) -> NDArray[Any]:
        if "table" not in cache:
            cache["table"] = _table(build, chosen, skip, grid.shape[0])
        rows = []
        for row in np.asarray(positions).tolist():
            found = index.get(tuple(row))
            if found is None:
                raise ValueError(f"position {row} is not on the grid of {chosen.name}")
            rows.append(found)
        return cache["table"][np.asarray(rows, dtype=np.intp)]

    backend.__name__ = str(name or getattr(build, "__name__", None) or "grid_table")
    return backend
