"""One row of a saved output per position (pespec.conformance.filepositions.one_row_each),
the rule every file check of positions shares, with one wording."""

from __future__ import annotations

import numpy as np
import pytest

from pespec.conformance.filepositions import one_row_each


def test_one_row_per_position_is_kept() -> None:
    positions = np.arange(3)
    kept, how = one_row_each("out.npy", np.zeros((3, 4)), positions, "stored in the file")
    assert kept is positions and how == "stored in the file"


def test_another_count_names_the_file_and_both_counts() -> None:
    message = (
        "from_file 'out.npy' has 2 rows but stored in the file are 3 positions; "
        "give one row per position"
    )
    with pytest.raises(ValueError) as raised:
        one_row_each("out.npy", np.zeros((2, 4)), np.arange(3), "stored in the file")
    assert str(raised.value) == message
