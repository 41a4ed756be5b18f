"""A fit that is not canonical names the preset convention it shares, says the canonical
encoding was expected, and says how to declare the convention (issue 24, item 14a).

Before: an off-by-one position and a d/2 − 1 denominator were "a valid variant, not the
canonical encoding", as if the user had meant a variant. The advice is followed here: the
declaration the sentence gives makes the same backend conformant.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from catalog.buggy import denominator_half_minus_one, halves, positions_from_one

from pespec.conformance import check

STAGES = ("contract", "golden")


@pytest.mark.parametrize(
    ("backend", "shared"),
    [
        (positions_from_one, "its position offset is fairseq-style (fairseq's is +2)"),
        (denominator_half_minus_one,
         "its frequency law is that of the tensor2tensor/fairseq/whisper/diffusers/mlx convention"),
    ],
)  # fmt: skip
def test_a_convention_no_preset_matches_names_the_presets_it_shares(
    backend: object, shared: str, tmp_path: Path
) -> None:
    report = check(backend, stages=STAGES)
    sentence = report.diagnosis_sentence or ""
    assert "valid variant" not in sentence
    assert "not the canonical encoding that was expected" in sentence and shared in sentence
    found = re.search(r"--convention FILE\.json holding (\{.*?\})", sentence)
    assert found, sentence
    path = tmp_path / "convention.json"
    path.write_text(json.dumps(json.loads(found.group(1))), encoding="utf-8")
    assert check(backend, stages=STAGES, convention=str(path)).conformant


def test_a_preset_convention_is_named_with_its_declaration() -> None:
    sentence = check(halves, stages=STAGES).diagnosis_sentence or ""
    assert sentence.startswith("Output matches the marian convention")
    assert "not the canonical encoding that was expected" in sentence
    assert "declare it: --convention marian" in sentence
    assert check(halves, stages=STAGES, convention="marian").conformant
