"""One real entry point as data: what it is, where it comes from, how pespec calls it.

A :class:`Client` declares a library's position-encoding entry point for the conformance table
(issue 29): its family, the adapter that turns it into the family's backend, the
configurations it is run on, the dtypes, the device, the source file and the library. The
adapter is a ``module:attr`` string, imported only when the client runs (optional libraries).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CONFIG_FAMILIES", "FAMILY_NAMES", "Client", "check_client_name"]

FAMILY_NAMES = ("sinusoidal", "rope", "multiaxis", "multiaxis-rope", "fourier")
CONFIG_FAMILIES = ("rope", "multiaxis", "multiaxis-rope", "fourier")
"""The families whose check takes ``--config`` (a client's configs are its presets)."""
DEVICES = ("cpu", "cuda")
TIERS = ("core", "survey")
"""``core``: what ``pespec table`` runs by default (every library, the published
configurations: the table CI regenerates within its time); ``survey``: the wide sweeps
(transformers' surveyed model types on their configuration defaults), run by
``pespec table --all``."""


def check_client_name(name: object) -> str:
    """``name`` as a client name ``library:entry`` (ValueError naming what is allowed)."""
    if not isinstance(name, str) or name.count(":") != 1 or not all(name.split(":")):
        raise ValueError(f"client name must be 'library:entry' (one colon); got {name!r}")
    if any(c.isspace() or c == "@" for c in name):
        raise ValueError(f"client name must hold no spaces and no '@'; got {name!r}")
    return name


@dataclass(frozen=True)
class Client:
    """A real entry point run through pespec.

    ``adapter``: ``module:attr`` of ``build(client, dtype, config) -> backend`` (the family's
    calling convention; ``config`` is the ``--config`` text for the families of
    :data:`CONFIG_FAMILIES`, None for the sinusoidal one). ``configs``: what the table runs it
    on (rotary or multi-axis preset names, published config names; ``("declared",)`` for a
    sinusoidal entry point declaring its convention).
    ``source``: repository and file of the real code; ``entry``: its dotted name.
    ``library``: the distribution whose version is reported; ``requires``: every distribution
    the adapter imports (the row says "not installed" when one is missing). ``tier``: one of
    :data:`TIERS`.
    """

    name: str
    family: str
    library: str
    entry: str
    source: str
    adapter: str
    configs: tuple[str, ...]
    dtypes: tuple[str, ...] = ("float32",)
    requires: tuple[str, ...] = ()
    device: str = "cpu"
    options: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    tier: str = "core"

    def __post_init__(self) -> None:
        check_client_name(self.name)
        if self.family not in FAMILY_NAMES:
            raise ValueError(f"client {self.name}: family must be one of {FAMILY_NAMES}")
        if self.tier not in TIERS:
            raise ValueError(f"client {self.name}: tier must be one of {TIERS}; got {self.tier!r}")
        if self.device not in DEVICES:
            raise ValueError(f"client {self.name}: device must be one of {DEVICES}")
        if not self.configs or not self.dtypes:
            raise ValueError(f"client {self.name}: configs and dtypes must not be empty")

    @property
    def distributions(self) -> tuple[str, ...]:
        """Every distribution the client needs, its library first."""
        return (self.library, *(r for r in self.requires if r != self.library))

    def build(self, dtype: str, config: str | None) -> Any:
        """The family backend (a callable) of this client in ``dtype`` for ``config``."""
        if dtype not in self.dtypes:
            raise ValueError(
                f"client {self.name}: dtype must be one of {', '.join(self.dtypes)}; got {dtype!r}"
            )
        module, _, attr = self.adapter.partition(":")
        factory = getattr(importlib.import_module(module), attr)
        return factory(self, dtype, config)
