"""Bad input, at every public entry point, gets an exception naming the parameter, the value
received and what is allowed (SPEC §1). Each case lists the exception type and fragments
the message must contain."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from pespec.sinusoidal.reference import encode, frequencies, sinusoidal_positional_encoding
from pespec.teaching import (
    InterpolatedPositionalEncoding,
    LearnedPositionalEncoding,
    SinusoidalPositionalEncoding,
    choose_base,
    interpolated_positions,
)
from pespec.teaching.analysis import (
    dot_product_distance,
    encoding_statistics,
    relative_position_matrix,
    wavelengths,
)
from pespec.teaching.attention import SelfAttention

Case = tuple[Callable[[], Any], type[Exception], tuple[str, ...]]

_PE = sinusoidal_positional_encoding(8, 4)
_MODULE = SinusoidalPositionalEncoding(8, 4)
_NAN_X = np.zeros((2, 3, 4))
_NAN_X[1, 2, 0] = np.nan

CASES: dict[str, Case] = {
    # d_model: a positive even int, bool and float rejected
    "d_model odd": (lambda: sinusoidal_positional_encoding(10, 7), ValueError, ("d_model", "7")),
    "d_model zero": (lambda: sinusoidal_positional_encoding(3, 0), ValueError, ("d_model", "0")),
    "d_model negative": (lambda: frequencies(-4), ValueError, ("d_model", "-4")),
    "d_model float": (
        lambda: sinusoidal_positional_encoding(3, 4.0),
        TypeError,
        ("d_model", "4.0"),
    ),
    "d_model bool": (lambda: encode([1], True), TypeError, ("d_model", "True", "bool")),
    "d_model str": (lambda: wavelengths("8"), TypeError, ("d_model", "'8'")),
    "d_model module": (lambda: SinusoidalPositionalEncoding(8, 5), ValueError, ("d_model", "5")),
    "d_model learned": (lambda: LearnedPositionalEncoding(8, 0), ValueError, ("d_model", "0")),
    "d_model attention": (lambda: SelfAttention(3), ValueError, ("d_model", "3")),
    # seq_len / max_seq_len: non-negative ints
    "seq_len negative": (
        lambda: sinusoidal_positional_encoding(-1, 4),
        ValueError,
        ("seq_len", "-1"),
    ),
    "seq_len float": (
        lambda: sinusoidal_positional_encoding(3.0, 4),
        TypeError,
        ("seq_len", "3.0"),
    ),
    "seq_len bool": (
        lambda: sinusoidal_positional_encoding(True, 4),
        TypeError,
        ("seq_len", "True"),
    ),
    "seq_len get_encoding": (lambda: _MODULE.get_encoding(-2), ValueError, ("seq_len", "-2")),
    "max_seq_len negative": (
        lambda: SinusoidalPositionalEncoding(-5, 4),
        ValueError,
        ("max_seq_len", "-5"),
    ),
    "max_seq_len float": (
        lambda: SinusoidalPositionalEncoding(2.5, 4),
        TypeError,
        ("max_seq_len", "2.5"),
    ),
    "max_seq_len learned zero": (
        lambda: LearnedPositionalEncoding(0, 4),
        ValueError,
        ("max_seq_len", "0"),
    ),
    # offset: a non-negative int
    "offset negative": (
        lambda: sinusoidal_positional_encoding(3, 4, offset=-1),
        ValueError,
        ("offset", "-1"),
    ),
    "offset float": (
        lambda: sinusoidal_positional_encoding(3, 4, offset=1.5),
        TypeError,
        ("offset", "1.5"),
    ),
    "offset forward": (lambda: _MODULE.forward(np.zeros((2, 4)), -3), ValueError, ("offset", "-3")),
    "offset bool": (lambda: _MODULE.get_encoding(2, True), TypeError, ("offset", "True")),
    "offset analysis": (lambda: relative_position_matrix(_PE, -1), ValueError, ("offset", "-1")),
    # base: finite and > 1
    "base one": (lambda: frequencies(4, 1.0), ValueError, ("base", "1.0", "> 1")),
    "base below one": (
        lambda: sinusoidal_positional_encoding(3, 4, base=0.5),
        ValueError,
        ("base", "0.5"),
    ),
    "base negative": (lambda: encode([1.0], 4, base=-3), ValueError, ("base", "-3")),
    "base nan": (lambda: frequencies(4, math.nan), ValueError, ("base", "nan")),
    "base inf": (lambda: wavelengths(4, math.inf), ValueError, ("base", "inf")),
    "base bool": (lambda: frequencies(4, True), TypeError, ("base", "True")),
    "base str": (
        lambda: SinusoidalPositionalEncoding(4, 4, base="10000"),
        TypeError,
        ("base", "'10000'"),
    ),
    "base huge int": (lambda: frequencies(4, 2**60 + 1), ValueError, ("base", str(2**60 + 1))),
    # positions: finite reals
    "positions nan": (lambda: encode([1.0, math.nan], 4), ValueError, ("positions", "nan")),
    "positions inf": (lambda: encode(math.inf, 4), ValueError, ("positions", "inf")),
    "positions -inf": (
        lambda: encode(np.array([[0.0, -np.inf]]), 4),
        ValueError,
        ("positions", "-inf"),
    ),
    "positions bool": (lambda: encode(True, 4), TypeError, ("positions", "True")),
    "positions bool array": (lambda: encode(np.array([True]), 4), TypeError, ("positions", "bool")),
    "positions complex": (lambda: encode(1j, 4), TypeError, ("positions", "complex")),
    "positions str": (lambda: encode("abc", 4), TypeError, ("positions",)),
    # X: finite float array, (B, L, d) or (L, d), last axis d_model
    "X last axis": (
        lambda: _MODULE.forward(np.zeros((2, 3, 5))),
        ValueError,
        ("X", "d_model=4", "(2, 3, 5)"),
    ),
    "X 1-D": (lambda: _MODULE.forward(np.zeros(4)), ValueError, ("X", "(4,)")),
    "X 4-D": (lambda: _MODULE.forward(np.zeros((1, 2, 3, 4))), ValueError, ("X", "(1, 2, 3, 4)")),
    "X int dtype": (
        lambda: _MODULE.forward(np.zeros((3, 4), dtype=np.int64)),
        TypeError,
        ("X", "int64"),
    ),
    "X nan": (lambda: _MODULE.forward(_NAN_X), ValueError, ("X", "nan", "(1, 2, 0)")),
    "X inf learned": (
        lambda: LearnedPositionalEncoding(8, 4).forward(np.full((2, 4), np.inf)),
        ValueError,
        ("X", "inf"),
    ),
    "X attention": (lambda: SelfAttention(4)(np.zeros((3, 6))), ValueError, ("X", "d_model=4")),
    # module options
    "dropout one": (
        lambda: SinusoidalPositionalEncoding(4, 4, dropout=1.0),
        ValueError,
        ("dropout", "1.0"),
    ),
    "dropout negative": (
        lambda: SinusoidalPositionalEncoding(4, 4, dropout=-0.1),
        ValueError,
        ("dropout", "-0.1"),
    ),
    "dropout str": (
        lambda: SinusoidalPositionalEncoding(4, 4, dropout="0.1"),
        TypeError,
        ("dropout", "'0.1'"),
    ),
    "rng int": (lambda: SinusoidalPositionalEncoding(4, 4, rng=42), TypeError, ("rng", "int")),
    "rng legacy": (
        lambda: LearnedPositionalEncoding(4, 4, rng=np.random.RandomState(0)),
        TypeError,
        ("rng", "RandomState"),
    ),
    "training str": (
        lambda: _MODULE.forward(np.zeros((2, 4)), training="yes"),
        TypeError,
        ("training", "'yes'"),
    ),
    # learned: L > max_seq_len, backward misuse
    "learned too long": (
        lambda: LearnedPositionalEncoding(4, 2).forward(np.zeros((1, 5, 2))),
        ValueError,
        ("L=5", "max_seq_len=4"),
    ),
    "backward before forward": (
        lambda: LearnedPositionalEncoding(4, 2).backward(np.zeros((3, 2))),
        RuntimeError,
        ("backward", "forward"),
    ),
    # choose_base
    "typical_seq_len zero": (lambda: choose_base(0), ValueError, ("typical_seq_len", "0")),
    "typical_seq_len float": (lambda: choose_base(512.0), TypeError, ("typical_seq_len", "512.0")),
    "ratio zero": (lambda: choose_base(512, ratio=0.0), ValueError, ("ratio", "0.0")),
    "ratio nan": (lambda: choose_base(512, ratio=math.nan), ValueError, ("ratio", "nan")),
    "ratio bool": (lambda: choose_base(512, ratio=True), TypeError, ("ratio", "True")),
    "wavelength too short": (lambda: choose_base(1, ratio=6.0), ValueError, ("ratio", "6.0", "2π")),
    "choose_base d_model 2": (lambda: choose_base(512, d_model=2), ValueError, ("d_model", "2")),
    "choose_base d_model odd": (lambda: choose_base(512, d_model=9), ValueError, ("d_model", "9")),
    # interpolation
    "training_max_len zero": (
        lambda: interpolated_positions(4, training_max_len=0, new_max_len=8),
        ValueError,
        ("training_max_len", "0"),
    ),
    "new_max_len shorter": (
        lambda: interpolated_positions(4, training_max_len=8, new_max_len=4),
        ValueError,
        ("new_max_len", "4", "training_max_len=8"),
    ),
    "past new_max_len": (
        lambda: interpolated_positions(5, training_max_len=4, new_max_len=8, offset=4),
        ValueError,
        ("new_max_len=8", "offset=4", "seq_len=5"),
    ),
    "interpolated module d_model": (
        lambda: InterpolatedPositionalEncoding(7, training_max_len=4, new_max_len=8),
        ValueError,
        ("d_model", "7"),
    ),
    # analysis: pe a finite real (L, d) matrix with d even
    "pe 1-D": (lambda: dot_product_distance(np.zeros(4)), ValueError, ("pe", "(4,)")),
    "pe odd columns": (lambda: encoding_statistics(np.zeros((3, 5))), ValueError, ("pe", "(3, 5)")),
    "pe nan": (
        lambda: relative_position_matrix(np.full((3, 4), np.nan), 1),
        ValueError,
        ("pe", "nan"),
    ),
    "pe str": (lambda: dot_product_distance(np.array([["a", "b"]])), TypeError, ("pe", "<U1")),
    "offset past pe": (lambda: relative_position_matrix(_PE, 8), ValueError, ("offset=8", "L=8")),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_names_parameter_and_value(case: str) -> None:
    call, error, fragments = CASES[case]
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} missing from {message!r}"


def test_learned_backward_shape_mismatch_names_both_shapes() -> None:
    layer = LearnedPositionalEncoding(8, 4)
    layer.forward(np.zeros((2, 3, 4)))
    with pytest.raises(ValueError, match=r"grad_output.*\(2, 3, 4\).*\(2, 5, 4\)"):
        layer.backward(np.zeros((2, 5, 4)))


def test_valid_edge_values_are_accepted() -> None:
    # The domain's edges are inside it: L = 0, offset = 0, base just above 1, d = 2,
    # NumPy integer scalars, an int base, dropout = 0.
    assert sinusoidal_positional_encoding(0, 2).shape == (0, 2)
    assert sinusoidal_positional_encoding(np.int64(2), np.int32(4), base=2).shape == (2, 4)
    assert np.all(np.isfinite(frequencies(4, math.nextafter(1.0, 2.0))))
    assert SinusoidalPositionalEncoding(0, 2, dropout=0.0).pe.shape == (0, 2)
