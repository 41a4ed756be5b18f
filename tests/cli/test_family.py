"""``pespec check --family NAME`` on the family registry (issue 25, item 5).

``pespec check --family rope ...`` is ``pespec rope check ...`` (same verdict, exit code,
output and JSON report, supervised or in process, and from a file); ``--family sinusoidal``
is the default; an unknown family or another family's option is a usage error (exit 2, one
line). The JSON report names its ``family`` and has one shape of ``level`` in both.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pespec.cli import main
from pespec.conformance.family import Family
from pespec.families import FAMILIES, families, get_family

ROPE = ["numpy-float32", "--config", "Llama-3.1-8B"]


def _report(path: Path) -> dict[str, Any]:
    """The JSON report without the run's clock (timestamp, durations)."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    for key in ("timestamp", "duration_s"):
        data.pop(key)
    for check in data["checks"]:
        check.pop("duration_s")
    return data


def test_the_registry_names_both_families_and_loads_their_parts() -> None:
    assert list(FAMILIES) == ["sinusoidal", "rope", "multiaxis", "multiaxis-rope", "fourier"]
    from pespec.rope.suite import RopeSuite
    from pespec.sinusoidal.run import Suite, check

    assert get_family(None) is FAMILIES["sinusoidal"]
    assert get_family("sinusoidal").load("suite") is Suite
    assert get_family("sinusoidal").load("check") is check
    assert get_family("rope").load("suite") is RopeSuite
    from pespec.multiaxis.sinusoidal.run import MultiAxisSuite

    assert get_family("multiaxis").load("suite") is MultiAxisSuite
    from pespec.multiaxis.rope.run import MRopeSuite

    assert get_family("multiaxis-rope").load("suite") is MRopeSuite
    for family in FAMILIES.values():
        for role in ("suite", "check", "load_backend", "check_file", "command"):
            assert callable(family.load(role)), (family.name, role)
    with pytest.raises(ValueError, match="role must be"):
        FAMILIES["rope"].load("nope")


def test_an_unknown_family_names_the_known_ones_and_the_closest() -> None:
    with pytest.raises(
        ValueError,
        match=(
            r"sinusoidal, rope, multiaxis, multiaxis-rope, fourier; got 'rop'; "
            r"did you mean rope\?"
        ),
    ):
        get_family("rop")


def test_a_family_from_the_entry_point_group_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    mine = Family("mine", "a test family", "m:S", "m:c", "m:l", "m:f", "m:run")

    class Entry:
        def __init__(self, value: Any) -> None:
            self.value = value

        def load(self) -> Any:
            if isinstance(self.value, Exception):
                raise self.value
            return self.value

    entries = [
        Entry(mine),
        Entry(ImportError("broken")),
        Entry("not a family"),
        Entry(Family("rope", "a clash", "", "", "", "", "")),
    ]
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: entries)
    assert list(families()) == [
        "sinusoidal",
        "rope",
        "multiaxis",
        "multiaxis-rope",
        "fourier",
        "mine",
    ]
    assert get_family("mine") is mine
    assert families()["rope"] is FAMILIES["rope"]


def test_pespec_check_family_rope_is_pespec_rope_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    outputs = {}
    for name, argv in (
        ("spelling", ["rope", "check", *ROPE]),
        ("family", ["check", "--family", "rope", *ROPE]),
        ("equals", ["check", "--family=rope", *ROPE]),
    ):
        assert main([*argv, "--json", f"{name}.json", "--quiet", "--in-process"]) == 0
        outputs[name] = capsys.readouterr().out
    assert outputs["spelling"] == outputs["family"] == outputs["equals"]
    assert "CONFORMANT" in outputs["family"]
    assert _report(tmp_path / "spelling.json") == _report(tmp_path / "family.json")


def test_a_non_conformant_rope_backend_exits_1_in_both_spellings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "half.py").write_text(
        "def rope(x, positions, config):\n    return x * 0.5\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    lines = {}
    for name, head in (("spelling", ["rope", "check"]), ("family", ["check", "--family", "rope"])):
        code = main(
            [
                *head,
                "half.py:rope",
                "--config",
                "Llama-3.1-8B",
                "--quiet",
                "--in-process",
                "--json",
                f"{name}.json",
            ]
        )
        assert code == 1
        lines[name] = capsys.readouterr().out
    assert lines["spelling"] == lines["family"] and "NON-CONFORMANT" in lines["family"]
    assert _report(tmp_path / "spelling.json") == _report(tmp_path / "family.json")


def test_family_rope_from_file_is_rope_check_from_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["rope", "inputs", "--config", "Llama-3.1-8B", "-o", "inputs.npz"]) == 0
    import numpy as np

    from pespec.rope import rotate
    from pespec.rope.presets import load_config

    with np.load(tmp_path / "inputs.npz") as data:
        x, positions = data["x"], data["positions"]
    config = load_config("Llama-3.1-8B").config
    np.save(tmp_path / "out.npy", rotate(x, positions, config))
    capsys.readouterr()
    outputs = {}
    for name, head in (("spelling", ["rope", "check"]), ("family", ["check", "--family", "rope"])):
        code = main(
            [
                *head,
                "--from-file",
                "out.npy",
                "--config",
                "Llama-3.1-8B",
                "--quiet",
                "--json",
                f"{name}.json",
            ]
        )
        assert code == 0
        outputs[name] = capsys.readouterr().out
    assert outputs["spelling"] == outputs["family"]
    assert _report(tmp_path / "spelling.json") == _report(tmp_path / "family.json")


def test_family_sinusoidal_is_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    outputs = {}
    for name, extra in (("default", []), ("named", ["--family", "sinusoidal"])):
        code = main(
            [
                "check",
                "numpy-float32",
                "--stages",
                "contract,golden",
                "--quiet",
                "--in-process",
                "--json",
                f"{name}.json",
                *extra,
            ]
        )
        assert code == 0
        outputs[name] = capsys.readouterr().out
    assert outputs["default"] == outputs["named"]
    default = _report(tmp_path / "default.json")
    assert default == _report(tmp_path / "named.json")
    assert default["family"] == "sinusoidal"


def test_both_families_report_one_shape_of_level(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # float32 in both: sinusoidal float32 works in float32 (R4 levels); rope's default level
    # for a float32 output is float32/float32/float32 (R8.9), its working dtype the phase's.
    monkeypatch.chdir(tmp_path)
    assert (
        main(
            [
                "check",
                "numpy-float32",
                "--stages",
                "contract,golden",
                "--quiet",
                "--in-process",
                "--json",
                "sin.json",
            ]
        )
        == 0
    )
    assert (
        main(["check", "--family", "rope", *ROPE, "--quiet", "--in-process", "--json", "rope.json"])
        == 0
    )
    sin = json.loads((tmp_path / "sin.json").read_text(encoding="utf-8"))
    rope = json.loads((tmp_path / "rope.json").read_text(encoding="utf-8"))
    assert (sin["family"], rope["family"]) == ("sinusoidal", "rope")
    assert (
        set(sin["level"])
        == set(rope["level"])
        == {"name", "stages", "output_dtype", "working_dtype"}
    )
    assert sin["level"] == {
        "name": "float32",
        "output_dtype": "float32",
        "working_dtype": "float32",
        "stages": {"working": "float32", "output": "float32"},
    }
    assert rope["level"] == {
        "name": "float32/float32/float32",
        "output_dtype": "float32",
        "working_dtype": "float32",
        "stages": {"phase": "float32", "cache": "float32", "rotation": "float32"},
    }


def test_the_supervisor_rebuilds_the_level_and_family_of_both() -> None:
    from pespec.conformance.report import Report
    from pespec.supervised.report_load import report_from_dict

    for report in (_sin_report(), _rope_report()):
        data = report.to_dict()
        rebuilt = report_from_dict(json.loads(json.dumps(data)))
        assert rebuilt.family == report.family == data["family"]
        assert rebuilt.to_dict()["level"] == data["level"]
        assert rebuilt.working_dtype == report.working_dtype
    # one Report class, the family is data (issue 25): no RopeReport subclass
    assert type(_rope_report()) is Report and type(_sin_report()) is Report
    assert (_rope_report().family, _sin_report().family) == ("rope", "sinusoidal")


def _fields() -> dict[str, Any]:
    return {
        "backend": "b",
        "backend_spec": "b",
        "device": "cpu",
        "capabilities": {},
        "output_dtype": "float16",
        "profile": "ci",
        "checks": [],
        "timestamp": "2026-01-01T00:00:00+00:00",
        "duration_s": 0.0,
    }


def _sin_report() -> Any:
    from pespec.conformance.report import Report

    return Report(**_fields(), level="float16@float64", working_dtype="float64")


def _rope_report() -> Any:
    from pespec.conformance.report import Report
    from pespec.rope.report import report_fields

    stages = {"phase": "float32", "cache": "float16", "rotation": "float16"}
    extra = report_fields(config={"rope_type": "default"}, level_stages=stages)
    return Report(**_fields(), level="float32/float16/float16", working_dtype="float32", **extra)


def test_sinusoidal_level_stages_follow_the_level_name() -> None:
    level = _sin_report().to_dict()["level"]
    assert level == {
        "name": "float16@float64",
        "output_dtype": "float16",
        "working_dtype": "float64",
        "stages": {"working": "float64", "output": "float16"},
    }


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["check", "--family", "rop", "numpy"], "did you mean rope?"),
        (["check", "--family", "", "numpy"], "--family must be one of sinusoidal, rope"),
        (
            ["check", "numpy", "--config", "Llama-3.1-8B"],
            "--config does not apply to --family sinusoidal",
        ),
        (
            ["check", "--family", "rope", *ROPE, "--convention", "whisper"],
            "--convention does not apply to --family rope",
        ),
        (["check", "--family", "rope", "numpy-float32"], "give --config"),
    ],
)
def test_family_usage_errors_exit_2_with_one_line(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_help_lists_each_family_and_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    text = capsys.readouterr().out
    assert "--family NAME" in text and "--family rope:" in text and "--config" in text


@pytest.mark.slow
def test_help_imports_no_family() -> None:
    code = (
        "import sys\nfrom pespec.cli import build_parser\nbuild_parser()\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith(('pespec.rope.', "
        "'pespec.sinusoidal.')) and not m.endswith('.family'))))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == ""


def test_rope_check_handler_is_the_registry_command() -> None:
    from pespec.cli import build_parser
    from pespec.cli.rope import run_check

    args = build_parser().parse_args(["rope", "check", *ROPE])
    assert args.func is run_check is FAMILIES["rope"].load("command")
    assert isinstance(args, argparse.Namespace)
