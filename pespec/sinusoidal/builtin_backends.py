"""The built-in backends: ``numpy[-DTYPE]``, ``torch[-DTYPE][:DEVICE]``, ``jax[-DTYPE]``.

``numpy`` is the float64 reference; ``numpy-float32``, ``numpy-float16`` and
``numpy-bfloat16`` compute in float32 and store in that dtype; the torch and JAX ones need
those libraries installed (the message names the extra to install).
"""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.backends import Backend
from pespec.conformance.guard import BackendLoadError
from pespec.conformance.libraries import import_optional, library_spec, torch_device
from pespec.numerics.formats import DTYPES

__all__ = ["BUILTIN_BACKENDS", "REFERENCE_MAX_POSITION", "builtin_backend"]

REFERENCE_MAX_POSITION = 2.0**53
"""Largest |position| the float64 reference (:func:`pespec.sinusoidal.reference.encoding.encode`)
takes."""

_CHUNK_ELEMENTS = 1 << 21
"""Elements per block when a built-in backend fills its output (16 MiB of float64)."""


def _rows_per_block(d_model: int) -> int:
    return max(1, _CHUNK_ELEMENTS // max(d_model, 1))


def _numpy_float64(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """The float64 reference (:func:`pespec.sinusoidal.reference.encoding.encode`), block by block.

    Positions beyond the reference's domain |p| ≤ 2^53 go through the naive float64 formula:
    there the float64 level's bound exceeds 1 (SPEC §4), so any value in [−1, 1] conforms.
    """
    from pespec.sinusoidal.reference.encoding import encode
    from pespec.sinusoidal.reference.naive import naive_encode

    out = np.empty((positions.shape[0], d_model), dtype=np.float64)
    step = _rows_per_block(d_model)
    for start in range(0, positions.shape[0], step):
        block = positions[start : start + step]
        if block.dtype.kind == "f":
            inside = np.abs(block) <= REFERENCE_MAX_POSITION
        else:  # exact integer comparison: 2^53 + 1 must not round down to 2^53
            inside = np.abs(block) <= int(REFERENCE_MAX_POSITION)
        if inside.all():
            out[start : start + step] = encode(block, d_model, base=base)
            continue
        rows = out[start : start + step]
        rows[inside] = encode(block[inside], d_model, base=base)
        rows[~inside] = naive_encode(block[~inside], d_model, base=base)
    return out


def _numpy_low_precision(dtype: np.dtype[Any]) -> Callable[[NDArray[Any], int, float], Any]:
    """A backend computing in float32 and storing in ``dtype``.

    ω_i = base^(−2i/d) is taken from the float64 reference and rounded to float32; the
    position is rounded to float32, θ = p·ω_i, sin θ and cos θ are formed in float32 and
    rounded to ``dtype``. Filled in blocks of rows so that memory stays bounded.
    """

    def encode_low(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        from pespec.sinusoidal.reference.encoding import frequencies

        omega = frequencies(d_model, base).astype(np.float32)
        out = np.empty((positions.shape[0], d_model), dtype=dtype)
        step = _rows_per_block(d_model)
        for start in range(0, positions.shape[0], step):
            p = positions[start : start + step].astype(np.float32)
            theta = p[:, None] * omega[None, :]
            out[start : start + step, 0::2] = np.sin(theta).astype(dtype)
            out[start : start + step, 1::2] = np.cos(theta).astype(dtype)
        return out

    return encode_low


def _numpy_backend(dtype_name: str) -> Backend:
    libraries = {"numpy": np.__version__}
    if dtype_name == "float64":
        return Backend("numpy", _numpy_float64, spec="numpy", libraries=libraries)
    name = f"numpy-{dtype_name}"
    if dtype_name == "bfloat16":
        libraries["ml_dtypes"] = importlib.metadata.version("ml_dtypes")
    return Backend(name, _numpy_low_precision(DTYPES[dtype_name]), spec=name, libraries=libraries)


# ---------------------------------------------------------------------------------------------
# torch and JAX backends (optional libraries)


def _torch_backend(dtype_name: str, device: str, spec: str) -> Backend:
    """torch: θ = p·ω in float32 on ``device`` (float64 for torch-float64), stored in the dtype."""
    torch = import_optional("torch", "torch", spec)
    on_device = torch_device(torch, device, spec)
    out_dtype = getattr(torch, dtype_name)
    work_dtype = torch.float64 if dtype_name == "float64" else torch.float32

    def encode_torch(positions: NDArray[Any], d_model: int, base: float) -> Any:
        from pespec.sinusoidal.reference.encoding import frequencies

        omega = torch.from_numpy(frequencies(d_model, base)).to(work_dtype).to(on_device)
        p = torch.from_numpy(np.array(positions, copy=True)).to(on_device).to(work_dtype)
        theta = torch.outer(p, omega)
        out = torch.empty((p.shape[0], d_model), dtype=out_dtype, device=on_device)
        out[:, 0::2] = torch.sin(theta).to(out_dtype)
        out[:, 1::2] = torch.cos(theta).to(out_dtype)
        return out

    return Backend(
        spec,
        encode_torch,
        device=str(on_device),
        spec=spec,
        libraries={"torch": torch.__version__},
    )


def _jax_backend(dtype_name: str, spec: str) -> Backend:
    """JAX: θ = p·ω in float32 (float64 needs jax_enable_x64), stored in the dtype."""
    jax = import_optional("jax", "jax", spec)
    jnp = importlib.import_module("jax.numpy")
    out_dtype = DTYPES[dtype_name]
    work = np.float64 if dtype_name == "float64" else np.float32

    def encode_jax(positions: NDArray[Any], d_model: int, base: float) -> Any:
        from pespec.sinusoidal.reference.encoding import frequencies

        omega = jnp.asarray(frequencies(d_model, base).astype(work))
        theta = jnp.asarray(positions.astype(work))[:, None] * omega[None, :]
        pairs = jnp.stack([jnp.sin(theta), jnp.cos(theta)], axis=-1).astype(out_dtype)
        return pairs.reshape(positions.shape[0], d_model)

    device = str(jax.devices()[0])
    return Backend(spec, encode_jax, device=device, spec=spec, libraries={"jax": jax.__version__})


def _library_backend(spec: str) -> Backend:
    """``torch[-DTYPE][:DEVICE]`` or ``jax[-DTYPE]``."""
    library, dtype_name, device = library_spec(spec)
    if library == "torch":
        return _torch_backend(dtype_name, device or "cpu", spec)
    if device:
        raise BackendLoadError(f"backend {spec!r}: jax backends take no device suffix")
    return _jax_backend(dtype_name, spec)


BUILTIN_BACKENDS: tuple[str, ...] = (
    "numpy",
    "numpy-float32",
    "numpy-float16",
    "numpy-bfloat16",
    "torch",
    "torch-float64",
    "torch-float16",
    "torch-bfloat16",
    "torch:cuda",
    "jax",
    "jax-float16",
    "jax-bfloat16",
)
"""Built-in names (torch accepts any ``torch[-DTYPE][:DEVICE]``, jax any ``jax[-DTYPE]``)."""


def builtin_backend(text: str) -> Backend | None:
    """The built-in backend that ``text`` names (``numpy[-DTYPE]``, ``torch[-DTYPE][:DEVICE]``,
    ``jax[-DTYPE]``), or None when it names no built-in; BackendLoadError for a built-in
    whose dtype, device or library is not available."""
    if text.startswith("numpy"):
        dtype_name = text.partition("-")[2] or "float64"
        if text == "numpy" or (text.startswith("numpy-") and dtype_name in DTYPES):
            return _numpy_backend(dtype_name)
    head = text.partition(":")[0]
    if head.partition("-")[0] in ("torch", "jax") and "." not in head:
        return _library_backend(text)
    return None
