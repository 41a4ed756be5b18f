"""The one-line reproductions a failing check prints (SPEC §6.4).

Each line rebuilds the backend (from its spec in a fresh interpreter, else from a variable
``backend`` bound to the object that was checked) and re-runs the failing case: a value
against the spec (:func:`pespec.sinusoidal.reproduce`), a raw call, or a property.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from numpy.typing import NDArray

from pespec.sinusoidal.properties.base import EncodingConfig, Level
from pespec.sinusoidal.reference.conventions import Convention

if TYPE_CHECKING:
    from pespec.sinusoidal.properties.registry import PropertyCheck

__all__ = ["Reproductions"]


@dataclass(frozen=True)
class Reproductions:
    """Reproduction lines for one backend. ``spec``: the backend spec as it was given (a
    relative ``file.py`` stays relative: the line is run from the folder the check ran in,
    and names no local absolute path), or None for an object passed directly.
    ``convention``: the convention judged against; ``declared``: whether it was declared."""

    spec: str | None
    convention: Convention
    declared: bool

    def _backend_expr(self) -> tuple[str, str]:
        """(import prefix, expression) that rebuild the backend."""
        prefix = "from pespec.conformance import load_backend; "
        if self.spec is not None:
            return prefix, f"load_backend({self.spec!r})"
        return prefix, "load_backend(backend)"

    def _command(self, code: str) -> str:
        """``code`` as a shell command when the backend has a spec; else as a Python line to
        run where the checked object is bound to ``backend`` (no fresh interpreter has it)."""
        if self.spec is not None:
            return f'python -c "{code}"'
        return f"{code}  # run where backend = the callable you checked"

    def for_value(
        self, position: int | float, d_model: int, base: float, column: int | None, level: Level
    ) -> str:
        """Re-check one value against the spec with :func:`pespec.sinusoidal.reproduce`."""
        backend = "backend" if self.spec is None else repr(self.spec)
        convention = ""
        if self.declared:
            convention = f", convention={self._convention_argument()!r}"
        return self._command(
            f"from pespec.conformance import reproduce; reproduce({backend}, "
            f"[{position!r}], {d_model}, {base!r}, column={column}, level={level.name!r}"
            f"{convention}" + (", exit_status=True)" if self.spec is not None else ")")
        )

    def _convention_argument(self) -> str | dict[str, Any]:
        """The declared convention as ``reproduce`` takes it: its preset name, or its dict."""
        from pespec.sinusoidal.reference.conventions import preset

        try:
            if preset(self.convention.name) == self.convention:
                return self.convention.name
        except ValueError:
            pass
        return self.convention.to_dict()

    def for_call(self, positions: NDArray[Any], d_model: int, base: float) -> str:
        """Call the backend as the failing contract probe did and print what it returns."""
        prefix, backend = self._backend_expr()
        dtype = "" if positions.dtype.kind == "i" else ", dtype=np.float64"
        return self._command(
            f"import numpy as np; {prefix}print({backend}.fn(np.array("
            f"{positions.tolist()!r}{dtype}), {d_model}, {base!r}))"
        )

    def for_property(self, prop: PropertyCheck, config: EncodingConfig, level: Level) -> str:
        """Run the property on the failing configuration."""
        prefix, backend = self._backend_expr()
        fn = prop.function
        convention = ""
        if not config.convention.is_canonical:
            prefix += "from pespec.sinusoidal.reference.conventions import Convention; "
            convention = f", convention=Convention.from_dict({config.convention.to_dict()!r})"
        return self._command(
            f"import numpy as np; {prefix}"
            f"from pespec.sinusoidal.properties.base import EncodingConfig, parse_level; "
            f"from {fn.__module__} import {fn.__name__}; "
            f"{fn.__name__}({backend}, EncodingConfig({config.reproduction()}{convention}), "
            f"parse_level({level.name!r}))"
        )
