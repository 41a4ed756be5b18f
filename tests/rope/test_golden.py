"""The rotary golden fixtures (SPEC §8.6): byte-identical regeneration, parsing, verification."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from paths import HF_CONFIGS as DATA

from pespec.cli import main as cli_main
from pespec.conformance.fixtures import MANIFEST, fixture_directory, read_manifest
from pespec.rope import PRESETS
from pespec.rope.golden import (
    CONTEXT_LENGTHS,
    FIXTURE_FORMAT,
    GOLDEN,
    RopeFixtureError,
    verify_rope_fixture,
)
from pespec.rope.inputs import rotary_x


def test_rotary_sets_regenerate_byte_identically_and_are_in_the_manifest() -> None:
    files = GOLDEN.render_files()
    assert sorted(files) == sorted(GOLDEN.file_name(p) for p in PRESETS)
    manifest = read_manifest(fixture_directory())
    for name, data in files.items():
        assert (fixture_directory() / name).read_bytes() == data, name
        assert name in manifest


@pytest.mark.slow
def test_shipped_rotary_sets_equal_the_oracle() -> None:
    for name in sorted(GOLDEN.render_files()):
        fixture = GOLDEN.parse(name, (fixture_directory() / name).read_bytes())
        assert verify_rope_fixture(fixture) == []


def test_golden_x_follows_the_stated_formula() -> None:
    x = rotary_x(2, 3)
    # x[r][k] = ((37(k+1) + 101r) mod 257 − 128)/64: (37 − 128)/64, (74 − 128)/64,
    # (111 − 128)/64; row 1: 138 → 10/64, 175 → 47/64, 212 → 84/64
    assert x.tolist() == [[-91 / 64, -54 / 64, -17 / 64], [10 / 64, 47 / 64, 84 / 64]]


def test_context_lengths_are_those_of_the_config_copies() -> None:
    copies = {
        "Llama-2-7B": "llama-2-7b-hf.json",
        "Llama-3.1-8B": "llama-3.1-8b.json",
        "Qwen2.5-7B-Instruct": "qwen2.5-7b-instruct.json",
        "GPT-J-6B": "gpt-j-6b.json",
        "gpt-oss-20b": "gpt-oss-20b.json",
        "DeepSeek-V3": "deepseek-v3.json",
        "Phi-3.5-mini-instruct-seq-len-4096": "phi-3.5-mini-instruct.json",
        "Phi-3.5-mini-instruct-seq-len-131072": "phi-3.5-mini-instruct.json",
    }
    for preset, copy in copies.items():
        config = json.loads((DATA / copy).read_text(encoding="utf-8"))
        length = config.get("max_position_embeddings") or config.get("n_positions")
        assert CONTEXT_LENGTHS[preset] == length, preset
    # Gemma 3's file has no max_position_embeddings: Gemma3TextConfig's default is 131072
    assert "max_position_embeddings" not in json.loads(
        (DATA / "gemma-3-4b-it.json").read_text(encoding="utf-8")
    ).get("text_config", {})


def _shipped(name: str) -> bytes:
    return (fixture_directory() / name).read_bytes()


def test_decimal_differing_from_hex_is_rejected() -> None:
    name = GOLDEN.file_name("Llama-2-7B")
    doc = json.loads(_shipped(name))
    doc["cos"][3][5] = float(np.nextafter(doc["cos"][3][5], 2.0))
    with pytest.raises(RopeFixtureError, match="cos decimals differ from cos_hex"):
        GOLDEN.parse(name, json.dumps(doc).encode("ascii"))
    with pytest.raises(RopeFixtureError, match="format must be"):
        GOLDEN.parse(name, json.dumps({**doc, "format": "pespec-golden/1"}).encode())
    with pytest.raises(RopeFixtureError, match="malformed"):
        GOLDEN.parse(name, b"{")
    # x is rebuilt from the stated formula: a file stating another is malformed
    other = {**json.loads(_shipped(name)), "x_formula": "x[r][k] = 0"}
    with pytest.raises(RopeFixtureError, match="x_formula must be"):
        GOLDEN.parse(name, json.dumps(other).encode("ascii"))


def test_verify_reports_a_wrong_rotated_value() -> None:
    name = GOLDEN.file_name("DeepSeek-V3")
    doc = json.loads(_shipped(name))
    wrong = float(np.nextafter(doc["y"][4][9], 10.0))
    doc["y"][4][9], doc["y_hex"][4][9] = wrong, wrong.hex()
    problems = verify_rope_fixture(GOLDEN.parse(name, json.dumps(doc).encode("ascii")))
    assert len(problems) == 1 and "y[4, 9]" in problems[0]


@pytest.mark.slow
def test_cli_verify_fails_on_a_tampered_rotary_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "golden"
    shutil.copytree(fixture_directory(), copy)
    name = GOLDEN.file_name("Qwen2.5-7B-Instruct")
    doc = json.loads((copy / name).read_bytes())
    wrong = float(np.nextafter(doc["sin"][2][1], 10.0))
    doc["sin"][2][1], doc["sin_hex"][2][1] = wrong, wrong.hex()
    (copy / name).write_text(json.dumps(doc), encoding="ascii")
    assert cli_main(["golden", "verify", "--fixtures", str(copy)]) == 1
    out = capsys.readouterr().out
    assert f"{name}: SHA-256 differs" in out and "sin[2, 1]" in out
    assert (copy / MANIFEST).is_file()


def test_verify_counts_every_wrong_value_not_its_messages() -> None:
    # 7 wrong y values give 5 itemised messages and one "7 wrong values in all" line: the
    # count is the values (7), not the lines (6), as `pespec golden verify` prints it.
    import dataclasses

    fixture = GOLDEN.load()[0]
    y = fixture.y.copy()
    y.flat[:7] += 1.0
    check = FIXTURE_FORMAT.verify(dataclasses.replace(fixture, y=y), "set.json", 100)
    assert check.wrong == 7
    assert len(check.messages) == 6 and check.messages[-1].endswith("y: 7 wrong values in all")
