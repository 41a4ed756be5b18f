"""Engines in their own environments (issue 35): where they are, how a row runs in one.

A serving engine pins its own torch and dependencies (vLLM, SGLang) or builds native code
(ggml), so each lives in a virtual environment of its own, made by ``tools/engine-env NAME
DIR`` (CPU torch 2.13.0 first, pespec installed editable, ``torch.version.cuda`` asserted
None). A client whose ``options["engine_env"]`` names one runs its row as
``DIR/NAME/bin/python -m pespec check ...`` in that interpreter (never in the table's zygote:
a fork shares the parent's imported torch, which is not the engine's). ``DIR`` is
``$PESPEC_ENGINE_ENVS``; a row whose environment is absent says so and how to make it.

Decision (issue 35): each engine environment gets a zygote of its own
(:class:`EngineZygotes`), started once per table with the engine's interpreter and its heavy
modules imported, and each row is a fork of it (a crash costs that row only, as for the
table's own zygote). Measured: a vLLM row spent about 7 of its 8 CPU s importing vLLM's
rotary package; forked, it starts with them imported. Where the platform cannot fork, the
row runs as ``DIR/NAME/bin/python -m pespec check ...``.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from pespec.clients.zygote import Zygote
from pespec.clients.zygote import available as zygote_available

__all__ = [
    "ENGINE_ENVS",
    "ENV_VARIABLE",
    "PRELOAD",
    "READY",
    "EngineZygotes",
    "engine_python",
    "missing_env",
]

ENV_VARIABLE = "PESPEC_ENGINE_ENVS"
READY = ".pespec-engine-ready"
"""Written by ``tools/engine-env`` last: an environment whose build failed half-way is absent."""
ENGINE_ENVS = ("ggml", "triton", "vllm", "sglang")
"""The environments ``tools/engine-env`` builds."""
PRELOAD = {
    "vllm": (
        "vllm.config",
        "vllm.transformers_utils.config",
        "vllm.model_executor.layers.rotary_embedding",
    ),
    "ggml": ("ggml",),
    "sglang": ("transformers", "sglang.srt.layers.rotary_embedding"),
    "triton": ("torch", "liger_kernel.transformers.rope"),
}
"""Modules an engine's zygote imports before it forks (Triton's after ``TRITON_INTERPRET=1``,
:data:`ENVIRONMENT`: the interpreter is chosen when triton is imported)."""
ENVIRONMENT = {"sglang": {"SGLANG_USE_CPU_ENGINE": "1"}, "triton": {"TRITON_INTERPRET": "1"}}
"""Variables an engine's zygote sets before its pre-load (SGLang's CPU code is chosen by
``SGLANG_USE_CPU_ENGINE`` at import, Triton's interpreter by ``TRITON_INTERPRET``; the
adapters set them too, for a row run by itself)."""


def engine_python(name: str) -> Path | None:
    """The interpreter of engine environment ``name`` under ``$PESPEC_ENGINE_ENVS``, or None
    when the variable is unset or the environment was not built to the end."""
    if name not in ENGINE_ENVS:
        raise ValueError(f"engine environment must be one of {ENGINE_ENVS}; got {name!r}")
    root = os.environ.get(ENV_VARIABLE)
    if not root:
        return None
    env = Path(root) / name
    python = env / "bin" / "python"
    return python if python.is_file() and (env / READY).is_file() else None


def missing_env(name: str) -> str:
    """Why a row of engine environment ``name`` cannot run (the command that makes it)."""
    root = os.environ.get(ENV_VARIABLE)
    where = f"{root}/{name}" if root else f"${ENV_VARIABLE} unset"
    return (
        f"engine environment {name!r} absent ({where}): make it with "
        f"`tools/engine-env {name} DIR` and set {ENV_VARIABLE}=DIR"
    )


class EngineZygotes:
    """One zygote per engine environment, started on its first row (a context manager;
    :meth:`get` is safe from many threads)."""

    def __init__(self) -> None:
        self._zygotes: dict[str, Zygote] = {}
        self._lock = threading.Lock()

    def __enter__(self) -> EngineZygotes:
        return self

    def __exit__(self, *exc: object) -> None:
        for zygote in self._zygotes.values():
            zygote.close()

    def get(self, name: str) -> Zygote | None:
        """The zygote of engine environment ``name``; None when it is absent or the
        platform does not fork."""
        python = engine_python(name)
        if python is None or not zygote_available():
            return None
        with self._lock:
            if name not in self._zygotes:
                self._zygotes[name] = Zygote(
                    python, PRELOAD.get(name, ()), ENVIRONMENT.get(name, {})
                )
            return self._zygotes[name]
