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

A family may declare as data what it would otherwise write out (a small family writes only
its checks): :attr:`EngineRun.declares` (its own capability fields and their parsers; the
capabilities type is then made for it, :func:`declared_capabilities`), :attr:`EngineRun.
contract_args` (the engine's contract stage on :meth:`EngineRun.call`), :attr:`EngineRun.
checks` (a stage of one check per item, :class:`PerItem`) and :attr:`EngineRun.hooks` (the
module of its report fields and diagnosis).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, make_dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar, cast

from numpy.typing import NDArray

from pespec.conformance.backends import Backend, BackendCapabilities
from pespec.conformance.compare import PlannedCheck
from pespec.conformance.contract import GuardedBackend
from pespec.conformance.engine import DEFAULT_TIMEOUT, Suite, select_stages
from pespec.conformance.guard import CallingConvention
from pespec.conformance.loading import load_backend
from pespec.conformance.profiles import resolve_profile
from pespec.conformance.report import CheckResult, Report
from pespec.conformance.stage import ContractStage, contract_plan, validated_output

__all__ = ["EngineRun", "LevelCodec", "Levels", "PerItem", "declared_capabilities", "dtype_levels"]

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


@dataclass(frozen=True)
class PerItem:
    """A stage of one check per item of the run's attribute ``items`` (a sequence): check
    ``id.format(item)`` (its stage: the part of ``id`` before ``:``) titled
    ``title.format(item)`` under ``section``, the item its payload, judged by the run's
    method ``check_<stage>`` (``-`` read as ``_``)."""

    id: str
    title: str
    section: str
    items: str

    @property
    def stage(self) -> str:
        """The stage of the checks: ``id`` up to its ``:``."""
        return self.id.partition(":")[0]

    def planned(self, item: Any) -> PlannedCheck:
        """The check of ``item``."""
        return PlannedCheck(
            self.id.format(item), self.stage, self.title.format(item), self.section, item
        )


def _json_ready(value: Any) -> Any:
    """A declared field's value for a report: a tuple as a list."""
    return list(value) if isinstance(value, tuple) else value


def declared_capabilities(run: type[EngineRun]) -> type[BackendCapabilities]:
    """The capabilities type of ``run``: the shared fields and each of ``run.declares``
    (default None; a given value read by its parser), a level read by ``run.levels``, and
    ``run.calling_convention``; named ``<Family>Capabilities`` after ``<Family>Run``."""
    parsers, levels = dict(run.declares), run.levels

    def check_fields(self: BackendCapabilities) -> None:
        for name, parse in parsers.items():
            if getattr(self, name) is not None:
                object.__setattr__(self, name, parse(getattr(self, name)))

    def check_level(self: BackendCapabilities) -> None:
        if self.level is not None:
            levels.parse(self.level)

    def to_dict(self: BackendCapabilities) -> dict[str, Any]:
        own = {name: _json_ready(getattr(self, name)) for name in parsers}
        return {**BackendCapabilities.to_dict(self), **own}

    namespace: dict[str, Any] = {"check_fields": check_fields, "check_level": check_level}
    namespace.update(to_dict=to_dict, calling_convention=run.calling_convention)
    made = make_dataclass(
        run.__name__.removesuffix("Run") + "Capabilities",
        [(name, Any, None) for name in parsers],
        bases=(BackendCapabilities,),
        frozen=True,
        namespace=namespace,
    )
    made.__module__ = run.__module__
    return cast("type[BackendCapabilities]", made)


class EngineRun:
    """The chores every family run starts with (see the module docstring)."""

    family: ClassVar[str]
    all_stages: ClassVar[tuple[str, ...]]
    capabilities_type: ClassVar[type[BackendCapabilities]] = BackendCapabilities
    entry_point_group: ClassVar[str]
    levels: ClassVar[LevelCodec[Any]]
    output_dtypes: ClassVar[Collection[str]] = ("float64", "float32", "float16", "bfloat16")
    """The output dtypes a backend of the family may return (the validated call's ``allowed``)."""
    declares: ClassVar[Mapping[str, Callable[[Any], Any]]] = {}
    """The family's own capability fields and their parsers (see :func:`declared_capabilities`)."""
    calling_convention: ClassVar[CallingConvention | None] = None
    """How the family calls a backend, when its capabilities type is made from :attr:`declares`."""
    contract_args: ClassVar[tuple[Any, ...] | None] = None
    """The arguments of the engine's contract stage on :meth:`call` (None: no such stage)."""
    contract_rules: ClassVar[Mapping[str, str]] = {}
    """The family's wording of contract rules (:func:`~pespec.conformance.stage.contract_plan`)."""
    contract_section: ClassVar[str] = ""
    """The spec section of the contract stage's checks."""
    checks: ClassVar[tuple[PerItem, ...]] = ()
    """The stages of one check per item, in order, after ``contract``."""
    hooks: ClassVar[str | None] = None
    """The module holding ``report_fields(run)`` and ``diagnose(run, report)``; None: defaults."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A run that declares its fields or stages as data gets its capabilities type and
        its stages made from them."""
        super().__init_subclass__(**kwargs)
        if "declares" in cls.__dict__ and "capabilities_type" not in cls.__dict__:
            cls.capabilities_type = declared_capabilities(cls)
        declared = "contract_args" in cls.__dict__ or "checks" in cls.__dict__
        if declared and "all_stages" not in cls.__dict__:
            contract = ("contract",) if cls.contract_args is not None else ()
            cls.all_stages = (*contract, *(each.stage for each in cls.checks))

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
        if self.contract_args is not None:
            self.contract = ContractStage(self.guard, self.call, *self.contract_args)

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

    def call(self, *args: Any) -> NDArray[Any]:
        """The backend's output for ``args`` through the guard, validated
        (:meth:`validated`, against :meth:`output_shape`); BackendFailure otherwise."""
        out = self.guard.raw_call(*args)
        self.validated(out, self.output_shape(*args), where=self.guard.describe_call(*args))
        return out

    def output_shape(self, *args: Any) -> tuple[int, ...]:
        """The shape of a correct output for ``args`` (the family's content, for :meth:`call`)."""
        raise NotImplementedError

    def first_output(self, name: str) -> None:
        """The first call's output dtype ``name``: the claim checked against it
        (:meth:`check_claim`), then recorded (the default level follows from it)."""
        self.check_claim(name)
        self.output_dtype = name

    def check_claim(self, name: str) -> None:
        """BackendFailure (kind ``dtype``) when the claimed level does not fit output dtype
        ``name`` (the family's content; default: every claim fits)."""

    def plan(self) -> list[PlannedCheck]:
        """Every check of the selected stages: the declared ones (:attr:`contract_args`,
        :attr:`checks`), else the family's content."""
        if self.contract_args is None and not self.checks:
            raise NotImplementedError
        planned: list[PlannedCheck] = []
        if "contract" in self.stages and self.contract_args is not None:
            planned += contract_plan(self.contract_section, self.contract_rules)
        for each in self.checks:
            if each.stage in self.stages:
                planned += [each.planned(item) for item in getattr(self, each.items)]
        return planned

    def dispatch(self, planned: PlannedCheck) -> CheckResult:
        """Run one planned check: the run's method ``check_<stage>`` (the family's content)."""
        judge = getattr(self, "check_" + planned.stage.replace("-", "_"), None)
        if judge is None:
            raise NotImplementedError
        return cast("CheckResult", judge(planned))

    def _hook(self, name: str) -> Any:
        """The function ``name`` of :attr:`hooks`, or None (no such module or function)."""
        if self.hooks is None:
            return None
        return getattr(importlib.import_module(self.hooks), name, None)

    def report_fields(self) -> dict[str, Any]:
        """The report keywords only the family knows: :attr:`hooks`' ``report_fields(run)``,
        else the level and output dtype (no working dtype)."""
        hook = self._hook("report_fields")
        if hook is not None:
            return cast("dict[str, Any]", hook(self))
        return {"level": self.level, "output_dtype": self.output_dtype, "working_dtype": None}

    def diagnose(self, report: Report) -> None:
        """Explain a non-conformant report: :attr:`hooks`' ``diagnose(run, report)``, else
        nothing."""
        hook = self._hook("diagnose")
        if hook is not None:
            hook(self, report)

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
