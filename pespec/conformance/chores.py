"""The chores of a family run, done once by the engine for every family (issue 38).

:class:`EngineRun` is what every :class:`~pespec.conformance.engine.FamilyRun` starts with:
the backend loaded with the family's capabilities type and entry-point group, the profile,
the stages selected (:func:`~pespec.conformance.engine.select_stages`), the level claimed
(the ``level`` argument, else the backend's declared one) read by the family's
:class:`LevelCodec`, and the guarded call (timeout checked once,
:func:`~pespec.conformance.contract.check_timeout`). A family subclasses it with its
content (class attributes, its own options, plan, dispatch, report fields, diagnosis) and gets
its suite factory and check function as :meth:`EngineRun.suite` and :meth:`EngineRun.check`.
The engine's :class:`~pespec.conformance.engine.Suite` is not subclassed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from numpy.typing import NDArray

from pespec.conformance.backends import Backend, BackendCapabilities
from pespec.conformance.compare import PlannedCheck
from pespec.conformance.contract import GuardedBackend
from pespec.conformance.engine import DEFAULT_TIMEOUT, Suite, select_stages
from pespec.conformance.loading import load_backend
from pespec.conformance.profiles import resolve_profile
from pespec.conformance.report import CheckResult, Report
from pespec.conformance.stage import validated_output

__all__ = ["EngineRun", "LevelCodec", "Levels", "dtype_levels"]

L = TypeVar("L")
L_co = TypeVar("L_co", covariant=True)


class LevelCodec(Protocol[L_co]):
    """How a family reads its levels (SPEC §4.3, R8.7): every level type implements it."""

    def parse(self, text: str) -> L_co:
        """The level named ``text`` (ValueError naming what is allowed)."""
        ...

    def for_dtype(self, dtype: str) -> L_co:
        """The default level of an output dtype name."""
        ...


@dataclass(frozen=True)
class Levels(Generic[L]):
    """A :class:`LevelCodec` from a family's two functions."""

    parse_text: Callable[[str], L]
    default: Callable[[str], L]

    def parse(self, text: str) -> L:
        return self.parse_text(text)

    def for_dtype(self, dtype: str) -> L:
        return self.default(dtype)


def dtype_levels(allowed: Collection[str]) -> Levels[str]:
    """Levels that are output dtype names (``allowed``; a family without working precisions)."""

    def parse(text: str) -> str:
        if text not in allowed:
            raise ValueError(f"level must be one of {sorted(allowed)}; got {text!r}")
        return text

    return Levels(parse, parse)


def level_name(level: Any) -> str:
    """A level's name: its ``name`` attribute, or the level itself (a dtype name)."""
    return level if isinstance(level, str) else str(level.name)


class EngineRun:
    """The chores every family run starts with (see the module docstring)."""

    family: ClassVar[str]
    all_stages: ClassVar[tuple[str, ...]]
    capabilities_type: ClassVar[type[BackendCapabilities]] = BackendCapabilities
    entry_point_group: ClassVar[str]
    levels: ClassVar[LevelCodec[Any]]
    output_dtypes: ClassVar[Collection[str]] = ("float64", "float32", "float16", "bfloat16")
    """The output dtypes a backend of the family may return (the validated call's ``allowed``)."""

    def __init__(
        self,
        backend: str | Backend | Callable[..., Any],
        *,
        level: str | None = None,
        profile: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        stages: Sequence[str] | None = None,
        describe: Callable[..., str] | None = None,
    ) -> None:
        self.backend = self.load(backend)
        self.profile = resolve_profile(profile)
        self.stages = select_stages(self.all_stages if stages is None else stages, self.all_stages)
        claim = level if level is not None else self.backend.capabilities.level
        self.claimed: Any = None if claim is None else self.levels.parse(claim)
        self.output_dtype: str | None = None
        self.guard = GuardedBackend(self.backend, timeout=timeout, describe=describe)

    @classmethod
    def load(cls, spec: str | Backend | Callable[..., Any]) -> Backend:
        """A backend from ``module:attr``, ``file.py:attr``, an entry point of the family's
        group, a callable or a Backend, with the family's capabilities type."""
        return load_backend(
            spec, capabilities_type=cls.capabilities_type, group=cls.entry_point_group
        )

    @property
    def level(self) -> str | None:
        """The level's name: the claim, else the output dtype's default (after a call)."""
        if self.claimed is None and self.output_dtype is None:
            return None
        return level_name(self.level_object())

    def level_object(self) -> Any:
        """The level judged: the claim, else the output dtype's default (float64 before a call)."""
        if self.claimed is not None:
            return self.claimed
        return self.levels.for_dtype(self.output_dtype or "float64")

    def validated(
        self,
        out: NDArray[Any],
        shape: tuple[int, ...],
        *,
        where: str,
        row: Callable[[int], str] | None = None,
    ) -> str:
        """The engine's validated call (:func:`~pespec.conformance.stage.validated_output`) on
        ``out`` with this run's dtypes, the dtype of its earlier calls and
        :meth:`first_output`: its dtype name, or BackendFailure."""
        return validated_output(
            out,
            shape,
            allowed=self.output_dtypes,
            seen=self.output_dtype,
            where=where,
            first=self.first_output,
            row=row,
        )

    def first_output(self, name: str) -> None:
        """The first call's output dtype ``name``: the claim checked against it
        (:meth:`check_claim`), then recorded (the default level follows from it)."""
        self.check_claim(name)
        self.output_dtype = name

    def check_claim(self, name: str) -> None:
        """BackendFailure (kind ``dtype``) when the claimed level does not fit output dtype
        ``name`` (the family's content; default: every claim fits)."""

    def plan(self) -> list[PlannedCheck]:
        """Every check of the selected stages (the family's content)."""
        raise NotImplementedError

    def dispatch(self, planned: PlannedCheck) -> CheckResult:
        """Run one planned check (the family's content)."""
        raise NotImplementedError

    def report_fields(self) -> dict[str, Any]:
        """The report keywords only the family knows (default: the level and output dtype)."""
        return {"level": self.level, "output_dtype": self.output_dtype}

    def diagnose(self, report: Report) -> None:
        """Explain a non-conformant report (default: no diagnosis)."""

    @classmethod
    def suite(cls, backend: str | Backend | Callable[..., Any], **options: Any) -> Suite:
        """The engine's Suite on a run of this family (the family's suite factory)."""
        return Suite(cls(backend, **options))

    @classmethod
    def check(
        cls, backend: str | Backend | Callable[..., Any], *, diagnose: bool = True, **options: Any
    ) -> Report:
        """Run this family's suite on ``backend`` in this process and return the report."""
        return cls.suite(backend, **options).run(diagnose=diagnose)
