"""The one tolerance of each rotary family (issue 38, step 5): ``pespec.rope.errormodel.tolerance``
and ``pespec.multiaxis.rope.reference.tolerance``, the bound of a value every stage asks."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from pespec.multiaxis.rope import presets as mpresets
from pespec.multiaxis.rope import reference as mreference
from pespec.rope import oracle
from pespec.rope.errormodel import element_bound, rope_level_for_dtype, tolerance
from pespec.rope.inputs import rotary_x
from pespec.rope.presets import PRESETS
from pespec.rope.reference import rotate, rotation_bound

PACKAGE = Path(__file__).resolve().parents[2] / "pespec"


def _float32_model(x: np.ndarray, p: np.ndarray, name: str) -> np.ndarray:
    """A correct float32 rotation: the float64 reference rounded to float32 (one rounding,
    inside the float32 level's bound)."""
    return rotate(x, p, PRESETS[name]).astype(np.float32).astype(np.float64)


@pytest.mark.parametrize("name", ["Llama-2-7B", "Llama-3.1-8B"])
def test_a_correct_float32_output_is_within_the_tolerance_of_the_oracle(name: str) -> None:
    config = PRESETS[name]
    p = np.array([0.0, 1.0, 7.0, 1000.0, 4095.0])
    x = rotary_x(p.shape[0], config.head_dim)
    exact = oracle.rotate(x, p, config)
    level = rope_level_for_dtype("float32")
    allowed = tolerance(x, p, config, level, "float32", 2.0**-53 * np.abs(exact))
    assert np.all(np.abs(_float32_model(x, p, name) - exact) <= allowed)
    # against the float64 reference the bound adds the reference's proved error (Annex C.6)
    against_reference = tolerance(x, p, config, level, "float32")
    np.testing.assert_array_equal(
        against_reference,
        element_bound(x, p, config, level, "float32") + rotation_bound(x, config, p),
    )


def test_the_tolerance_catches_an_off_by_one_position() -> None:
    # Not vacuous: the rotation at p + 1 (an off-by-one position bug) leaves the bound.
    config = PRESETS["Llama-2-7B"]
    p = np.array([5.0, 100.0])
    x = rotary_x(2, config.head_dim)
    y = _float32_model(x, p + 1, "Llama-2-7B")
    allowed = tolerance(x, p, config, rope_level_for_dtype("float32"), "float32")
    assert np.any(np.abs(y - rotate(x, p, config)) > allowed)


def test_the_multi_axis_tolerance_covers_a_correct_float32_output() -> None:
    chosen = mpresets.PRESETS["qwen2.5-vl-7b"]
    positions = np.asarray(chosen.positions(), dtype=np.int64)[:40]
    x = rotary_x(positions.shape[0], chosen.config.head_dim)
    y = mreference.apply(x, positions, chosen.config).astype(np.float32).astype(np.float64)
    exact = mreference.oracle_apply(x, positions, chosen.config)
    level = rope_level_for_dtype("float32")
    allowed = mreference.tolerance(
        x, positions, chosen.config, level, "float32", 2.0**-53 * np.abs(exact)
    )
    assert np.all(np.abs(y - exact) <= allowed)


def _callers(folder: str, name: str) -> list[str]:
    found = []
    for path in sorted((PACKAGE / folder).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if called == name:
                    found.append(path.relative_to(PACKAGE).as_posix())
    return sorted(set(found))


def test_the_reference_term_is_added_in_one_place_per_family() -> None:
    # The reference's proved error joins the level bound only inside each family's tolerance.
    assert _callers("rope", "rotation_bound") == ["rope/errormodel.py"]
    assert _callers("multiaxis/rope", "reference_bound") == ["multiaxis/rope/reference.py"]
