"""The rules every family's ``--from-file`` route shares (SPEC §6.5, R8.16), written once.

The families' checks of a saved output differ in what a row holds; they agree, through
this module, on the level a file may claim (:func:`claimed_file_level`), on what the report
says the file covered (:func:`file_record`: positions, columns, a small sample) and on when a
failure looks like decimal truncation of a text file (:func:`truncation_note`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "FIXED_DECIMALS_NOTED",
    "ClaimableLevel",
    "claimed_file_level",
    "file_record",
    "truncation_note",
]

FIXED_DECIMALS_NOTED: Final = 6
"""C's ``%f`` (and ``np.savetxt(fmt='%f')``) prints 6 decimals: a failing text file whose values
carry at most this many always gets the truncation note, explained or not."""


class ClaimableLevel(Protocol):
    """A level of either family: its name, and whether it is at least as tight as another."""

    @property
    def name(self) -> str: ...

    def at_least_as_tight(self, other: Any) -> bool: ...


L = TypeVar("L", bound=ClaimableLevel)


def claimed_file_level(
    claim: L | None, file_dtype: str | None, *, text: bool, default_for: Callable[[str], L]
) -> L | None:
    """The level a file is judged at (SPEC §6.5, R8.16), the same rule for both families.

    No claim: the default level of the file's dtype (a text file is read as float64). A
    float64 or text file records no narrower dtype, so it may claim any level (a text file is
    then read in the claim's output dtype). A file of another dtype may claim only a level at
    least as tight as its dtype's default; a looser claim raises ValueError (exit 2). A dtype
    pespec does not know: the claim as given (the dtype contract item fails).
    """
    if file_dtype is None:
        return claim
    if claim is None:
        return default_for(file_dtype)
    if text or file_dtype == "float64":
        return claim
    default = default_for(file_dtype)
    if not claim.at_least_as_tight(default):
        raise ValueError(
            f"--level {claim.name} is looser than {default.name}, the default level of the "
            f"file's {file_dtype} values: a {file_dtype} file may claim only its default level "
            "or a tighter one (a float64 or text file may claim any level)"
        )
    return claim


def file_record(
    path: str,
    saved: Any,
    positions: NDArray[Any],
    given: str,
    columns: tuple[str, int],
    threshold: tuple[int, str],
) -> dict[str, Any]:
    """The report's ``backend.file``: the file's identity and what it covered.

    ``saved``: the :class:`~pespec.conformance.savedfile.SavedOutput`; ``positions``: (n,),
    one per row; ``columns``: (the family's name of a row's width, count); ``threshold``:
    (positions, what that count is) below which the verdict line calls the file a small
    sample (each family gives its own).
    """
    count = int(positions.shape[0])
    low = np.min(positions).item() if count else None
    high = np.max(positions).item() if count else None
    name, width = columns
    span = f"{_number(low)}..{_number(high)}"
    coverage = f"{count} position{'s' if count != 1 else ''} ({span}), {name} {width}"
    least, what = threshold
    small = None
    if count < least:
        small = (
            f"a small sample: fewer than {least} positions ({what}); the verdict covers only "
            "these rows"
        )
    return {
        "path": path,
        "sha256": saved.sha256,
        "bytes": saved.size,
        "positions": {
            "given": given,
            "count": count,
            "first": positions[0].item() if count else None,
            "last": positions[-1].item() if count else None,
            "min": low,
            "max": high,
        },
        "columns": {"name": name, "count": width},
        "coverage": coverage,
        "small_sample": small,
    }


def _number(value: float | None) -> str:
    """A position as the verdict line prints it: integers without a point (1048576)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)


def truncation_note(decimals: int | None, passes_with_slack: Callable[[float], bool]) -> str:
    """The note for a failing comparison of a text file printed with few fixed decimals.

    ``decimals``: the most digits after the point among the file's values (None: exponent
    notation or binary file, which carry their own precision). Printing with D decimals
    rounds every value by at most half a unit of the D-th decimal, 0.5·10^-D (5e-07 for
    ``%f``'s 6). ``passes_with_slack(s)``: whether the comparison passes once ``s`` is added to
    every bound. The note is given when that explains the failure, and for D ≤ 6 always.
    """
    if decimals is None:
        return ""
    slack = 0.5 * 10.0**-decimals
    explained = passes_with_slack(slack)
    if not explained and decimals > FIXED_DECIMALS_NOTED:
        return ""
    verdict = (
        f"which explains this failure: every value is within its bound plus {slack:.1g}"
        if explained
        else "which does not explain this failure alone: some values exceed their bound by more"
    )
    return (
        f"; the values carry at most {decimals} decimals (printf's %f prints 6): this looks "
        f"like decimal truncation: it moves each value by up to {slack:.1g} (half a unit "
        f"in decimal {decimals}), {verdict}; print with %.17g for float64 or %.9g for float32"
    )
