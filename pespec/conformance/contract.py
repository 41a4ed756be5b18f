"""Calling a backend safely (SPEC §6.2): the guarded call every family's checks go through.

:class:`GuardedBackend` runs every call in a worker thread with a per-call timeout, moves
the result to host memory and validates it (with its family's validation: type, shape,
dtype, finiteness, input not mutated); any misbehaviour becomes a :class:`BackendFailure`
that the engine turns into a failed check, so a broken backend never crashes the suite. A
call that times out leaves its thread running; the backend is then marked hung and later
calls fail at once instead of hanging again. Each family's contract stage is its own
(its probes and items); :func:`bit_identical` is their determinism check.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.backends import Backend
from pespec.conformance.host import to_host
from pespec.numerics.problems import OutputProblem, first_non_finite

__all__ = [
    "BackendFailure",
    "GuardedBackend",
    "OutputProblem",
    "bit_identical",
    "check_timeout",
    "describe_arguments",
    "first_non_finite",
]


class BackendFailure(Exception):
    """The backend misbehaved; ``kind`` says how (raised, timeout, hung, type, shape, ...)."""

    def __init__(self, kind: str, message: str, result: Any = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.result = result  # what the backend returned, when it was no array (kind "type")


GUARD_OS_EXIT = True
"""Refuse ``os._exit`` while a backend call runs (an in-process run: a backend ending the
process would end pespec and pytest with its status, exit 0 and no verdict; issue 41). The
supervised child turns it off: there the supervisor sees the exit and names it."""


class BackendExit(BaseException):
    """Raised in place of ``os._exit(status)`` called by a backend during a guarded call."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def _refuse_exit(status: int = 0) -> None:
    raise BackendExit(status)


def table_hint(exc: BaseException, args: tuple[Any, ...] = ()) -> str:
    """For an IndexError at an index that is one of the call's positions (a table of
    positions read past its end): how to declare the positions the backend serves; else ""."""
    if not isinstance(exc, IndexError):
        return ""
    index = re.search(r"index (-?\d+) is out of bounds", str(exc))
    if index is not None and not any(
        isinstance(a, np.ndarray) and a.dtype.kind in "iuf" and np.isin(int(index.group(1)), a)
        for a in args
    ):
        return ""  # an index that is no position: the backend's own bug
    size = re.search(r"with size (\d+)", str(exc))
    last = f"{int(size.group(1)) - 1}" if size else "N - 1"
    rows = f"{size.group(1)} rows" if size else "N rows"
    return (
        f"; a backend whose table has {rows} serves positions 0..{last} only: declare "
        f'pespec_capabilities = {{"max_position": {last}}} (or --max-position {last}), '
        "and the verdict covers those positions"
    )


def check_timeout(timeout: object) -> float:
    """``timeout`` as seconds, for every family (the engine's one check): a positive int or
    float (bool refused), else ValueError naming the value."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds; got {timeout!r}")
    return float(timeout)


class GuardedBackend:
    """A :class:`Backend` called with a timeout and with its output validated.

    ``expected_dtype`` (a pespec dtype name) is enforced once known. Calling it with the
    family's arguments (positions first) returns the validated host array or raises
    :class:`BackendFailure`, so property checks can call it directly. ``describe`` (the
    call's arguments in words, for messages) and ``validate`` (``validate(output,
    *arguments, expected_dtype=, check_finite=)``) default to those the backend's
    capabilities name (``backend.capabilities.calling_convention``); without them, the
    arguments are written with ``repr`` and the output is not validated. A family may also
    validate with its own function over :meth:`raw_call`.
    """

    def __init__(
        self,
        backend: Backend,
        *,
        timeout: float,
        expected_dtype: str | None = None,
        check_finite: bool = True,
        describe: Callable[..., str] | None = None,
        validate: Callable[..., NDArray[Any]] | None = None,
    ) -> None:
        calling = getattr(backend.capabilities, "calling_convention", None)
        self.backend = backend
        timeout = check_timeout(timeout)
        self.describe = describe or getattr(calling, "describe", None) or describe_arguments
        self.validator = validate or getattr(calling, "validate", None)
        self.timeout = timeout
        self.expected_dtype = expected_dtype
        self.check_finite = check_finite
        self.hung = False
        self.hung_message: str | None = None  # the call that timed out, in words
        self.calls = 0  # backend calls made, and rows (positions) requested, for the report
        self.rows = 0
        self.watched: list[str] | None = None
        """None, or the list each call that changed one of its array arguments in place adds
        a sentence to (set by the engine's contract stage, :mod:`pespec.conformance.stage`)."""

    def raw_call(self, *args: Any) -> NDArray[Any]:
        """Call the backend on ``args`` (positions first) with the timeout; host array,
        unvalidated."""
        if self.hung:
            raise BackendFailure(
                "hung",
                f"not called: the backend hung in an earlier call (timeout {self.timeout:g} s)",
            )
        box: dict[str, Any] = {}
        self.calls += 1
        watched = None
        if self.watched is not None:
            watched = [np.array(a, copy=True) if isinstance(a, np.ndarray) else None for a in args]
        first = np.asarray(args[0])  # the first argument's rows: the calls' size
        self.rows += int(first.shape[0]) if first.ndim else 1

        def target() -> None:
            try:
                raw = self.backend.fn(*args)
            except BaseException as exc:  # a backend may raise anything, even SystemExit
                box["error"] = exc
                return
            box["raw"] = raw
            try:
                box["value"] = to_host(raw)
            except BaseException as exc:  # the result, not the backend, is the problem
                box["convert"] = exc

        worker = threading.Thread(target=target, name="pespec-backend-call", daemon=True)
        real_exit = os._exit
        if GUARD_OS_EXIT:
            os._exit = _refuse_exit  # type: ignore[assignment]
        try:
            worker.start()
            worker.join(self.timeout)
        finally:
            os._exit = real_exit
        where = self.describe_call(*args)
        if worker.is_alive():
            self.hung = True
            self.hung_message = f"the backend did not return within {self.timeout:g} s ({where})"
            raise BackendFailure("timeout", self.hung_message)
        if "convert" in box:
            exc = box["convert"]
            if isinstance(exc, TypeError) and "must return an array" in str(exc):
                raise BackendFailure("type", f"{exc} ({where})", box.get("raw"))
            raise BackendFailure(
                "type",
                f"the backend's result could not be copied to a NumPy array: "
                f"{type(exc).__name__}: {exc} ({where})",
                box.get("raw"),
            )
        if "error" in box:
            exc = box["error"]
            if isinstance(exc, BackendExit):
                raise BackendFailure(
                    "raised",
                    f"the backend called os._exit({exc.status}) ({where}); in-process, pespec "
                    "refused to end the process (a supervised run, the default, reports it too)",
                )
            raise BackendFailure(
                "raised",
                f"the backend raised {type(exc).__name__}: {exc} ({where}){table_hint(exc, args)}",
            )
        if watched is not None:
            self._watch(args, watched, where)
        value: NDArray[Any] = box["value"]
        return value

    def _watch(self, args: tuple[Any, ...], copies: list[Any], where: str) -> None:
        """Add to :attr:`watched` each array argument the call changed in place."""
        assert self.watched is not None
        for index, (given, before) in enumerate(zip(args, copies, strict=True)):
            if before is None:
                continue
            if given.dtype != before.dtype or not np.array_equal(given, before, equal_nan=True):
                self.watched.append(f"argument {index + 1} changed in place ({where})")

    def describe_call(self, *args: Any) -> str:
        """The call's arguments in words, for messages."""
        return self.describe(*args)

    def validate(self, output: NDArray[Any], *args: Any) -> NDArray[Any]:
        """``output`` of the call on ``args``, checked by the validation function with this
        guard's expected dtype and finiteness setting (unchecked without one)."""
        if self.validator is None:
            return output
        return self.validator(
            output, *args, expected_dtype=self.expected_dtype, check_finite=self.check_finite
        )

    def __call__(self, positions: NDArray[Any], *args: Any) -> NDArray[Any]:
        given = np.array(positions, copy=True)
        output = self.raw_call(given, *args)
        if given.dtype != positions.dtype or not np.array_equal(given, positions):
            raise BackendFailure("mutated", "the backend modified its positions argument")
        return self.validate(output, positions, *args)


def describe_arguments(*args: Any) -> str:
    """A call's arguments in words when the family gives no description: an array by its
    values (up to 6) or its size and ends, anything else by ``repr``."""
    words = []
    for arg in args:
        if isinstance(arg, np.ndarray) and arg.size > 6:
            words.append(f"{arg.size} values {arg.flat[0].item()!r}..{arg.flat[-1].item()!r}")
        else:
            words.append(repr(arg.tolist() if isinstance(arg, np.ndarray) else arg))
    return ", ".join(words)


def bit_identical(first: NDArray[Any], second: NDArray[Any]) -> bool:
    """Whether two outputs have the same shape, dtype and bytes (the determinism check)."""
    if first.shape != second.shape or first.dtype != second.dtype:
        return False
    return bool(np.ascontiguousarray(first).tobytes() == np.ascontiguousarray(second).tobytes())
