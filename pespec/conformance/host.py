"""A backend's result as a NumPy array in host memory (torch, JAX, DLPack, ``__array__``).

Every backend call goes through :func:`to_host`, so the suite, the diagnosis and the plots
read one kind of array whatever library the backend uses.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Any

import ml_dtypes
import numpy as np
from numpy.typing import NDArray

from pespec.conformance.guard import BACKEND_ERRORS

__all__ = ["to_host"]


def to_host(result: Any) -> NDArray[Any]:
    """A backend's result as a NumPy array in host memory, keeping its dtype.

    torch tensors are detached and copied to the CPU; torch.bfloat16 becomes
    ``ml_dtypes.bfloat16`` (same bits). JAX arrays and ``__array__`` objects go through
    ``np.asarray``; other ``__dlpack__`` objects through ``np.from_dlpack``, and through
    torch (when installed) for what NumPy cannot import (bfloat16). Anything else raises
    TypeError naming what was returned and why it could not be converted.
    """
    if isinstance(result, np.ndarray):
        return result
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(result, torch.Tensor):
        tensor = result.detach().cpu()
        if tensor.dtype == torch.bfloat16:
            array: NDArray[Any] = tensor.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
            return array
        converted: NDArray[Any] = tensor.numpy()
        return converted
    errors: list[str] = []
    if hasattr(result, "__array__"):
        try:
            return np.asarray(result)
        except BACKEND_ERRORS as exc:  # e.g. a bfloat16 array whose __array__ NumPy cannot take
            errors.append(f"__array__: {type(exc).__name__}: {exc}")
    if hasattr(result, "__dlpack__"):
        try:
            return np.from_dlpack(result)
        except BACKEND_ERRORS as exc:  # NumPy imports no bfloat16 DLPack tensor; torch does
            errors.append(f"np.from_dlpack: {type(exc).__name__}: {exc}")
        if importlib.util.find_spec("torch") is not None:
            torch = importlib.import_module("torch")
            try:
                return to_host(torch.from_dlpack(result))
            except BACKEND_ERRORS as exc:
                errors.append(f"torch.from_dlpack: {type(exc).__name__}: {exc}")
    why = f" (converting it failed: {'; '.join(errors)})" if errors else ""
    raise TypeError(
        f"backend must return an array (NumPy, __array__, __dlpack__, torch or JAX) that "
        f"pespec can copy to host memory; got {type(result).__name__}{why}"
    )
