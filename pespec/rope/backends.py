"""Rotary backends: the plug-in point of the rotary suite (SPEC §8.8) and the built-ins.

A rotary backend is a callable ``backend(x, positions, rope) -> array``: ``x`` float64
(n, head_dim) with values exactly representable in bfloat16 and float16, ``positions`` int64
(n,), ``rope`` a :class:`~pespec.rope.RopeConfig`; it returns (n, head_dim) (NumPy, torch or
JAX, any dtype and device): each row rotated at its position, A included, in the output layout
of the pairing. Loading (``module:attr``, ``file.py:attr``, the entry-point group
``pespec.rope_backends``), guarding and host conversion are the absolute family's
(:mod:`pespec.conformance.backends`); only the capabilities and the built-ins differ.

Built-in names: ``numpy`` (the exact float64 reference), ``numpy-float32`` (every stage in
float32), ``torch[-DTYPE][:DEVICE]`` (transformers' stack: float32 phase and cache, cache and
rotation in DTYPE; every stage in float64 for torch-float64).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from pespec._suggest import did_you_mean
from pespec.conformance.backends import Backend, BackendCapabilities
from pespec.conformance.guard import BackendLoadError, CallingConvention
from pespec.conformance.libraries import import_optional, library_spec, torch_device
from pespec.conformance.loading import load_backend
from pespec.rope.config import RopeConfig
from pespec.rope.errormodel import parse_rope_level
from pespec.rope.hf import ConfigReading

__all__ = [
    "ROPE_BUILTINS",
    "ROPE_CALL",
    "ROPE_ENTRY_POINT_GROUP",
    "RopeCapabilities",
    "load_rope_backend",
    "resolve_config",
    "resolve_reading",
]

ROPE_ENTRY_POINT_GROUP = "pespec.rope_backends"
"""Entry-point group through which third-party packages register rotary backends."""

ROPE_BUILTINS = (
    "numpy",
    "numpy-float32",
    "torch",
    "torch-float64",
    "torch-float16",
    "torch-bfloat16",
    "torch:cuda",
)
"""Built-in rotary backend names (torch accepts any ``torch[-DTYPE][:DEVICE]``)."""

_CHUNK_ROWS = 1 << 13

ROPE_CALL = CallingConvention(
    "backend(x, positions, rope) -> array",
    (np.zeros((1, 2)), np.zeros(1, dtype=np.int64), RopeConfig(head_dim=2)),
    "wrap it in a function (x, positions, rope) -> array that returns x (n, head_dim) rotated "
    "at each row's position (rope is a pespec.rope.RopeConfig): see 'Rotary position "
    "embeddings (RoPE)' in docs/guide.md",
    foreign=tuple(
        (
            name,
            "the sinusoidal family's backend(positions, d_model, base): check it with "
            "pespec check (no --family rope)",
        )
        for name in ("d_model", "base")
    ),
)
"""The rotary family's calling convention (SPEC §8.8)."""


def resolve_config(value: Any) -> RopeConfig:
    """A RopeConfig from a RopeConfig, a preset name, a RopeConfig dict or a transformers
    config.json dict (recognised by having no ``head_dim``-only RopeConfig shape)."""
    return resolve_reading(value).config


def resolve_reading(value: Any) -> ConfigReading:
    """:func:`resolve_config` with the reader's notes (a config.json's defaulted θ)."""
    from pespec.rope.hf import read_hf
    from pespec.rope.presets import preset_config

    if isinstance(value, RopeConfig):
        return ConfigReading(value)
    if isinstance(value, str):
        return ConfigReading(preset_config(value))
    if isinstance(value, Mapping):
        try:
            return ConfigReading(RopeConfig.from_dict(value))
        except (ValueError, TypeError):
            return read_hf(value)
    raise TypeError(
        f"config must be a RopeConfig, a preset name or a dict; got {type(value).__name__}"
    )


@dataclass(frozen=True)
class RopeCapabilities(BackendCapabilities):
    """A rotary backend's declarations: the engine's shared fields (level as
    PHASE/CACHE/ROTATION) plus ``configs``: the configurations it supports (preset names,
    RopeConfig or dicts; None: any) and ``fractional_positions``. The positions checked
    (SPEC R8.17–R8.18): integers 0 … N − 1 of the configuration's context by default;
    ``max_position`` claims [0, max_position] instead, ``fractional_positions`` adds
    non-integer positions (sent as float64)."""

    configs: tuple[Any, ...] | None = None
    fractional_positions: bool = False
    calling_convention: ClassVar[CallingConvention] = ROPE_CALL
    sequence_fields: ClassVar[tuple[str, ...]] = ("configs",)

    def check_fields(self) -> None:
        if not isinstance(self.fractional_positions, bool):
            raise TypeError(
                f"fractional_positions must be a bool; got {self.fractional_positions!r}"
            )
        if self.fractional_positions and self.integer_positions_only:
            raise ValueError("fractional_positions and integer_positions_only cannot both be true")
        if self.configs is not None:
            if isinstance(self.configs, (str, bytes)) or not hasattr(self.configs, "__iter__"):
                raise TypeError(
                    f"configs must be a sequence of preset names or configs; got {self.configs!r}"
                )
            object.__setattr__(self, "configs", tuple(resolve_config(c) for c in self.configs))

    def check_level(self) -> None:
        if self.level is not None:
            parse_rope_level(self.level)

    def supports(self, config: RopeConfig) -> bool:
        """True when ``config`` is among the declared configs (or none are declared)."""
        return self.configs is None or config in self.configs

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["convention"] = None  # the report schema 1.3's key: no rotary backend has one
        data["configs"] = None if self.configs is None else [c.to_dict() for c in self.configs]
        data["fractional_positions"] = self.fractional_positions
        return data


def _omega32(config: RopeConfig, positions: Any) -> tuple[NDArray[np.float64], float]:
    """ω' and A of the call (at ℓ = its largest position + 1 when ℓ is per call)."""
    from pespec.rope.oracle import attention_factor, frequencies
    from pespec.rope.per_call import call_config

    config = call_config(config, positions)
    omega, _ = frequencies(config)
    return omega, attention_factor(config)


def _pair_views(array: Any, config: RopeConfig, output: bool) -> tuple[Any, Any]:
    from pespec.rope.reference import pair_views

    return pair_views(array, config, output)


def _numpy_float64(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
    from pespec.rope.per_call import call_config
    from pespec.rope.reference import rotate

    return rotate(x, positions, call_config(rope, positions))


def _numpy_float32(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
    """Every stage in float32: ω' rounded, p·ω', cos/sin, A folded in, the rotation."""
    omega, attention = _omega32(rope, positions)
    w = omega.astype(np.float32)
    a32 = np.float32(attention)
    xs = np.asarray(x, dtype=np.float32)
    out = xs.copy()
    a_in, b_in = _pair_views(xs, rope, output=False)
    ya, yb = _pair_views(out, rope, output=True)
    for r0 in range(0, xs.shape[0], _CHUNK_ROWS):
        r1 = r0 + _CHUNK_ROWS
        phase = positions[r0:r1].astype(np.float32)[:, None] * w[None, :]
        c, s = np.cos(phase) * a32, np.sin(phase) * a32
        a, b = a_in[r0:r1], b_in[r0:r1]
        ya[r0:r1], yb[r0:r1] = a * c - b * s, a * s + b * c
    return out


def _torch_backend(dtype_name: str, device: str, spec: str) -> Backend:
    torch = import_optional("torch", "torch", spec)
    on_device = torch_device(torch, device, spec)
    dtype = getattr(torch, dtype_name)
    work = torch.float64 if dtype_name == "float64" else torch.float32

    def rotate_torch(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        omega, attention = _omega32(rope, positions)
        w = torch.from_numpy(omega).to(work).to(on_device)
        p = torch.from_numpy(np.array(positions, copy=True)).to(on_device).to(work)
        phase = torch.outer(p, w)
        cos = (phase.cos() * attention).to(dtype)
        sin = (phase.sin() * attention).to(dtype)
        xs = torch.from_numpy(np.asarray(x)).to(on_device).to(dtype)
        out = xs.clone()
        a, b = _pair_views(xs, rope, output=False)
        ya, yb = _pair_views(out, rope, output=True)
        ya[...], yb[...] = a * cos - b * sin, a * sin + b * cos
        return out

    return Backend(
        spec,
        rotate_torch,
        capabilities=RopeCapabilities(),
        device=str(on_device),
        spec=spec,
        libraries={"torch": torch.__version__},
    )


def _builtin(text: str) -> Backend | None:
    libraries = {"numpy": np.__version__}
    if text == "numpy":
        return Backend(
            "numpy", _numpy_float64, capabilities=RopeCapabilities(), spec=text, libraries=libraries
        )
    if text == "numpy-float32":
        return Backend(
            text, _numpy_float32, capabilities=RopeCapabilities(), spec=text, libraries=libraries
        )
    head = text.partition(":")[0]
    if head.partition("-")[0] != "torch" or "." in head:
        return None
    _, dtype_name, device = library_spec(text)
    return _torch_backend(dtype_name, device or "cpu", text)


def load_rope_backend(spec: str | Backend | Callable[..., Any]) -> Backend:
    """A rotary :class:`Backend` from a built-in name, ``module:attr``, ``file.py:attr``, an
    entry point of :data:`ROPE_ENTRY_POINT_GROUP`, or a callable (BackendLoadError if none)."""
    if isinstance(spec, str):
        found = _builtin(spec.strip())
        if found is not None:
            return found
    try:
        backend = load_backend(
            spec, capabilities_type=RopeCapabilities, group=ROPE_ENTRY_POINT_GROUP
        )
    except BackendLoadError as exc:
        hint = did_you_mean(spec, ROPE_BUILTINS) if isinstance(spec, str) else ""
        if not hint:
            raise
        raise BackendLoadError(f"{exc} (built-ins: {', '.join(ROPE_BUILTINS)}){hint}") from None
    if not isinstance(backend.capabilities, RopeCapabilities):
        raise BackendLoadError(
            f"backend {backend.name!r} declares absolute-encoding "
            f"capabilities; a rotary backend declares RopeCapabilities"
        )
    return backend
