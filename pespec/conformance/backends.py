"""Backends: what the conformance suite checks, and how a backend spec names one (SPEC §9.1).

A backend is a callable ``(positions, d_model, base) -> array``: ``positions`` is an int64
or float64 NumPy array of shape (n,), the result has shape (n, d_model) in the backend's
own output dtype (a NumPy array, anything with ``__array__`` or ``__dlpack__``, or a
torch/JAX array, which :func:`to_host` moves to host memory). :class:`Capabilities` it
declares narrow what is tested and appear in the report.

Backend specs accepted by :func:`load_backend`:

* built-in names: ``numpy`` (the float64 reference), ``numpy-float32``, ``numpy-float16``,
  ``numpy-bfloat16`` (computed in float32, stored in that dtype); ``torch[-DTYPE][:DEVICE]``
  and ``jax[-DTYPE]`` when those libraries are installed;
* ``package.module:attr`` (or ``path/to/file.py:attr``) for any callable or :class:`Backend`;
* a name registered by a third-party package in the entry-point group ``pespec.backends``.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import inspect
import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
from numpy.typing import NDArray

from pespec.properties.base import DTYPES, Level, parse_level
from pespec.reference.validation import check_base, check_d_model

__all__ = [
    "BACKEND_ERRORS",
    "BUILTIN_BACKENDS",
    "ENTRY_POINT_GROUP",
    "Backend",
    "BackendLoadError",
    "CallProtocolError",
    "Capabilities",
    "load_backend",
    "to_host",
]

ENTRY_POINT_GROUP = "pespec.backends"
"""Entry-point group through which third-party packages register named backends."""

REFERENCE_MAX_POSITION = 2.0**53
"""Largest |position| the float64 reference (:func:`pespec.reference.encoding.encode`) takes."""

_CHUNK_ELEMENTS = 1 << 21
"""Elements per block when a built-in backend fills its output (16 MiB of float64)."""


class BackendLoadError(Exception):
    """A backend spec names nothing loadable; the CLI maps it to exit code 2."""


class CallProtocolError(BackendLoadError):
    """The object cannot be called as ``backend(positions, d_model, base) -> array`` (a
    class, or a module whose ``forward`` takes embeddings): a usage error (exit 2), decided
    by its call signature or by what the first contract probe returned."""


ADAPTER_POINTER = (
    "wrap it in a function (positions, d_model, base) -> array, or adapt a module with "
    "pespec.conformance.module_backend or table_backend: see 'Adapting a module' in "
    "docs/guide.md"
)
"""Where a :class:`CallProtocolError` sends the user."""


def protocol_error(name: str, why: str) -> CallProtocolError:
    """The error for an object that does not fit the calling convention, saying why."""
    return CallProtocolError(
        f"backend {name!r} does not fit the calling convention backend(positions, d_model, "
        f"base) -> array: {why}; {ADAPTER_POINTER}"
    )


def _signature_misfit(obj: Any) -> str | None:
    """Why ``obj(positions, d_model, base)`` cannot bind by its signature, or None (fits, or
    no signature to read). For a callable whose call is ``(*args, **kwargs)`` and which has
    a ``forward`` (a torch.nn.Module), ``forward``'s signature decides."""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):  # builtins, some C extensions: no signature to read
        return None
    target = "its call"
    kinds = {p.kind for p in signature.parameters.values()}
    forward = getattr(obj, "forward", None)
    if (
        inspect.Parameter.VAR_POSITIONAL in kinds
        and callable(forward)
        and not isinstance(obj, type)
    ):
        try:
            signature, target = inspect.signature(forward), "its forward"
        except (TypeError, ValueError):
            return None
    try:
        signature.bind(np.zeros(1, dtype=np.int64), 2, 10000.0)
    except TypeError:
        kind = "class" if isinstance(obj, type) else type(obj).__name__
        return f"{target} takes {signature} ({kind})"
    return None


BACKEND_ERRORS: tuple[type[BaseException], ...] = (Exception, SystemExit, GeneratorExit)
"""What backend code may raise that pespec turns into a failure (a failed check, a load
error): every exception, ``sys.exit()`` and GeneratorExit included, which ``except Exception``
misses. KeyboardInterrupt is left out: it is the user's Ctrl-C and interrupts the run."""


def _raised(exc: BaseException) -> str:
    """What user code did, in words: ``called sys.exit(0)`` or ``failed: ValueError: ...``."""
    if isinstance(exc, SystemExit):
        code = "" if exc.code is None else repr(exc.code)
        return f"called sys.exit({code})"
    return f"failed: {type(exc).__name__}: {exc}"


@dataclass(frozen=True)
class Capabilities:
    """What a backend declares about itself; each field narrows the suite (SPEC §9.1).

    ``integer_positions_only``: only int64 positions are passed. ``non_negative_positions``:
    only positions ≥ 0 are passed (a module that looks rows up in a table). ``bases``: the
    bases it supports (None: any base > 1). ``max_d_model`` and ``max_position`` (largest
    |position|): larger configurations are not tested. ``level``: the level it claims, e.g.
    ``"float16@float64"`` (None: the default level of its output dtype). ``convention``:
    the convention it implements, a preset name or ``Convention.to_dict()`` (None: judged
    against the canonical encoding; SPEC §9.1).
    """

    integer_positions_only: bool = False
    non_negative_positions: bool = False
    bases: tuple[float, ...] | None = None
    max_d_model: int | None = None
    max_position: float | None = None
    level: str | None = None
    convention: str | dict[str, Any] | None = None

    def __post_init__(self) -> None:
        for flag in ("integer_positions_only", "non_negative_positions"):
            if not isinstance(getattr(self, flag), bool):
                raise TypeError(f"{flag} must be a bool; got {getattr(self, flag)!r}")
        if self.bases is not None:
            if isinstance(self.bases, (str, bytes)) or not hasattr(self.bases, "__iter__"):
                raise TypeError(f"bases must be a sequence of numbers > 1; got {self.bases!r}")
            bases = tuple(check_base(b, "bases[]") for b in self.bases)
            if not bases:
                raise ValueError("bases must name at least one base; got an empty sequence")
            object.__setattr__(self, "bases", bases)
        if self.max_d_model is not None:
            object.__setattr__(self, "max_d_model", check_d_model(self.max_d_model, "max_d_model"))
        if self.max_position is not None:
            value = self.max_position
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"max_position must be a number >= 0; got {value!r}")
            if not (math.isfinite(float(value)) and value >= 0):
                raise ValueError(f"max_position must be a finite number >= 0; got {value!r}")
        self._check_level()

    def _check_level(self) -> None:
        """Raise ValueError unless ``level`` names a level this family accepts."""
        if self.level is not None:
            parse_level(self.level)
        if self.convention is not None:
            from pespec.conformance.declared import resolve_convention

            resolve_convention(self.convention, "capabilities['convention']")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Capabilities:
        """Capabilities from a dict such as a callable's ``pespec_capabilities`` attribute."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"capabilities must only use the keys {sorted(known)}; got unknown {unknown}"
            )
        values = dict(data)
        if values.get("bases") is not None:
            values["bases"] = tuple(values["bases"])
        return cls(**values)

    def claimed_level(self) -> Level | None:
        """The claimed level, or None when the backend claims none."""
        return None if self.level is None else parse_level(self.level)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for reports."""
        return {
            "integer_positions_only": self.integer_positions_only,
            "non_negative_positions": self.non_negative_positions,
            "bases": None if self.bases is None else list(self.bases),
            "max_d_model": self.max_d_model,
            "max_position": self.max_position,
            "level": self.level,
            "convention": self.convention,
        }

    def admits(self, positions: NDArray[Any]) -> NDArray[np.bool_]:
        """Mask of the positions inside the declared capabilities (integer, sign, magnitude)."""
        values = np.asarray(positions)
        keep = np.ones(values.shape, dtype=bool)
        if self.integer_positions_only and values.dtype.kind == "f":
            keep &= np.isfinite(values) & (values == np.round(values))
        if self.non_negative_positions:
            keep &= values >= 0
        if self.max_position is not None:
            keep &= np.abs(values) <= self.max_position
        return keep

    def adapt_positions(self, positions: NDArray[Any]) -> NDArray[Any]:
        """Map drawn positions into the declared capabilities (round, fold the sign, clip)."""
        values = np.asarray(positions)
        if self.integer_positions_only and values.dtype.kind == "f":
            values = np.round(values).astype(np.int64)
        if self.non_negative_positions:
            values = np.abs(values)
        if self.max_position is not None:
            limit = self.max_position
            values = np.clip(values, -limit, limit).astype(values.dtype)
        return values

    def accepts(self, positions: NDArray[Any], d_model: int, base: float) -> str | None:
        """None when the configuration is inside the declared capabilities, else why not."""
        if self.integer_positions_only and positions.dtype.kind == "f":
            return "the backend declares integer positions only"
        if self.non_negative_positions and positions.size and float(np.min(positions)) < 0:
            return "the backend declares non-negative positions only"
        if self.bases is not None and float(base) not in self.bases:
            return f"the backend declares bases {list(self.bases)}; base {base!r} is not one"
        if self.max_d_model is not None and d_model > self.max_d_model:
            return f"the backend declares max_d_model={self.max_d_model}; d_model is {d_model}"
        if (
            self.max_position is not None
            and positions.size
            and float(np.max(np.abs(positions))) > self.max_position
        ):
            return f"the backend declares max_position={self.max_position}"
        return None


@dataclass
class Backend:
    """A named backend: the callable, its capabilities and where it runs.

    Calling a Backend calls ``fn`` and moves the result to host memory (:func:`to_host`), so a
    Backend is itself an :data:`pespec.properties.base.Encoder` returning NumPy arrays.
    ``spec`` is the string that :func:`load_backend` accepts to rebuild it (for one-line
    reproductions), or None for an object passed directly.
    """

    name: str
    fn: Callable[..., Any]  # (positions, d_model, base); a rotary one (x, positions, rope)
    capabilities: Capabilities = field(default_factory=Capabilities)
    device: str = "cpu"
    spec: str | None = None
    libraries: dict[str, str] = field(default_factory=dict)

    def __call__(self, positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        return to_host(self.fn(positions, d_model, base))


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


# ---------------------------------------------------------------------------------------------
# Built-in NumPy backends


def _rows_per_block(d_model: int) -> int:
    return max(1, _CHUNK_ELEMENTS // max(d_model, 1))


def _numpy_float64(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """The float64 reference (:func:`pespec.reference.encoding.encode`), block by block.

    Positions beyond the reference's domain |p| ≤ 2^53 go through the naive float64 formula:
    there the float64 level's bound exceeds 1 (SPEC §4), so any value in [−1, 1] conforms.
    """
    from pespec.reference.encoding import encode
    from pespec.reference.naive import naive_encode

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
        from pespec.reference.encoding import frequencies

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


def _import_optional(module: str, extra: str, spec: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise BackendLoadError(
            f"backend {spec!r} needs {module}, which is not installed ({exc}); "
            f"install it with: pip install 'pespec[{extra}]'"
        ) from None


def _torch_backend(dtype_name: str, device: str, spec: str) -> Backend:
    """torch: θ = p·ω in float32 on ``device`` (float64 for torch-float64), stored in the dtype."""
    torch = _import_optional("torch", "torch", spec)
    try:
        torch_device = torch.device(device)
        torch.zeros(1, device=torch_device)
    except (RuntimeError, AssertionError) as exc:
        raise BackendLoadError(
            f"backend {spec!r}: torch device {device!r} is not available: {exc}"
        ) from None
    out_dtype = getattr(torch, dtype_name)
    work_dtype = torch.float64 if dtype_name == "float64" else torch.float32

    def encode_torch(positions: NDArray[Any], d_model: int, base: float) -> Any:
        from pespec.reference.encoding import frequencies

        omega = torch.from_numpy(frequencies(d_model, base)).to(work_dtype).to(torch_device)
        p = torch.from_numpy(np.array(positions, copy=True)).to(torch_device).to(work_dtype)
        theta = torch.outer(p, omega)
        out = torch.empty((p.shape[0], d_model), dtype=out_dtype, device=torch_device)
        out[:, 0::2] = torch.sin(theta).to(out_dtype)
        out[:, 1::2] = torch.cos(theta).to(out_dtype)
        return out

    return Backend(
        spec,
        encode_torch,
        device=str(torch_device),
        spec=spec,
        libraries={"torch": torch.__version__},
    )


def _jax_backend(dtype_name: str, spec: str) -> Backend:
    """JAX: θ = p·ω in float32 (float64 needs jax_enable_x64), stored in the dtype."""
    jax = _import_optional("jax", "jax", spec)
    jnp = importlib.import_module("jax.numpy")
    out_dtype = DTYPES[dtype_name]
    work = np.float64 if dtype_name == "float64" else np.float32

    def encode_jax(positions: NDArray[Any], d_model: int, base: float) -> Any:
        from pespec.reference.encoding import frequencies

        omega = jnp.asarray(frequencies(d_model, base).astype(work))
        theta = jnp.asarray(positions.astype(work))[:, None] * omega[None, :]
        pairs = jnp.stack([jnp.sin(theta), jnp.cos(theta)], axis=-1).astype(out_dtype)
        return pairs.reshape(positions.shape[0], d_model)

    device = str(jax.devices()[0])
    return Backend(spec, encode_jax, device=device, spec=spec, libraries={"jax": jax.__version__})


def _library_backend(spec: str) -> Backend:
    """``torch[-DTYPE][:DEVICE]`` or ``jax[-DTYPE]``."""
    head, _, device = spec.partition(":")
    library, _, dtype_name = head.partition("-")
    dtype_name = dtype_name or "float32"
    if dtype_name not in DTYPES:
        raise BackendLoadError(
            f"backend {spec!r}: dtype must be one of {sorted(DTYPES)}; got {dtype_name!r}"
        )
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


# ---------------------------------------------------------------------------------------------
# Loading


def _wrap(
    obj: Any, name: str, spec: str | None, capabilities_type: type[Capabilities] = Capabilities
) -> Backend:
    """A Backend from a loaded object: a Backend, or a callable with optional capabilities
    (read as ``capabilities_type``: :class:`Capabilities` or a family's subclass)."""
    if isinstance(obj, Backend):
        return obj
    if not callable(obj):
        raise BackendLoadError(
            f"backend {name!r} must be a callable (positions, d_model, base) -> array or a "
            f"pespec.conformance.Backend; got {type(obj).__name__}"
        )
    misfit = _signature_misfit(obj)
    if misfit is not None:
        raise protocol_error(name, misfit)
    declared = getattr(obj, "pespec_capabilities", None)
    try:
        if declared is None:
            capabilities = capabilities_type()
        elif isinstance(declared, capabilities_type):
            capabilities = declared
        elif isinstance(declared, Mapping):
            capabilities = capabilities_type.from_mapping(declared)
        else:
            raise TypeError(
                f"pespec_capabilities must be a dict or Capabilities; got {type(declared).__name__}"
            )
    except (TypeError, ValueError) as exc:
        raise BackendLoadError(f"backend {name!r} declares invalid capabilities: {exc}") from None
    return Backend(name, obj, capabilities=capabilities, spec=spec)


def _load_attribute(spec: str, capabilities_type: type[Capabilities] = Capabilities) -> Backend:
    """``package.module:attr`` or ``path/to/file.py:attr`` (attr may be dotted)."""
    module_name, _, attribute = spec.rpartition(":")
    if not module_name or not attribute:
        raise BackendLoadError(f"backend spec {spec!r} must look like package.module:attr")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise BackendLoadError(f"backend {spec!r}: no such file {module_name!r}")
            file_spec = importlib.util.spec_from_file_location(
                f"pespec_backend_{path.stem}", path.resolve()
            )
            if file_spec is None or file_spec.loader is None:
                raise BackendLoadError(f"backend {spec!r}: cannot import {module_name!r}")
            module = importlib.util.module_from_spec(file_spec)
            file_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except BackendLoadError:
        raise
    except BACKEND_ERRORS as exc:  # importing user code may raise anything, even SystemExit
        hint = ""
        if isinstance(exc, SystemExit):
            hint = (
                "; a backend module must not exit when imported: put the script part under "
                "`if __name__ == '__main__':`"
            )
        raise BackendLoadError(
            f"backend {spec!r}: importing {module_name} {_raised(exc)}{hint}"
        ) from None
    obj: Any = module
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise BackendLoadError(f"backend {spec!r}: {module_name!r} has no attribute {part!r}")
        obj = getattr(obj, part)
    return _wrap(obj, spec, spec, capabilities_type)


def _entry_point(
    name: str, group: str = ENTRY_POINT_GROUP, capabilities_type: type[Capabilities] = Capabilities
) -> Backend | None:
    for entry in importlib.metadata.entry_points(group=group):
        if entry.name == name:
            try:
                obj = entry.load()
            except BACKEND_ERRORS as exc:  # third-party import errors of any kind
                raise BackendLoadError(
                    f"backend {name!r}: loading the entry point {entry.value} {_raised(exc)}"
                ) from None
            return _wrap(obj, name, name, capabilities_type)
    return None


def _import_spec(obj: Any) -> str | None:
    """``module:qualname`` when that names ``obj`` in an imported module (so that a fresh
    interpreter can rebuild it for a reproduction), else None (``__main__``, closures, ...)."""
    module_name = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not isinstance(module_name, str) or not isinstance(qualname, str):
        return None
    if module_name == "__main__" or "<" in qualname:
        return None
    found: Any = sys.modules.get(module_name)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return f"{module_name}:{qualname}" if found is obj else None


def load_backend(
    spec: str | Backend | Callable[..., Any],
    *,
    capabilities_type: type[Capabilities] = Capabilities,
    group: str | None = None,
) -> Backend:
    """Resolve a backend spec (see the module docstring) into a :class:`Backend`.

    Raises :class:`BackendLoadError` with a message saying what was tried and what is
    allowed when nothing matches. Another family (the rotary suite) passes its own
    ``capabilities_type`` and entry-point ``group``; its built-in names are its own, so
    with a ``group`` only objects, ``module:attr`` and entry points are resolved here.
    """
    if isinstance(spec, Backend):
        return spec
    if not isinstance(spec, str):
        name = getattr(spec, "__name__", type(spec).__name__)
        return _wrap(spec, name, _import_spec(spec), capabilities_type)
    text = spec.strip()
    if group is not None:
        return _load_other_family(text, group, capabilities_type)
    if text.startswith("numpy"):
        dtype_name = text.partition("-")[2] or "float64"
        if text == "numpy" or (text.startswith("numpy-") and dtype_name in DTYPES):
            return _numpy_backend(dtype_name)
    head = text.partition(":")[0]
    if head.partition("-")[0] in ("torch", "jax") and "." not in head:
        return _library_backend(text)
    if ":" in text:
        return _load_attribute(text)
    if text.endswith(".py"):
        raise BackendLoadError(_missing_attribute(text))
    found = _entry_point(text)
    if found is not None:
        return found
    raise BackendLoadError(
        f"backend must be a built-in name ({', '.join(BUILTIN_BACKENDS)}), "
        f"package.module:attr, or a name in the entry-point group {ENTRY_POINT_GROUP!r}; "
        f"got {spec!r}"
    )


def _load_other_family(text: str, group: str, capabilities_type: type[Capabilities]) -> Backend:
    """``module:attr``, ``file.py:attr`` or an entry point of ``group`` (another family)."""
    if ":" in text:
        return _load_attribute(text, capabilities_type)
    if text.endswith(".py"):
        raise BackendLoadError(_missing_attribute(text))
    found = _entry_point(text, group, capabilities_type)
    if found is not None:
        return found
    raise BackendLoadError(
        f"backend must be a built-in name, package.module:attr, path/to/file.py:attr, or a "
        f"name in the entry-point group {group!r}; got {text!r}"
    )


def _missing_attribute(spec: str) -> str:
    """The message for ``file.py`` given without ``:function``; names the file's top-level
    functions and classes (read with ``ast``, the file is not run)."""
    import ast

    names: list[str] = []
    try:
        tree = ast.parse(Path(spec).read_text(encoding="utf-8"))
        names = [
            node.name
            for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_")
        ]
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        pass
    example = names[0] if names else "pe"
    found = f"; it defines {', '.join(names[:8])}" if names else ""
    return (
        f"backend {spec!r} names a file but not the function in it: add :function, e.g. "
        f"{spec}:{example} for a callable {example}(positions, d_model, base){found}"
    )
