"""Diagnosis of a rotary backend (SPEC Annex D.8, informative): what it computes instead.

:func:`diagnose` rotates basis vectors at chosen positions (three backend calls at most,
:mod:`.probes`), reads the pairing and each pair's angle and amplitude (:mod:`.layout`),
and compares them with candidate models from the certified oracle (:mod:`.candidates`):
the configured schedule and its slips, and each pipeline stage in each floating-point
format (:mod:`.stages`). The result (:class:`RopeDiagnosis`) names every cause found.
"""

from __future__ import annotations

from pespec.rope.diagnosis.diagnose import diagnose
from pespec.rope.diagnosis.report import RopeDiagnosis

__all__ = ["RopeDiagnosis", "diagnose"]
