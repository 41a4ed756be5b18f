"""pespec.properties: the error model and the properties of SPEC §4–§5.

* :mod:`~pespec.properties.base`: configurations, levels, results, violations.
* :mod:`~pespec.properties.errormodel`: the per-element bound (SPEC §4) and its tables.
* :mod:`~pespec.properties.checks`: one check per property (SPEC §5), and :data:`PROPERTIES`.
* :mod:`~pespec.properties.strategies`, :mod:`~pespec.properties.profiles`: Hypothesis.
"""

from pespec.properties.base import (
    DTYPES,
    LEVELS,
    Encoder,
    EncodingConfig,
    Level,
    PropertyResult,
    PropertyViolation,
    level_for_dtype,
    parse_level,
)
from pespec.properties.checks import (
    PROPERTIES,
    PropertyCheck,
    check_accuracy,
    check_boundedness,
    check_determinism,
    check_dot_products,
    check_frequency_structure,
    check_low_precision,
    check_norm,
    check_rotation,
    check_uniqueness,
)
from pespec.properties.errormodel import (
    element_bound,
    max_element_bound,
    meaningful_position_limit,
    uniqueness_position_limit,
)

__all__ = [
    "DTYPES",
    "LEVELS",
    "PROPERTIES",
    "Encoder",
    "EncodingConfig",
    "Level",
    "PropertyCheck",
    "PropertyResult",
    "PropertyViolation",
    "check_accuracy",
    "check_boundedness",
    "check_determinism",
    "check_dot_products",
    "check_frequency_structure",
    "check_low_precision",
    "check_norm",
    "check_rotation",
    "check_uniqueness",
    "element_bound",
    "level_for_dtype",
    "max_element_bound",
    "meaningful_position_limit",
    "parse_level",
    "uniqueness_position_limit",
]
