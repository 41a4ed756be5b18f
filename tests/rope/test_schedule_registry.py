"""Each rotary schedule is one module holding all its forms (issue 25, item 4; design rule 3).

The generic rotary code (configuration, config.json reader, oracle, error model, domain,
diagnosis) finds a schedule in ``pespec.rope.schedules.registry`` and never names one, so
adding a schedule adds a module there and edits no generic module.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import pespec.rope
from pespec.rope import ROPE_TYPES, RopeConfig
from pespec.rope.schedules.registry import SCHEDULES, schedule_of

ROPE = Path(pespec.rope.__file__).parent

NAMING_ALLOWED = {
    "schedules",  # the schedule modules themselves
    "presets.py",  # real models' configurations name their schedule
    "variants.py",  # named configurations (issue 36) name their schedule like presets
    "diagnosis/naming.py",  # an NTK fit against a default config is read as θ (issue 39)
    "diagnosis/examples.py",  # the worked bug examples are configurations too
    "diagnosis/candidates.py",  # cross-schedule slips: read as 'default' or as 'linear'
}
"""Paths under pespec/rope that may spell a schedule's name."""


def _named_schedules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in SCHEDULES
    }


def test_registry_order_is_spec_order() -> None:
    assert ROPE_TYPES == (
        "default", "linear", "dynamic", "yarn", "llama3", "longrope", "ntk", "proportional",
        "custom",
    )  # fmt: skip
    assert tuple(s.name for s in SCHEDULES.values()) == ROPE_TYPES


@pytest.mark.parametrize("name", ROPE_TYPES)
def test_each_schedule_is_one_module(name: str) -> None:
    module = importlib.import_module(f"pespec.rope.schedules.{name}")
    assert module.SCHEDULE is SCHEDULES[name]
    assert schedule_of(name) is module.SCHEDULE


def test_the_registry_finds_the_schedules_itself() -> None:
    """Adding a schedule edits no registry line: registry.py imports no schedule module and
    spells no schedule's name; it collects every module's SCHEDULE in SPEC_ORDER."""
    source = (ROPE / "schedules" / "registry.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    } | {
        (node.module or "").rpartition(".")[2]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
    }
    assert not imported & set(SCHEDULES), imported & set(SCHEDULES)
    assert _named_schedules(ROPE / "schedules" / "registry.py") == set()
    orders = [importlib.import_module(f"pespec.rope.schedules.{n}").SPEC_ORDER for n in ROPE_TYPES]
    assert orders == sorted(orders) == list(range(len(ROPE_TYPES)))


def test_schedule_of_names_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match=r"rope_type must be one of \['default'.*got 'xpos'"):
        schedule_of("xpos")


def test_no_generic_rotary_module_names_a_schedule() -> None:
    offenders = {}
    for path in sorted(ROPE.rglob("*.py")):
        relative = path.relative_to(ROPE).as_posix()
        if relative.split("/")[0] in NAMING_ALLOWED or relative in NAMING_ALLOWED:
            continue
        named = _named_schedules(path) - {"default"}  # "default" is also an ordinary word
        if named:
            offenders[relative] = sorted(named)
    assert offenders == {}


def test_config_facts_come_from_the_registry() -> None:
    """RopeConfig's allowed fields are the schedule's required + optional ones."""
    for name, schedule in SCHEDULES.items():
        for field in schedule.required:
            assert field not in schedule.optional, (name, field)
    with pytest.raises(ValueError, match="low_freq_factor is required for rope_type 'llama3'"):
        RopeConfig(head_dim=8, rope_type="llama3", factor=8.0, high_freq_factor=4.0,
                   original_max_position_embeddings=8192)  # fmt: skip


def test_from_hf_keeps_both_spellings() -> None:
    data = {"head_dim": 64, "rope_theta": 500000.0, "rope_scaling": {
        "rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192}}  # fmt: skip
    assert RopeConfig.from_hf(data) == pespec.rope.from_hf(data)
    assert RopeConfig.from_hf(data).rope_type == "llama3"
