"""Mutation sentinels (issue 42): the worst survivors of the numerical core's mutation run,
re-applied by hand to a copy of the code; each must be killed by its fast tests.

What: for every sentinel, copy ``pespec/``, ``tests/`` and ``pyproject.toml`` into a fresh
temporary folder, replace one exact source fragment (it must occur exactly once: a sentinel
whose fragment has gone stale is an error, not a pass), and run the named test files there
with a per-sentinel timeout. A sentinel is killed when pytest fails or times out (a mutant
that turns a Ziv retry into an endless loop is killed by pytest-timeout or by this timeout).
Why: certificates (error bounds, Ziv retries, domain checks) are invisible in the values
they certify; these mutants each let the oracle certify, or the reference accept, a wrong
result while the values of every fixture stay the same.

Usage: ``python tools/mutation_sentinels.py [--only ID ...] [--list]``; exit 1 if any
sentinel survives or is stale. Run by ``.ci/run`` pass 1 (a few minutes on one core).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ROUNDING = "pespec/numerics/rounding.py"
SIN_ORACLE = "pespec/sinusoidal/reference/oracle.py"
ROPE_ORACLE = "pespec/rope/oracle.py"
SCHEDULE = "pespec/rope/_exact_schedule.py"
EXACT = "pespec/sinusoidal/reference/exact.py"
TURNS = "pespec/numerics/turns.py"

T_ROUNDING = ("tests/numerics/test_rounding_certificates.py",)
T_SIN = ("tests/sinusoidal/reference/test_oracle_certificates.py",)
T_ROPE = ("tests/rope/test_oracle_certificates.py",)
T_EXACT = ("tests/sinusoidal/reference/test_exact_domain_ends.py",)
T_BUDGET = ("tests/sinusoidal/reference/test_exact_budget.py",)
T_TURNS = ("tests/numerics/test_turns_certificates.py",)


@dataclass(frozen=True)
class Sentinel:
    """One mutant: replace ``old`` (occurring once in ``path``) by ``new``."""

    ident: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]
    why: str


SENTINELS: tuple[Sentinel, ...] = (
    Sentinel(
        "rounding-value-term-subtracted",
        ROUNDING,
        "(angle_term + value_factor * (np.abs(hi) + lo) + constant)",
        "(angle_term - value_factor * (np.abs(hi) + lo) + constant)",
        T_ROUNDING,
        "round_certified: the value term value_factor·(|ỹ|+lo) subtracted",
    ),
    Sentinel(
        "rounding-constant-subtracted",
        ROUNDING,
        "(angle_term + value_factor * (np.abs(hi) + lo) + constant)",
        "(angle_term + value_factor * (np.abs(hi) + lo) - constant)",
        T_ROUNDING,
        "round_certified: the table path's constant subtracted",
    ),
    Sentinel(
        "rounding-value-term-divided",
        ROUNDING,
        "value_factor * (np.abs(hi) + lo)",
        "value_factor / (np.abs(hi) + lo)",
        T_ROUNDING,
        "round_certified: value_factor·(...) → / (unsound for |ỹ| > 1)",
    ),
    Sentinel(
        "rounding-angle-term-dropped",
        ROUNDING,
        "(angle_term + value_factor * (np.abs(hi) + lo) + constant)",
        "(0 * angle_term + value_factor * (np.abs(hi) + lo) + constant)",
        T_ROUNDING,
        "round_certified: the angle term dropped",
    ),
    Sentinel(
        "float-gaps-maximum",
        ROUNDING,
        "np.minimum(up, down)",
        "np.maximum(up, down)",
        T_ROUNDING,
        "float_gaps: the larger gap (an interval crossing 2^k accepted)",
    ),
    Sentinel(
        "round-interval-inward",
        ROUNDING,
        "precision=value.precision + 64, round=gmpy2.RoundDown",
        "precision=value.precision + 64, round=gmpy2.RoundUp",
        T_ROUNDING,
        "round_interval: the lower end rounded up (inward)",
    ),
    Sentinel(
        "round-interval-own-precision",
        ROUNDING,
        "with gmpy2.context(precision=value.precision + 64, round=gmpy2.RoundDown):",
        "with gmpy2.context(precision=value.precision, round=gmpy2.RoundDown):",
        T_ROUNDING,
        "round_interval: the lower end at the value's own precision (a float64 value refused)",
    ),
    Sentinel(
        "rational-omega-limit-flipped",
        ROUNDING,
        "> MAX_RATIONAL_BITS:",
        "< MAX_RATIONAL_BITS:",
        T_ROUNDING,
        "rational_omega: the size limit flipped (dyadic ω left to a Ziv loop that cannot end)",
    ),
    Sentinel(
        "table-cosine-6u",
        SIN_ORACLE,
        "(False, cos_out, *round_certified(cosines, angle_term, 0, 7, precision))",
        "(False, cos_out, *round_certified(cosines, angle_term, 0, 6, precision))",
        T_SIN,
        "_table_rows: the cosine bound 7u → 6u, below the proof's 6.07u",
    ),
    Sentinel(
        "table-sine-6u",
        SIN_ORACLE,
        "(True, sin_out, *round_certified(sines, angle_term, 0, 7, precision))",
        "(True, sin_out, *round_certified(sines, angle_term, 0, 6, precision))",
        T_SIN,
        "_table_rows: the sine bound 7u → 6u",
    ),
    Sentinel(
        "scalar-scale-term-dropped",
        SIN_ORACLE,
        "scaled = scaled + 4 * abs(value)",
        "scaled = scaled + 0 * abs(value)",
        T_SIN,
        "_scalar_value: the output-scale term 4·|value| dropped",
    ),
    Sentinel(
        "direct-underflow-guard-inverted",
        SIN_ORACLE,
        "angle_term[~(theta > F64_MIN_SAFE)] = np.inf",
        "angle_term[~(theta <= F64_MIN_SAFE)] = np.inf",
        T_SIN,
        "_direct_rows: the underflow guard inverted (every element to the scalar path)",
    ),
    Sentinel(
        "direct-angle-term-3-dropped",
        SIN_ORACLE,
        "angle_term = theta * (4.0 * t_upper + 3.0)",
        "angle_term = theta * (4.0 * t_upper + 0.0)",
        T_SIN,
        "_direct_rows: the +3 of the angle term (θ̃'s own roundings) dropped",
    ),
    Sentinel(
        "sin-scalar-no-doubling",
        SIN_ORACLE,
        "        result = round_interval(value, err, rounder)\n"
        "        if result is not None:\n            return result\n        precision *= 2",
        "        result = round_interval(value, err, rounder)\n"
        "        if result is not None:\n            return result\n        precision *= 1",
        T_SIN,
        "_scalar_value: the Ziv retry never raises the precision (hangs)",
    ),
    Sentinel(
        "omega-no-doubling",
        SIN_ORACLE,
        "                return hi, lo\n        precision *= 2",
        "                return hi, lo\n        precision *= 1",
        T_SIN,
        "_certified_omega: the Ziv retry never raises the precision (hangs)",
    ),
    Sentinel(
        "sqrt-no-doubling",
        SIN_ORACLE,
        "            return result\n        precision *= 2\n\n\ndef _direct_rows",
        "            return result\n        precision *= 1\n\n\ndef _direct_rows",
        T_SIN,
        "_sqrt_certified: the Ziv retry never raises the precision (hangs)",
    ),
    Sentinel(
        "rope-cos-sin-value-factor-0",
        ROPE_ORACLE,
        "round_certified(values, term, 2, 0, precision)",
        "round_certified(values, term, 0, 0, precision)",
        T_ROPE,
        "cos_sin: the |ỹ|·2^-P value factor 0",
    ),
    Sentinel(
        "rope-rotate-value-factor-0",
        ROPE_ORACLE,
        "round_certified(y, term, 1, 0, precision)",
        "round_certified(y, term, 0, 0, precision)",
        T_ROPE,
        "_rotate_row: the |ỹ|·2^-P value factor 0",
    ),
    Sentinel(
        "rope-rotate-second-e-s-dropped",
        ROPE_ORACLE,
        "np.abs(first) * np.array(e_c) + np.abs(second) * np.array(e_s) + magnitude * unit",
        "np.abs(first) * np.array(e_c) + 0 * np.abs(second) * np.array(e_s) + magnitude * unit",
        T_ROPE,
        "_rotate_row: the |second|·e_s term dropped",
    ),
    Sentinel(
        "rope-rotate-magnitude-dropped",
        ROPE_ORACLE,
        "np.abs(first) * np.array(e_c) + np.abs(second) * np.array(e_s) + magnitude * unit",
        "np.abs(first) * np.array(e_c) + np.abs(second) * np.array(e_s) - magnitude * unit",
        T_ROPE,
        "_rotate_row: the magnitude·unit term subtracted",
    ),
    Sentinel(
        "rope-pair-second-e-s-dropped",
        ROPE_ORACLE,
        "            + abs(second) * e_s\n",
        "            - abs(second) * e_s\n",
        T_ROPE,
        "_pair_values: the |second|·e_s term subtracted",
    ),
    Sentinel(
        "rope-pair-unit-0",
        ROPE_ORACLE,
        "    unit = math.ldexp(1.0, -precision)\n    results: list[float | None] = []",
        "    unit = 0.0\n    results: list[float | None] = []",
        T_ROPE,
        "_pair_values: unit = 0 (no rounding errors counted)",
    ),
    Sentinel(
        "rope-midpoint-radius-third",
        ROPE_ORACLE,
        "float((high - low) / 2) * SLACK",
        "float((high - low) / 3) * SLACK",
        T_ROPE,
        "_midpoint: the radius (high − low)/2 → /3",
    ),
    Sentinel(
        "rope-scalar-no-doubling",
        ROPE_ORACLE,
        "        result = round_interval(value, err)\n"
        "        if result is not None:\n            return result\n        precision *= 2",
        "        result = round_interval(value, err)\n"
        "        if result is not None:\n            return result\n        precision *= 1",
        T_ROPE,
        "_scalar: the Ziv retry never raises the precision (hangs)",
    ),
    Sentinel(
        "rope-rotate-pair-no-doubling",
        ROPE_ORACLE,
        "            return y_a, y_b\n        precision *= 2",
        "            return y_a, y_b\n        precision *= 1",
        T_ROPE,
        "_rotate_pair: the Ziv retry never raises the precision (hangs)",
    ),
    Sentinel(
        "rope-attention-fallback-removed",
        ROPE_ORACLE,
        "        a_value = float(exact_attention)\n",
        "        pass\n",
        T_ROPE,
        "_certified: the exact attention-factor fallback removed",
    ),
    Sentinel(
        "schedule-floor-undecided-removed",
        SCHEDULE,
        "        if math.floor(low) != math.floor(high):\n            raise Undecided\n",
        "        if math.floor(low) != math.floor(high):\n            pass\n",
        T_ROPE,
        "IntervalArith.floor: an interval spanning an integer decided anyway",
    ),
    Sentinel(
        "schedule-positive-threshold",
        SCHEDULE,
        "        if low > 0:\n            result = True",
        "        if low > -1:\n            result = True",
        T_ROPE,
        "IntervalArith.positive: a negative interval above −1 decided positive",
    ),
    Sentinel(
        "rope-cos-sin-zero-row",
        ROPE_ORACLE,
        "cos_out[row], sin_out[row] = 1.0, 0.0",
        "cos_out[row], sin_out[row] = 0.0, 0.0",
        T_ROPE,
        "cos_sin: cos 0 = 0 at position 0",
    ),
    Sentinel(
        "rope-zero-pair-shortcut",
        ROPE_ORACLE,
        "if a[j] == 0.0 and b[j] == 0.0",
        "if a[j] == 0.0 or b[j] == 0.0",
        T_ROPE,
        "_rotate_row: a failed pair with one zero component taken as (0, 0)",
    ),
    Sentinel(
        "exact-range-end-sign",
        EXACT,
        "_check_range(x0, x0 + n - 1)",
        "_check_range(x0, x0 - n - 1)",
        T_EXACT,
        "exact_sinusoidal_positional_encoding: the last position's sign",
    ),
    Sentinel(
        "exact-range-off-by-one",
        EXACT,
        "if abs(value) > MAX_POSITION:",
        "if abs(value) >= MAX_POSITION:",
        T_EXACT,
        "_check_range: 2^53 itself refused",
    ),
    Sentinel(
        "exact-chunks-offset-sign",
        EXACT,
        "_check_range(positions[0] + offset, positions[-1] + offset)",
        "_check_range(positions[0] + offset, positions[-1] - offset)",
        T_EXACT,
        "iter_encoding_chunks: the offset's sign on the last position",
    ),
    Sentinel(
        "exact-scaled-error-doubled",
        EXACT,
        "        return 2.0**-52\n",
        "        return 2.0**-51\n",
        T_EXACT,
        "scaled_reference_error for A = 1 doubled (enters every verdict tolerance)",
    ),
    Sentinel(
        "exact-range-first-end-offset",
        EXACT,
        "            _check_range(positions[0] + offset, positions[-1] + offset)\n",
        "            _check_range(positions[0] - offset, positions[-1] + offset)\n",
        ("tests/sinusoidal/reference/test_exact.py",),
        "iter_encoding_chunks: the offset's sign on the first position of a range (issue 42b)",
    ),
    Sentinel(
        "exact-scale-below-one-negated",
        EXACT,
        "convention.argument_scale < 0\n",
        "convention.argument_scale < 1\n",
        ("tests/sinusoidal/reference/test_exact.py",),
        "table_layout negates the angles of a convention with 0 < c < 1 (issue 42b)",
    ),
    Sentinel(
        "rope-batched-view",
        ROPE_ORACLE,
        "    flat_out = out.reshape(-1, *values.shape[-2:])\n",
        "    flat_out = out.reshape(-1, *values.shape[-3:])\n",
        T_ROPE,
        "rotate writes a batched input through the wrong view (issue 42b)",
    ),
    Sentinel(
        "sin-omega-bound-below-proof",
        SIN_ORACLE,
        "_bound(4.0 * t_upper + 2.0)",
        "_bound(4.0 * t_upper - 2.0)",
        T_SIN,
        "_certified_omega: the bound (4t + 2)·|ω̃|·2^-P taken as (4t − 2) (issue 42c)",
    ),
    Sentinel(
        "sin-range-limit-widened",
        SIN_ORACLE,
        "_MAX_T = float(2**29)",
        "_MAX_T = float(3**29)",
        T_SIN,
        "the oracle's range t ≤ 2^29 widened to 3^29 (issue 42c)",
    ),
    Sentinel(
        "exact-budget-range-halved",
        EXACT,
        "MAX_SCALED_POSITION: Final = 2.0**40",
        "MAX_SCALED_POSITION: Final = 2.0**39",
        T_BUDGET,
        "error_budget: the proof's terms at |θ| ≤ 2^39 instead of 2^40 (issue 42c)",
    ),
    Sentinel(
        "turns-offset-error-dropped",
        TURNS,
        "        e += extra[1]\n        low += e\n",
        "        low += extra[1]\n",
        T_TURNS,
        "turns: the two_sum error of adding an offset's turns dropped (issue 42c)",
    ),
    Sentinel(
        "rope-omega-radius-dropped",
        ROPE_ORACLE,
        "magnitude * (math.ldexp(r, precision) + abs(float(w)) * SLACK) * SLACK",
        "magnitude * (abs(float(w)) * SLACK) * SLACK",
        T_ROPE,
        "cos/sin bound without |p|·r_j, the radius of ω'_j's enclosure (issue 42c)",
    ),
    Sentinel(
        "rope-attention-radius-times-error-dropped",
        ROPE_ORACLE,
        "+ enclosure.attention_radius * (abs(float(t)) + t_err)",
        "+ enclosure.attention_radius * abs(float(t))",
        T_ROPE,
        "_pair_values: r_A·|t − t̃| dropped from |A t − Ã t̃| (issue 42c)",
    ),
    Sentinel(
        "sin-scalar-value-term-dropped",
        SIN_ORACLE,
        "scaled = abs(theta) * _bound(4.0 * t_upper + 3.0) + 2 * abs(value)",
        "scaled = abs(theta) * _bound(4.0 * t_upper + 3.0)",
        T_SIN,
        "the scalar path's row bound without 2·|ỹ| (sin/cos rounding; held-out sample, stop 45)",
    ),
    Sentinel(
        "sin-sqrt-error-halved",
        SIN_ORACLE,
        "err = 2 * abs(value) * gmpy2.mul_2exp(1, -precision)",
        "err = 1 * abs(value) * gmpy2.mul_2exp(1, -precision)",
        T_SIN,
        "_sqrt_certified: |Ã|·2^-P where the rational's rounding and √ give 1.5·|Ã|·2^-P "
        "(held-out sample, stop 45)",
    ),
)


def _copy_tree(work: Path) -> None:
    """pespec/, tests/ and pyproject.toml into ``work`` (no caches, no build outputs)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    shutil.copytree(ROOT / "pespec", work / "pespec", ignore=ignore)
    shutil.copytree(ROOT / "tests", work / "tests", ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", work / "pyproject.toml")


def _apply(work: Path, sentinel: Sentinel) -> tuple[str | None, str | None]:
    """Patch the copy: (the original text to restore, or None; an error message or None)."""
    if not sentinel.old:  # the baseline: no mutation
        return None, None
    target = work / sentinel.path
    text = target.read_text(encoding="utf-8")
    count = text.count(sentinel.old)
    if count != 1:
        return None, f"stale: the fragment occurs {count} times in {sentinel.path}"
    target.write_text(text.replace(sentinel.old, sentinel.new), encoding="utf-8")
    return text, None


def _env(work: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(work) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _imports_copy(work: Path) -> bool:
    """Whether ``import pespec`` in the copy resolves to the copy (not an installed tree)."""
    code = "import pespec, sys; print(pespec.__file__)"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=work, env=_env(work), capture_output=True, text=True
    )
    return out.returncode == 0 and out.stdout.strip().startswith(str(work))


def _pytest(work: Path, tests: tuple[str, ...], timeout: float) -> tuple[str, float]:
    """Run ``tests`` in the copy: ("killed" | "SURVIVED" | "error: ...", wall seconds)."""
    start = time.monotonic()
    command = [
        sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
        "-o", "addopts=", "--timeout", str(int(timeout)), *tests,
    ]  # fmt: skip
    try:
        done = subprocess.run(
            command, cwd=work, env=_env(work), capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return "killed", time.monotonic() - start
    if done.returncode == 1:
        return "killed", time.monotonic() - start
    if done.returncode == 0:
        return "SURVIVED", time.monotonic() - start
    tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
    return f"error: pytest exit {done.returncode}: {' | '.join(tail)}", time.monotonic() - start


def _run(work: Path, sentinel: Sentinel, timeout: float) -> tuple[str, float]:
    """Apply one sentinel to the copy, run its tests, restore the file."""
    original, problem = _apply(work, sentinel)
    if problem is not None:
        return problem, 0.0
    try:
        return _pytest(work, sentinel.tests, timeout)
    finally:
        if original is not None:
            (work / sentinel.path).write_text(original, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--only", nargs="*", default=None, help="sentinel ids to run")
    parser.add_argument("--list", action="store_true", help="list the sentinels and exit")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per sentinel")
    args = parser.parse_args(argv)
    if args.list:
        for s in SENTINELS:
            print(f"{s.ident}: {s.why}")
        return 0
    chosen = [s for s in SENTINELS if args.only is None or s.ident in args.only]
    if args.only is not None and len(chosen) != len(set(args.only)):
        known = {s.ident for s in SENTINELS}
        print(f"unknown sentinel ids: {sorted(set(args.only) - known)}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="pespec-sentinels-") as tmp:
        work = Path(tmp)
        _copy_tree(work)  # one copy for every sentinel: numba's cache (keyed by path) is reused
        if not _imports_copy(work):
            print("error: the copy's pespec is not the one imported", file=sys.stderr)
            return 1
        # the unmutated copy must pass (this also fills numba's cache), or no kill means anything
        files = tuple(sorted({t for s in chosen for t in s.tests}))
        status, seconds = _pytest(work, files, max(args.timeout, 300.0))
        print(f"baseline (no mutant, {len(files)} test files): {status} ({seconds:.1f} s)")
        if status != "SURVIVED":
            print(
                "the tests fail on the unmutated copy: no sentinel can be judged", file=sys.stderr
            )
            return 1
        bad = []
        for sentinel in chosen:
            status, seconds = _run(work, sentinel, args.timeout)
            print(f"{sentinel.ident}: {status} ({seconds:.1f} s): {sentinel.why}", flush=True)
            if status != "killed":
                bad.append(sentinel.ident)
    print(f"{len(chosen) - len(bad)} / {len(chosen)} sentinels killed")
    if bad:
        print(f"not killed: {', '.join(bad)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
