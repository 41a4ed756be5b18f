"""The sinusoidal diagnosis on its generated mutants (issue 39 item 2).

Mutants of a plain float32 table (:mod:`tests.diagnosis.sinusoidal_mutants`); only the
measured half (odd seeds) is asserted on. Bars (the issue's, as for rotary): at least 90%
of the mutants that change the table named with their measured value, no negative or unit
ratio, no sentence with contradicting causes, the correct float32 and float64 tables get
no cause; each 16-bit stage (inverse frequencies, positions, angle, output) is named as
that stage.
"""

from __future__ import annotations

import pytest

pytest.importorskip("ml_dtypes")

from tests.diagnosis.score_sinusoidal import judge, score
from tests.diagnosis.sinusoidal_mutants import sinusoidal_mutants

SEEDS = range(4)


def test_measured_half_bars() -> None:
    result = score("measured", SEEDS)
    assert result["bad_ratio_sentences"] == 0
    assert result["contradictions"] == 0
    assert result["correct_stacks_with_a_cause"] == 0
    assert result["changed"] >= 30
    assert result["named_fraction"] >= 0.90, result["unnamed"]


@pytest.mark.parametrize("stage", ["inv_freq", "positions", "phase", "output"])
def test_each_float16_stage_is_told_apart(stage: str) -> None:
    mutant = next(m for m in sinusoidal_mutants(range(1, 2)) if m.kind == f"{stage} in float16")
    out = judge(mutant)
    assert out["changed"] and out["named"], out["sentence"]


def test_measured_half_from_saved_tables() -> None:
    # the same bars for the --from-file diagnosis line of each mutant's saved float32 table
    result = score("measured", SEEDS, from_file=True)
    assert result["changed"] >= 25
    assert result["named_fraction"] >= 0.90, result["unnamed"]
    assert result["bad_ratio_sentences"] == 0
    assert result["contradictions"] == 0
    assert result["correct_stacks_with_a_cause"] == 0


def test_an_index_off_by_one_is_measured_from_a_file() -> None:
    mutant = next(m for m in sinusoidal_mutants(range(1, 2)) if m.kind == "exponent 2(k+1)/d")
    out = judge(mutant, from_file=True)
    _, d_model, base = mutant.file_request()
    # ω̂/ω = base^(−2/d) for every pair (the published law's index shifted by one)
    assert f"{base ** (-2 / d_model):.6g}× the convention's" in out["sentence"], out["sentence"]
