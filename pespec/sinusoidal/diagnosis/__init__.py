"""Diagnosis of a non-conformant backend: its convention and its working precision (SPEC Annex D).

Called by the conformance suite only after a failing verdict, so a conformant backend is
never slowed down. :func:`diagnose` probes the backend with a few small configurations
(:mod:`.probes`), fits the convention family of SPEC §3 (layout × frequency shift × base ×
position offset × argument scale, plus an overall output scale such as MLX's √(2/d);
:mod:`.fit`), infers the working precision from how the error grows with the angle and from
which integer positions the backend can still tell apart (:mod:`.precision`), verifies the
chosen candidate against the error model (:mod:`.verify`), and returns a :class:`Diagnosis`
with a JSON form and a one-sentence summary (:mod:`.result`). Named mistakes outside the
family are in :mod:`.slips`, the rounded-timestep probe in :mod:`.rounding`; the sequence
itself in :mod:`.pipeline`. A backend that raises, returns the wrong shape, NaN, garbage or a
constant gets "no known convention", never an exception.
"""

from pespec.sinusoidal.diagnosis.pipeline import diagnose
from pespec.sinusoidal.diagnosis.precision import classify_error_bits
from pespec.sinusoidal.diagnosis.probes import (
    PRIMARY_BASE,
    SECONDARY_BASE,
    fit_dims,
)
from pespec.sinusoidal.diagnosis.result import Diagnosis
from pespec.sinusoidal.diagnosis.verify import LIMIT_TOLERANCE

__all__ = [
    "LIMIT_TOLERANCE",
    "PRIMARY_BASE",
    "SECONDARY_BASE",
    "Diagnosis",
    "classify_error_bits",
    "diagnose",
    "fit_dims",
]
