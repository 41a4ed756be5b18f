"""The multi-axis combinator: positions of k coordinates, the output cut into sections, each
section the 1-D encoding of one coordinate by a 1-D family (SPEC §9).

One package, one section kind per 1-D family, each registered as one family of
:mod:`pespec.families`:

:mod:`pespec.multiaxis.sinusoidal`
    sin-cos sections (:mod:`pespec.sinusoidal`'s encoding per axis: 2-D/3-D grids of
    diffusers, MAE, timm, big_vision, CogVideoX); the family ``multiaxis``.
:mod:`pespec.multiaxis.rope`
    rotary sections (:mod:`pespec.rope` per axis: Qwen-VL M-RoPE, Flux, Wan, EVA-02); the
    family ``multiaxis-rope``.

Both kinds share the command line (:func:`pespec.cli.multiaxis.run_family`) and the shape of a
run (preset → checked rows → ``contract``, ``golden``, ``reference`` section by section,
``separability``, then the kind's own stage); CONTRIBUTING ("The multi-axis combinator")
says which modules of the two kinds are still written twice and why.
"""

from __future__ import annotations

__all__: list[str] = []
"""Nothing: the public names are those of the two section kinds, :mod:`pespec.multiaxis.sinusoidal`
and :mod:`pespec.multiaxis.rope`."""
