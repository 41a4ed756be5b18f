"""Engines in their own environments (issue 35): where they are, how a row runs in one.

A serving engine pins its own torch and dependencies (vLLM, SGLang) or builds native code
(ggml), so each lives in a virtual environment of its own, made by ``tools/engine-env NAME
DIR`` (CPU torch 2.13.0 first, pespec installed editable, ``torch.version.cuda`` asserted
None). A client whose ``options["engine_env"]`` names one runs its row as
``DIR/NAME/bin/python -m pespec check ...`` in that interpreter (never in the table's zygote:
a fork shares the parent's imported torch, which is not the engine's). ``DIR`` is
``$PESPEC_ENGINE_ENVS``; a row whose environment is absent says so and how to make it.

Decision (issue 35): a subprocess per row in the engine's interpreter, rather than a zygote
per engine: the engine rows are few (tens), their import cost is paid per row, and the
table's zygote protocol stays one process of one interpreter.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["ENGINE_ENVS", "ENV_VARIABLE", "READY", "engine_python", "missing_env"]

ENV_VARIABLE = "PESPEC_ENGINE_ENVS"
READY = ".pespec-engine-ready"
"""Written by ``tools/engine-env`` last: an environment whose build failed half-way is absent."""
ENGINE_ENVS = ("ggml", "triton", "vllm", "sglang")
"""The environments ``tools/engine-env`` builds."""


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
