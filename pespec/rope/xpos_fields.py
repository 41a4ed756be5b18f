"""The xPos declaration's fields (SPEC §8.2, Annex J): checks, below RopeConfig.

xPos (Sun et al. 2022; x-transformers, rotary-embedding-torch ``use_xpos``, flash-attn
``scale_base``) multiplies pair j of a rotated vector at position p by
σ_j(p) = ζ_j^(±(p − c)/b), ζ_j = (2j + γ·d_r)/((1 + γ)·d_r): + for queries, − for keys.
``xpos_scale_base`` (b) switches it on; ``xpos_gamma`` (γ, default 0.4), ``xpos_center``
(c; None: n//2 of each call of n positions, as rotary-embedding-torch) and ``xpos_role``
("query" or "key", default "query") are only allowed with it.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from pespec.rope.schedules.fields import check_int, check_positive, show

__all__ = ["XPOS_DEFAULT_GAMMA", "XPOS_FIELDS", "XPOS_ROLES", "checked_xpos"]

XPOS_FIELDS: Final = ("xpos_scale_base", "xpos_gamma", "xpos_center", "xpos_role")
"""The RopeConfig fields of the xPos declaration."""

XPOS_ROLES: Final = ("query", "key")
"""Which power a call applies: ζ^(+(p − c)/b) for queries, ζ^(−(p − c)/b) for keys."""

XPOS_DEFAULT_GAMMA: Final = 0.4
"""γ of rotary-embedding-torch and x-transformers: ζ_j = (2j + 0.4·d_r)/(1.4·d_r)."""


class _XposFields(Protocol):
    @property
    def xpos_scale_base(self) -> float | None: ...
    @property
    def xpos_gamma(self) -> float | None: ...
    @property
    def xpos_center(self) -> int | None: ...
    @property
    def xpos_role(self) -> str | None: ...


def checked_xpos(config: _XposFields) -> dict[str, Any]:
    """The xPos fields normalised (γ and the role defaulted when b is given), or raise."""
    if config.xpos_scale_base is None:
        for name in XPOS_FIELDS[1:]:
            if getattr(config, name) is not None:
                raise ValueError(
                    f"{name} is only allowed with xpos_scale_base (xPos); got "
                    f"{show(getattr(config, name))} with xpos_scale_base None"
                )
        return {}
    out: dict[str, Any] = {
        "xpos_scale_base": check_positive("xpos_scale_base", config.xpos_scale_base)
    }
    gamma = XPOS_DEFAULT_GAMMA if config.xpos_gamma is None else config.xpos_gamma
    out["xpos_gamma"] = check_positive("xpos_gamma", gamma)
    if config.xpos_center is not None:
        out["xpos_center"] = check_int("xpos_center", config.xpos_center, 0)
    role = "query" if config.xpos_role is None else config.xpos_role
    if role not in XPOS_ROLES:
        raise ValueError(f"xpos_role must be one of {list(XPOS_ROLES)}; got {show(role)}")
    out["xpos_role"] = role
    return out
