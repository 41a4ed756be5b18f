"""A multi-axis rotary configuration: 1-D rotary sections over k position axes (SPEC §9.7).

The head of ``head_dim`` = D columns is cut into D/2 *slots*, each a pair of columns:
(s, s + D/2) with ``pairing="halves"`` (rotate_half: Qwen2-VL, Qwen2.5-VL, Qwen3-VL) or
(2s, 2s + 1) with ``pairing="interleaved"`` (adjacent pairs: Flux). A
:class:`RotarySection` is one 1-D rotary configuration (:class:`~pespec.rope.config.
RopeConfig`: its own head_dim, θ, schedule) fed by coordinate ``axis``: its pair j =
``pairs[i]`` (frequency ω'_j of that configuration) is written to slot ``slots[i]``. So

* M-RoPE (Qwen2-VL): one RopeConfig over the whole head, the pairs cut into contiguous
  runs of ``mrope_section`` = [t, h, w] pairs, pair j in slot j (:func:`mrope`);
* interleaved M-RoPE (Qwen3-VL): the same RopeConfig, pair j fed by h when j ≡ 1 (mod 3)
  and j < 3·h, by w when j ≡ 2 (mod 3) and j < 3·w, else by t (:func:`mrope`);
* Flux (``FluxPosEmbed``): one RopeConfig of head_dim ``axes_dim[i]`` per axis, its pairs in
  the consecutive slots after the previous axes' (:func:`per_axis_rotary`).

Every slot is filled by exactly one section's pair.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig

__all__ = [
    "HEAD_PAIRINGS",
    "MultiAxisRopeConfig",
    "RotarySection",
    "mrope",
    "mrope_axes",
    "per_axis_rotary",
]

HEAD_PAIRINGS = ("halves", "interleaved")


def _int(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an int >= {low}; got {value!r}")
    return int(value)


def _ints(name: str, values: Any) -> tuple[int, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
        raise ValueError(f"{name} must be a non-empty list of ints; got {values!r}")
    return tuple(_int(f"{name}[{i}]", v, 0) for i, v in enumerate(values))


@dataclass(frozen=True)
class RotarySection:
    """Pairs ``pairs`` of the 1-D rotary ``rope``, fed by coordinate ``axis``, written to
    the head's slots ``slots`` (same length)."""

    axis: int
    rope: RopeConfig
    pairs: tuple[int, ...]
    slots: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "axis", _int("axis", self.axis, 0))
        if not isinstance(self.rope, RopeConfig):
            raise TypeError(f"rope must be a RopeConfig; got {self.rope!r}")
        pairs, slots = _ints("pairs", self.pairs), _ints("slots", self.slots)
        if len(pairs) != len(slots):
            raise ValueError(
                f"pairs and slots must have one length; got {len(pairs)}, {len(slots)}"
            )
        half = self.rope.d_r // 2
        if max(pairs) >= half or len(set(pairs)) != len(pairs):
            raise ValueError(f"pairs must be distinct pair indices < d_r/2 = {half}; got {pairs}")
        object.__setattr__(self, "pairs", pairs)
        object.__setattr__(self, "slots", slots)

    def to_dict(self) -> dict[str, Any]:
        return {
            "axis": self.axis,
            "rope": self.rope.to_dict(),
            "pairs": list(self.pairs),
            "slots": list(self.slots),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RotarySection:
        """Inverse of :meth:`to_dict` (ValueError naming missing or unknown keys)."""
        keys = {"axis", "rope", "pairs", "slots"}
        if not isinstance(data, Mapping) or set(data) != keys:
            got = sorted(data) if isinstance(data, Mapping) else data
            raise ValueError(
                f"a rotary section must have exactly the keys {sorted(keys)}; got {got}"
            )
        return cls(data["axis"], RopeConfig.from_dict(data["rope"]), data["pairs"], data["slots"])


@dataclass(frozen=True)
class MultiAxisRopeConfig:
    """Rotary sections over ``axes`` coordinates filling a head of ``head_dim`` columns."""

    head_dim: int
    axes: int
    sections: tuple[RotarySection, ...]
    pairing: str = "halves"
    name: str = field(default="custom", compare=False)

    def __post_init__(self) -> None:
        head = _int("head_dim", self.head_dim, 2)
        if head % 2:
            raise ValueError(f"head_dim must be even; got {head}")
        axes = _int("axes", self.axes, 1)
        if self.pairing not in HEAD_PAIRINGS:
            raise ValueError(f"pairing must be one of {HEAD_PAIRINGS}; got {self.pairing!r}")
        sections = tuple(self.sections)
        if not sections or not all(isinstance(s, RotarySection) for s in sections):
            raise ValueError(
                f"sections must be a non-empty list of RotarySection; got {sections!r}"
            )
        for index, section in enumerate(sections):
            if section.axis >= axes:
                raise ValueError(
                    f"section {index} reads axis {section.axis}; axes must be < {axes}"
                )
        slots = sorted(s for section in sections for s in section.slots)
        if slots != list(range(head // 2)):
            raise ValueError(
                f"the sections' slots must fill 0 .. head_dim/2 − 1 = {head // 2 - 1} once each; "
                f"got {len(slots)} slots, {len(set(slots))} distinct, largest {max(slots)}"
            )
        object.__setattr__(self, "sections", sections)

    def slot_columns(self, slots: Sequence[int]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """The (first, second) head column of each slot: (s, s + D/2) or (2s, 2s + 1)."""
        s = np.asarray(slots, dtype=np.intp)
        if self.pairing == "interleaved":
            return 2 * s, 2 * s + 1
        return s, s + self.head_dim // 2

    def section_columns(self, index: int) -> NDArray[np.intp]:
        """Every head column section ``index`` writes (its slots' two columns), sorted."""
        first, second = self.slot_columns(self.sections[index].slots)
        return np.sort(np.concatenate([first, second]))

    def axis_of_slot(self) -> NDArray[np.intp]:
        """The axis feeding each slot, shape (D/2,)."""
        out = np.empty(self.head_dim // 2, dtype=np.intp)
        for section in self.sections:
            out[list(section.slots)] = section.axis
        return out

    def describe(self, index: int) -> str:
        """Section ``index`` in words, for reports."""
        s = self.sections[index]
        return (
            f"section {index} (axis {s.axis}, {len(s.pairs)} pairs of a d={s.rope.head_dim} "
            f"rotary, θ {s.rope.theta:g}, {s.rope.pairing})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "head_dim": self.head_dim,
            "axes": self.axes,
            "pairing": self.pairing,
            "sections": [s.to_dict() for s in self.sections],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MultiAxisRopeConfig:
        """Inverse of :meth:`to_dict` (ValueError naming missing or unknown keys)."""
        if not isinstance(data, Mapping):
            raise TypeError(f"a multiaxis-rope config must be a JSON object; got {data!r}")
        allowed, needed = {"name", "head_dim", "axes", "pairing", "sections"}, ("head_dim", "axes")
        unknown = sorted(set(data) - allowed)
        missing = [k for k in (*needed, "sections") if k not in data]
        if unknown or missing:
            raise ValueError(
                f"a multiaxis-rope config has the keys {sorted(allowed)}; missing {missing}, "
                f"unknown {unknown}"
            )
        sections = data["sections"]
        if isinstance(sections, (str, bytes)) or not isinstance(sections, Sequence):
            raise ValueError(f"sections must be a list of objects; got {sections!r}")
        return cls(
            head_dim=data["head_dim"],
            axes=data["axes"],
            sections=tuple(RotarySection.from_dict(s) for s in sections),
            pairing=data.get("pairing", "halves"),
            name=str(data.get("name", "custom")),
        )


def mrope_axes(half: int, mrope_section: Sequence[int], interleaved: bool) -> list[int]:
    """The axis (0 t, 1 h, 2 w) of each pair j < ``half`` of an M-RoPE head.

    Sectioned (transformers' Qwen2-VL ``recomposition_frequencies``: ``freq.split(
    mrope_section)``, chunk i from axis i mod 3): runs of t, h, w pairs. Interleaved
    (Qwen3-VL's: ``freqs[..., offset:3·section[dim]:3]`` from h (offset 1) and w (offset 2)
    over t): j ≡ 1 (mod 3), j < 3·h → h; j ≡ 2 (mod 3), j < 3·w → w; else t."""
    sizes = _ints("mrope_section", mrope_section)
    if sum(sizes) != half:
        raise ValueError(
            f"mrope_section must sum to head_dim/2 = {half}; got {list(sizes)} (sum {sum(sizes)})"
        )
    if not interleaved:
        return [i % 3 for i, size in enumerate(sizes) for _ in range(size)]
    if len(sizes) != 3:
        raise ValueError(f"interleaved mrope_section must have 3 entries; got {list(sizes)}")
    axes = [0] * half
    for axis, offset in ((1, 1), (2, 2)):
        for j in range(offset, min(half, 3 * sizes[axis]), 3):
            axes[j] = axis
    return axes


def mrope(
    head_dim: int,
    theta: float,
    mrope_section: Sequence[int],
    *,
    interleaved: bool = False,
    name: str = "custom",
) -> MultiAxisRopeConfig:
    """Qwen-VL's M-RoPE: one default rotary of ``head_dim`` and ``theta`` (halves pairing),
    its pair j fed by the axis :func:`mrope_axes` gives, written to slot j."""
    rope = RopeConfig(head_dim=head_dim, theta=theta)
    axes = mrope_axes(head_dim // 2, mrope_section, interleaved)
    sections = []
    for axis in sorted(set(axes)):
        pairs = tuple(j for j, a in enumerate(axes) if a == axis)
        sections.append(RotarySection(axis, rope, pairs, pairs))
    return MultiAxisRopeConfig(head_dim, 3, tuple(sections), "halves", name=name)


def per_axis_rotary(
    axes_dim: Sequence[int], theta: float, *, pairing: str = "interleaved", name: str = "custom"
) -> MultiAxisRopeConfig:
    """Flux's ``FluxPosEmbed``: axis i a rotary of head_dim ``axes_dim[i]`` and ``theta``
    (ω_j = θ^(−2j/axes_dim[i])), in the slots after the previous axes'; ``pairing`` both
    that rotary's and the head's (adjacent pairs in Flux)."""
    dims = _ints("axes_dim", axes_dim)
    sections, start = [], 0
    for axis, dim in enumerate(dims):
        rope = RopeConfig(head_dim=dim, theta=theta, pairing=pairing)
        pairs = tuple(range(dim // 2))
        sections.append(RotarySection(axis, rope, pairs, tuple(start + j for j in pairs)))
        start += dim // 2
    return MultiAxisRopeConfig(sum(dims), len(dims), tuple(sections), pairing, name=name)
