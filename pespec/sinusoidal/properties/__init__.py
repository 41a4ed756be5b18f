"""pespec.sinusoidal.properties: the error model and the properties of SPEC §4–§5.

* :mod:`~pespec.sinusoidal.properties.base`: configurations, levels, results, violations.
* :mod:`~pespec.numerics.formats`: what the error model needs of the floating-point formats.
* :mod:`~pespec.sinusoidal.properties.errormodel`: the per-element bound (SPEC §4), tables.
* :mod:`~pespec.sinusoidal.properties.registry`: :data:`PROPERTIES`, the decorator filling it.
* :mod:`~.accuracy` (§5.1–§5.3), :mod:`~.geometry` (§5.4–§5.6), :mod:`~.structure`
  (§5.7–§5.9): the properties, one function each, on :mod:`~.context` (messages) and
  :mod:`~.rows` (evaluating the backend).
* :mod:`~pespec.sinusoidal.properties.strategies`: Hypothesis strategies (the profiles are the
  engine's, :mod:`pespec.conformance.profiles`).

Names (issue 13): a property function is ``prop_<name>`` (``prop_accuracy``, ``prop_norm``,
…), registered with its SPEC section and statement by
:func:`~pespec.sinusoidal.properties.registry.spec_property`; ``check_*`` names only argument
validators (as in Hypothesis), such as :func:`~pespec.sinusoidal.properties.base.check_claimable`.
"""

# The families register their properties in PROPERTIES when imported (SPEC order is kept by
# section whatever the import order).
from pespec.numerics.formats import DTYPES
from pespec.sinusoidal.properties.accuracy import prop_accuracy, prop_boundedness, prop_norm
from pespec.sinusoidal.properties.base import (
    LEVELS,
    Encoder,
    EncodingConfig,
    Level,
    PropertyResult,
    PropertyViolation,
    level_for_dtype,
    parse_level,
)
from pespec.sinusoidal.properties.errormodel import (
    element_bound,
    max_element_bound,
    meaningful_position_limit,
    uniqueness_position_limit,
)
from pespec.sinusoidal.properties.geometry import prop_dot_products, prop_rotation, prop_uniqueness
from pespec.sinusoidal.properties.independence import prop_config_independence
from pespec.sinusoidal.properties.registry import PROPERTIES, PropertyCheck
from pespec.sinusoidal.properties.structure import (
    prop_determinism,
    prop_frequency_structure,
    prop_low_precision,
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
    "element_bound",
    "level_for_dtype",
    "max_element_bound",
    "meaningful_position_limit",
    "parse_level",
    "prop_accuracy",
    "prop_boundedness",
    "prop_config_independence",
    "prop_determinism",
    "prop_dot_products",
    "prop_frequency_structure",
    "prop_low_precision",
    "prop_norm",
    "prop_rotation",
    "prop_uniqueness",
    "uniqueness_position_limit",
]
