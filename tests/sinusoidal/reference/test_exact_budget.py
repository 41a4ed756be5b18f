"""SPEC Annex C's error budget pinned term by term to the proof's formulas (issue 42).

``error_budget()`` is the proof of the float64 reference's 2^-52 bound: the docs print it and
the verdict tolerances rest on it. A term computed smaller than the proof's lets the proof
"conclude" on a budget it does not have, with every encoding unchanged; so each term is
recomputed here from the formula of its row in SPEC Annex C.4 (u = 2^-53, |θ| ≤ 2^40, N = 256
table entries, so |ρ| ≤ π/256 plus the turns' low word 2^-50) at 60 digits, independently of
the module, and must agree to 10^-35 relative (the module evaluates at 40 digits).
"""

from __future__ import annotations

import mpmath

from pespec.sinusoidal.reference import exact

ROWS = 17
"""12 terms of δ, δ, 3 rotation terms, ε' (SPEC Annex C.4's table)."""


def _proof_terms() -> list[tuple[str, mpmath.mpf]]:
    """(step, bound) of each row of the Annex C.4 table, from its formula (see each comment)."""
    two = mpmath.mpf(2)
    u = two**-53
    theta = two**40  # |c·(p + o)|·ω ≤ 2^40 rad, the proved range
    turns = theta / (2 * mpmath.pi)
    rho = mpmath.pi / 256 + two**-50  # |ρ| ≤ π/N, N = 256, plus the turns' low word
    rho_lo = 2 * mpmath.pi * two**-54 + two**-60  # |2π·t_lo| (|t_lo| ≤ 2^-54) + Dekker
    half_sq = rho**2 / 2
    terms = [
        ("frequency", theta * two**-105),  # |θ|·(2^-106 + 2^-129 + 2^-250) ≤ |θ|·2^-105
        ("reduction", 8 * mpmath.pi * u * turns * two**-76),  # 2 pieces in float64, radians
        ("reduction", 16 * mpmath.pi * u * two**-52),  # low words of the turn sums
        ("residual", 4 * u * rho_lo + two**-105),  # 2π_lo, t_lo products, 2 additions
        ("table", 3 * two**-106),  # 3 double-double table entries, 2^-106 each
        ("polynomial", rho**9 / mpmath.factorial(9)),  # sin truncated after ρ^7
        ("polynomial", rho**10 / mpmath.factorial(10)),  # cos truncated after ρ^8
        ("polynomial", 6 * u * half_sq),  # 6 roundings in ρ² and cos ρ − 1
        ("polynomial", 6 * u * rho**3 / 6),  # 6 roundings in sin ρ − ρ
        # ρ_lo ignored in ρ² (sin: ρ_lo·ρ²/2) and in cos (ρ_lo²/2, taken as ρ_lo² ≥ it)
        ("polynomial", rho_lo * half_sq + rho_lo**2),
        ("combination", u * half_sq),  # S_lo·(cos ρ − 1) and C_lo·(sin ρ − ρ), |S_lo| ≤ u
        ("combination", 6 * u * (half_sq + rho**3 / 6 + two**-50)),  # 6 low-word roundings
    ]
    delta = mpmath.fsum(b for _, b in terms)
    rotation = [
        ("rotation", 2 * mpmath.sqrt(2) * delta),  # anchor and offset: 2 sin/cos pairs each
        ("rotation", 8 * two**-24 * u),  # tails and the ignored W2·E_lo
        ("rotation", 14 * u * two**-22),  # 8 products and 6 sums below 2^-22
    ]
    epsilon = mpmath.fsum(b for _, b in rotation)
    return [*terms, ("δ", delta), *rotation, ("ε'", epsilon)]


def test_error_budget_terms_are_the_proofs() -> None:
    """Every row of error_budget() equals its Annex C.4 formula (so it is never below the
    proof's term, and never looser than the printed proof says)."""
    budget = exact.error_budget()
    assert len(budget) == ROWS
    with mpmath.workdps(60):
        proof = _proof_terms()
        for (step, _, got), (want_step, want) in zip(budget, proof, strict=True):
            assert step == want_step
            assert abs(mpmath.mpf(got) - want) <= want * mpmath.mpf(10) ** -35, step


def test_error_budget_constants_are_the_proved_ones() -> None:
    """The proof's range and table size: |c·(p + o)| ≤ 2^40 and N = 256 (SPEC Annex C)."""
    assert exact.MAX_SCALED_POSITION == 2.0**40
    assert exact.TABLE_SIZE == 256
