"""Every golden fixture is verified against MANIFEST before use (issue 24, item 5; SPEC §7).

A copy of the shipped folder is tampered with and put in the place of the shipped one
(the engine's ``fixture_directory`` patched): the rotary suite, the rotary from-file route,
the absolute suite and ``pespec golden verify`` must all refuse it, naming the file and the
mismatch; the untouched copy must pass. The edits are the issue's reproduction: one rotated value
changed in its decimal and its hex form together (so the file stays self-consistent), and
the configuration's θ changed (which used to make the golden stage vanish silently).
"""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

import numpy as np
import pytest

import pespec.conformance.fixtures as fixtures
from pespec.cli import main
from pespec.conformance.fixtures import FixtureError, fixture_directory
from pespec.rope import PRESETS, rotate
from pespec.rope.fromfile import file_inputs
from pespec.rope.golden import GOLDEN, fixture_for
from pespec.rope.suite import check

NAME = "rope-llama-2-7b.json"


@pytest.fixture
def copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the shipped fixtures, read by every route in their place."""
    target = tmp_path / "golden"
    shutil.copytree(fixture_directory(), target)
    # imported first: a module that binds fixture_directory at its import would keep the copy
    importlib.import_module("pespec.cli.golden")
    monkeypatch.setattr(fixtures, "fixture_directory", lambda: target)
    return target


def _tamper_y(folder: Path) -> None:
    """y[1][0] made 0.5 larger, its decimal and its hex edited together (as a wrong
    value would be written)."""
    path = folder / NAME
    text = path.read_text(encoding="ascii")
    head, _, rest = text.partition(' "y": [\n')
    rows, _, tail = rest.partition(' "y_hex": [\n')
    hex_rows, _, end = tail.partition("\n ]")
    first = rows.splitlines()[1].strip(" [],").split(",")[0]
    old = float(first)
    new = old + 0.5
    rows = rows.replace(first, repr(new), 1)
    assert old.hex() in hex_rows
    hex_lines = hex_rows.splitlines()
    hex_lines[1] = hex_lines[1].replace(old.hex(), new.hex(), 1)
    path.write_text(
        head + ' "y": [\n' + rows + ' "y_hex": [\n' + "\n".join(hex_lines) + "\n ]" + end,
        encoding="ascii",
    )


def _tamper_theta(folder: Path) -> None:
    path = folder / NAME
    text = path.read_text(encoding="ascii")
    assert text.count('"theta": 10000.0') == 1
    path.write_text(text.replace('"theta": 10000.0', '"theta": 10001.0'), encoding="ascii")


TAMPER = {"y": _tamper_y, "theta": _tamper_theta}


@pytest.mark.parametrize("edit", sorted(TAMPER))
def test_a_tampered_rotary_fixture_is_refused_by_the_loader(copy: Path, edit: str) -> None:
    TAMPER[edit](copy)
    with pytest.raises(FixtureError, match=rf"{NAME}: SHA-256 differs from MANIFEST"):
        GOLDEN.load()
    with pytest.raises(FixtureError, match=NAME):
        fixture_for(PRESETS["Llama-2-7B"])


@pytest.mark.parametrize("edit", sorted(TAMPER))
def test_the_rotary_suite_exits_2_on_a_tampered_fixture(
    copy: Path, edit: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: the y edit gave NON-CONFORMANT (exit 1) for pespec's own numpy backend, the
    # theta edit CONFORMANT (exit 0) with no golden stage
    TAMPER[edit](copy)
    args = ["rope", "check", "numpy", "--config", "Llama-2-7B", "--quiet", "--in-process"]
    assert main(args) == 2  # the supervised child: test_the_supervised_child_refuses_...
    err = capsys.readouterr().err
    assert "fixture checksum verification failed" in err and NAME in err
    assert "Traceback" not in err


@pytest.mark.parametrize("edit", sorted(TAMPER))
def test_the_rotary_from_file_route_exits_2_on_a_tampered_fixture(
    copy: Path, edit: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rope = PRESETS["Llama-2-7B"]
    positions, x = file_inputs(rope)  # read before the edit
    out = tmp_path / "out.npy"
    np.save(out, rotate(x, positions, rope).astype(np.float32))
    TAMPER[edit](copy)
    assert main(["rope", "check", "--from-file", str(out), "--config", "Llama-2-7B"]) == 2
    assert f"{NAME}: SHA-256 differs from MANIFEST" in capsys.readouterr().err
    assert main(["rope", "inputs", "--config", "Llama-2-7B"]) == 2


def test_the_absolute_suite_exits_2_on_a_tampered_rotary_fixture(
    copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # one MANIFEST for both families: a changed rotary file also stops the absolute suite
    _tamper_y(copy)
    assert main(["check", "numpy", "--quiet", "--in-process"]) == 2
    assert NAME in capsys.readouterr().err


@pytest.mark.parametrize("family", ["rope", "sinusoidal"])
def test_the_supervised_child_refuses_a_tampered_fixture_as_a_usage_error(
    copy: Path, family: str
) -> None:
    """Under the supervisor the child reads the fixtures while planning: a changed file is a
    ``load_error`` (the parent exits 2), not a crash of the child (exit 1)."""
    from pespec.supervised import worker

    _tamper_y(copy)
    sent: list[tuple[str, dict[str, object]]] = []

    class Events:
        def send(self, event: str, **fields: object) -> None:
            sent.append((event, fields))

    options = {"config": PRESETS["Llama-2-7B"].to_dict()} if family == "rope" else {}
    request = {"family": family, "backend": "numpy", "options": options}
    assert worker._load(request, Events()) is None  # type: ignore[arg-type]
    assert [event for event, _ in sent] == ["load_error"]
    assert NAME in str(sent[0][1]["message"])


def test_the_untouched_copy_passes(copy: Path) -> None:
    fixture = fixture_for(PRESETS["Llama-2-7B"])
    assert fixture is not None and fixture.name == NAME[:-5]
    report = check("numpy", "Llama-2-7B", stages=("golden",))
    assert report.conformant, report.summary()
    assert [c.id for c in report.checks] == [f"golden:{NAME[:-5]}"]


@pytest.mark.slow
def test_golden_verify_names_a_tampered_rotary_value(
    copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _tamper_y(copy)
    assert main(["golden", "verify", "--fixtures", str(copy)]) == 1
    out = capsys.readouterr().out
    assert f"{NAME}: SHA-256 differs from MANIFEST" in out and "y[1, 0]" in out
