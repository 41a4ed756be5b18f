"""ℓ per call (SPEC Annex G.1): ``dynamic`` and ``longrope`` checked as models run them.

A model does not know a fixed ℓ: transformers takes ℓ = (the largest position of the call)
+ 1 (dynamic NTK rescales θ once ℓ > L; longrope switches to the long factors and A once
ℓ > L0). A configuration with ``seq_len_rule="per-call"`` is checked in groups, one per ℓ of
:func:`call_lengths`, in increasing order: every call of group ℓ has positions in [0, ℓ) and
holds position ℓ − 1 (a row of zeros at ℓ − 1 is added to the call where its positions stop
short, and its output dropped), so the backend's ℓ is known, and each group is the ordinary
rotary run (:class:`~pespec.rope.suite.RopeRun`) of the configuration at that fixed ℓ. The
backend is always handed the declared per-call configuration: it must find ℓ itself.
Increasing ℓ is also the order a stateful module needs (transformers' dynamic cache only
grows until a call falls below L).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.backends import Backend
from pespec.conformance.compare import PlannedCheck
from pespec.conformance.report import CheckResult, Report
from pespec.rope.config import RopeConfig
from pespec.rope.guard import rope_guard
from pespec.rope.report import report_fields
from pespec.rope.schedules.registry import SCHEDULES

__all__ = ["PerCallRun", "at_seq_len", "call_config", "call_lengths", "per_call_run"]


def at_seq_len(config: RopeConfig, length: int) -> RopeConfig:
    """The per-call configuration at one call's ℓ (a fixed ``seq_len``)."""
    return dataclasses.replace(config, seq_len=length, seq_len_rule=None)


def call_config(config: RopeConfig, positions: Any) -> RopeConfig:
    """The configuration one call runs: at ℓ = its largest position + 1 when ℓ is per call
    (as transformers finds ℓ), else ``config`` itself. For backends that compute ℓ."""
    if config.seq_len_rule is None:
        return config
    p = np.asarray(positions)
    return at_seq_len(config, max(int(np.floor(p.max())) + 1, 1) if p.size else 1)


def call_lengths(config: RopeConfig, max_position: int) -> tuple[int, ...]:
    """The ℓ of each group, increasing: the last ℓ of the unscaled regime (L0 for longrope,
    L for dynamic), the first past it, the midpoint to the domain's end, and that end N."""
    n = max_position + 1
    threshold = SCHEDULES[config.rope_type].length_threshold(config)
    if threshold is None:
        return (n,)
    found = {threshold, threshold + 1, (threshold + n) // 2, n}
    return tuple(sorted(length for length in found if 1 <= length <= n))


class _Pinned:
    """The backend called so that the call's ℓ is ``length``: a zero row at ℓ − 1 added where
    the positions stop short (its output dropped), the declared configuration handed on."""

    def __init__(self, backend: Backend, declared: RopeConfig) -> None:
        self.backend, self.declared, self.length = backend, declared, 1

    def __call__(self, x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        p = np.asarray(positions)
        last = self.length - 1
        if p.size and p.max() >= last:
            return self.backend(x, positions, self.declared)
        pinned_x = np.concatenate([x, np.zeros((1, *np.shape(x)[1:]), dtype=np.asarray(x).dtype)])
        pinned_p = np.concatenate([p, np.array([last], dtype=p.dtype)])
        out = np.asarray(self.backend(pinned_x, pinned_p, self.declared))
        return out[:-1] if out.ndim >= 1 and out.shape[0] == p.shape[0] + 1 else out


class PerCallRun:
    """The rotary run of a per-call configuration: one :class:`RopeRun` per ℓ of
    :func:`call_lengths`, sharing one guard; check ids end in ``@ℓ=N``."""

    family = "rope"

    def __init__(self, run: Any) -> None:
        caps = run.backend.capabilities
        if run.domain.fractional:
            raise ValueError(
                "fractional_positions must be False with seq_len_rule 'per-call' (ℓ is the "
                "largest integer position of a call + 1); got True"
            )
        self.config: RopeConfig = run.config
        self.domain = run.domain
        self.lengths = call_lengths(self.config, self.domain.max_position)
        self.pinned = _Pinned(run.backend, self.config)
        self.backend = dataclasses.replace(
            run.backend, fn=self.pinned, capabilities=dataclasses.replace(caps, configs=None)
        )
        self.guard = rope_guard(self.backend, timeout=run.guard.timeout)
        self.profile, self.stages, self.all_stages = run.profile, run.stages, run.all_stages
        notes = run.config_notes
        self.runs = {length: self._group(type(run), run, length) for length in self.lengths}
        self.config_notes = [
            *notes,
            "ℓ per call (each call's largest position + 1): checked in calls of ℓ = "
            + ", ".join(str(length) for length in self.lengths),
        ]
        self._planned: dict[str, tuple[int, PlannedCheck]] = {}

    def _group(self, kind: Any, run: Any, length: int) -> Any:
        group = kind(
            self.backend,
            at_seq_len(self.config, length),
            level=run.requested_rope_level,
            profile=run.profile,
            timeout=run.guard.timeout,
            stages=run.stages,
            max_position=length - 1,
            fractional_positions=False,
            config_notes=run.config_notes,
        )
        group.guard = self.guard
        return group

    def plan(self) -> list[PlannedCheck]:
        """Every group's checks, in increasing ℓ, each id suffixed ``@ℓ=N``."""
        planned = []
        for length, group in self.runs.items():
            for check in group.plan():
                renamed = dataclasses.replace(
                    check, id=f"{check.id}@ℓ={length}", title=f"{check.title} (ℓ = {length})"
                )
                self._planned[renamed.id] = (length, check)
                planned.append(renamed)
        return planned

    def dispatch(self, planned: PlannedCheck) -> CheckResult:
        """Run the check in its group, calls pinned to the group's ℓ."""
        if not self._planned:
            self.plan()
        length, check = self._planned[planned.id]
        self.pinned.length = length
        result: CheckResult = self.runs[length].dispatch(check)
        result.id, result.title = planned.id, planned.title
        return result

    def report_fields(self) -> dict[str, Any]:
        """The first group's level and dtypes, the declared configuration and domain."""
        fields: dict[str, Any] = next(iter(self.runs.values())).report_fields()
        fields.update(
            report_fields(
                config=self.config.to_dict(),
                level_stages=fields["level_stages"],
                domain=self.domain.to_dict(),
                config_notes=self.config_notes,
            )
        )
        return fields

    def diagnose(self, report: Report) -> None:
        """The diagnosis of the first group with a failed check, at its ℓ."""
        failed = [c.id for c in report.checks if c.status == "failed" and "@ℓ=" in c.id]
        if not failed:
            return next(iter(self.runs.values())).diagnose(report)  # type: ignore[no-any-return]
        length = int(failed[0].rpartition("@ℓ=")[2])
        self.pinned.length = length
        self.runs[length].diagnose(report)
        if report.diagnosis_sentence:
            report.diagnosis_sentence = (
                f"in calls of ℓ = {length} (largest position {length - 1}): "
                f"{report.diagnosis_sentence}"
            )


def per_call_run(run: Any) -> Any:
    """``run`` itself, or its :class:`PerCallRun` when its configuration's ℓ is per call."""
    return PerCallRun(run) if run.config.seq_len_rule is not None else run
