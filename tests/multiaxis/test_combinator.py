"""The multi-axis combinator's kind-independent parts (pespec/multiaxis/combinator.py), and
that both section kinds resolve ``--config`` through it alike."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pespec.multiaxis.combinator import axis_reversed, certified_set_check, resolve_preset
from pespec.multiaxis.rope import presets as rope_presets
from pespec.multiaxis.sinusoidal import presets as sincos_presets


class Toy:
    def __init__(self, name: str) -> None:
        self.name = name


PRESETS = {"alpha": Toy("alpha"), "beta": Toy("beta")}


def from_mapping(data: Mapping[str, Any], name: str) -> Toy:
    return Toy(f"{data['n']}@{name}")


def test_a_name_an_instance_a_mapping_and_a_file(tmp_path: Path) -> None:
    assert resolve_preset("alpha", Toy, PRESETS, from_mapping) is PRESETS["alpha"]
    mine = Toy("mine")
    assert resolve_preset(mine, Toy, PRESETS, from_mapping) is mine
    assert resolve_preset({"n": 1}, Toy, PRESETS, from_mapping).name == "1@config.json"
    path = tmp_path / "grid.json"
    path.write_text(json.dumps({"n": 2}), encoding="utf-8")
    assert resolve_preset(str(path), Toy, PRESETS, from_mapping).name == "2@grid.json"


def test_bad_values_are_refused_with_what_is_allowed(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"one of \['alpha', 'beta'\].*'alpah'.*alpha"):
        resolve_preset("alpah", Toy, PRESETS, from_mapping)
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ValueError, match="must hold a JSON object"):
        resolve_preset(str(listed), Toy, PRESETS, from_mapping)
    with pytest.raises(ValueError, match="could not be read"):
        resolve_preset(str(tmp_path / "missing.json"), Toy, PRESETS, from_mapping)
    with pytest.raises(TypeError, match=r"a preset name, a dict or a \.json path; got 3"):
        resolve_preset(3, Toy, PRESETS, from_mapping)


@pytest.mark.parametrize("kind", [sincos_presets, rope_presets])
def test_both_section_kinds_resolve_alike(kind: Any) -> None:
    name = next(iter(kind.PRESETS))
    assert kind.resolve_config(name) is kind.PRESETS[name]
    with pytest.raises(ValueError, match=r"config must be one of .* or a JSON file; got 'nope'"):
        kind.resolve_config("nope")
    with pytest.raises(TypeError, match="config must be a preset name"):
        kind.resolve_config(1.5)


def test_axis_reversed_maps_each_coordinate_onto_its_mirror() -> None:
    # axis 0 holds {0, 1, 2}: 0 <-> 2, 1 stays; axis 1 holds {5, 7}: 5 <-> 7.
    positions = np.array([[0, 5], [1, 5], [2, 7]], dtype=np.int64)
    assert axis_reversed(positions, 0).tolist() == [[2, 5], [1, 5], [0, 7]]
    assert axis_reversed(positions, 1).tolist() == [[0, 7], [1, 7], [2, 5]]
    assert positions.tolist() == [[0, 5], [1, 5], [2, 7]]  # the input is left as it was


def test_the_golden_check_of_a_certified_set_or_none() -> None:
    class Fixture:
        name, preset, rows = "multiaxis-toy", "toy", np.arange(5)

    assert certified_set_check(None, "grid", "§9.4") == []
    (planned,) = certified_set_check(Fixture(), "ids", "§9.7")
    assert (planned.id, planned.stage) == ("golden:multiaxis-toy", "golden")
    assert planned.section == "§9.7"
    assert planned.title == "the certified set of toy (5 ids rows)"


def test_separability_compares_the_sections_not_reading_the_moved_axis() -> None:
    from types import SimpleNamespace

    from pespec.conformance.compare import PlannedCheck
    from pespec.multiaxis.combinator import separability_result

    sections = [SimpleNamespace(axis=0), SimpleNamespace(axis=1), SimpleNamespace(axis=1)]
    positions = np.array([[0, 5], [1, 5], [2, 7]])
    seen: list[Any] = []

    def compare(others: list[int], moved: Any) -> Any:
        seen.append((others, moved.tolist()))
        return "compared"

    planned = PlannedCheck("separability:axis-0", "separability", "t", "§9", 0)
    assert separability_result(planned, sections, positions, compare) == "compared"
    assert seen == [([1, 2], [[2, 5], [1, 5], [0, 7]])]
    only = PlannedCheck("separability:axis-1", "separability", "t", "§9", 1)
    result = separability_result(only, sections[1:], positions, compare)
    assert (result.status, result.message) == ("passed", "every section reads axis 1")
    assert len(seen) == 1
