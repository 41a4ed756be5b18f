"""What backend code may raise, and how the suite words it (SPEC §6.1).

:data:`BACKEND_ERRORS` is what a guarded call catches (every exception, ``sys.exit()`` and
GeneratorExit; never the user's Ctrl-C); :class:`BackendLoadError` and
:class:`CallProtocolError` are the usage errors (exit 2) of an object that cannot be loaded or
called the way its family calls backends (the family's :class:`CallingConvention`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BACKEND_ERRORS",
    "BackendLoadError",
    "CallProtocolError",
    "CallingConvention",
    "protocol_error",
    "raised_text",
    "signature_misfit",
]


class BackendLoadError(Exception):
    """A backend spec names nothing loadable; the CLI maps it to exit code 2."""


class CallProtocolError(BackendLoadError):
    """The object cannot be called as its family's :class:`CallingConvention` says (a class,
    or a module whose ``forward`` takes embeddings): a usage error (exit 2), decided by its call
    signature or by what the first contract probe returned."""


@dataclass(frozen=True)
class CallingConvention:
    """How a family calls its backends: ``call`` written out (``backend(ARGUMENTS) ->
    array``), ``sample`` arguments to bind a signature against, and ``pointer``, where a
    misfit is sent. ``describe`` (the call's arguments in words, for messages) and
    ``validate`` (``validate(output, *arguments, expected_dtype=, check_finite=)``: the output,
    or BackendFailure) are what a guarded call of this family uses by default. Each family's
    capabilities type names its own."""

    call: str
    sample: tuple[Any, ...]
    pointer: str
    describe: Callable[..., str] | None = None
    validate: Callable[..., Any] | None = None
    foreign: tuple[tuple[str, str], ...] = ()
    """(parameter name, whose it is): a backend whose parameter has this name is another
    family's (another family's backend given to this one; issue 41)."""

    @property
    def arguments(self) -> str:
        """The argument list of :attr:`call`: ``(a, b, c)`` of ``backend(a, b, c) -> array``."""
        return self.call.partition(" -> ")[0].removeprefix("backend")


def protocol_error(name: str, why: str, calling: CallingConvention) -> CallProtocolError:
    """The error for an object that does not fit ``calling`` (its family's way of calling a
    backend), saying why."""
    return CallProtocolError(
        f"backend {name!r} does not fit the calling convention {calling.call}: {why}; "
        f"{calling.pointer}"
    )


def signature_misfit(obj: Any, calling: CallingConvention) -> str | None:
    """Why ``obj`` cannot be called with ``calling``'s sample arguments by its signature,
    or None (fits, or no signature to read). For a callable whose call is ``(*args,
    **kwargs)`` and which has a ``forward`` (a torch.nn.Module), ``forward``'s signature
    decides."""
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
        signature.bind(*calling.sample)
    except TypeError:
        kind = "class" if isinstance(obj, type) else type(obj).__name__
        return f"{target} takes {signature} ({kind})"
    names = set(signature.parameters)
    for name, whose in calling.foreign:
        if name in names:
            return f"{target} takes {signature}: {name!r} is an argument of {whose}"
    return None


BACKEND_ERRORS: tuple[type[BaseException], ...] = (Exception, SystemExit, GeneratorExit)
"""What backend code may raise that pespec turns into a failure (a failed check, a load
error): every exception, ``sys.exit()`` and GeneratorExit included, which ``except Exception``
misses. KeyboardInterrupt is left out: it is the user's Ctrl-C and interrupts the run."""


def raised_text(exc: BaseException) -> str:
    """What user code did, in words: ``called sys.exit(0)`` or ``failed: ValueError: ...``."""
    if isinstance(exc, SystemExit):
        code = "" if exc.code is None else repr(exc.code)
        return f"called sys.exit({code})"
    return f"failed: {type(exc).__name__}: {exc}"
