"""Reading a saved output file, for every family's from-file check (SPEC §6.5).

:func:`read_output` reads ``.npy`` (memory-mapped), ``.npz`` or ``.csv`` (never with pickle)
into a :class:`SavedOutput`: the array, the positions stored with it, the decimals of a text
file, its SHA-256. What a row holds is the family's business; this module names no family.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from numpy.typing import NDArray

from pespec.conformance._readers import read_npy, read_npz, read_text_table
from pespec.numerics.formats import DTYPES

__all__ = ["SavedOutput", "load_output", "read_npy", "read_output", "read_text_table"]
"""``read_npy`` and ``read_text_table`` (:mod:`pespec.conformance._readers`) are public here:
a family reads a positions file with them."""


@dataclass(frozen=True)
class SavedOutput:
    """A file read for ``--from-file``: the array, positions stored with it (an .npz
    ``positions`` array or a CSV ``position`` column; else None), the decimals its text
    values were printed with (None for binary files or exponent notation), its SHA-256."""

    array: NDArray[Any]
    positions: NDArray[Any] | None
    decimals: int | None
    sha256: str
    size: int


def read_output(
    path: str | Path, *, key: str | None = None, text_dtype: str | None = None
) -> SavedOutput:
    """The :class:`SavedOutput` of ``path``; see :func:`load_output`. Raises ValueError
    (:class:`FileFormatError`) saying what is wrong with the file."""
    file = Path(path)
    if not file.is_file():
        what = "is a folder" if file.is_dir() else "does not exist"
        raise ValueError(
            f"from_file must be an existing .npy, .npz or .csv file; {str(file)!r} {what}"
        )
    suffix = file.suffix.lower()
    decimals = None
    positions = None
    try:
        if suffix == ".npy":
            array = read_npy(file)
        elif suffix == ".npz":
            array, positions = read_npz(file, key)
        elif suffix in (".csv", ".txt"):
            table = read_text_table(file)
            array, positions, decimals = table.values, table.positions, table.decimals
            if text_dtype is not None:
                array = array.astype(DTYPES[text_dtype])
        else:
            raise ValueError(f"from_file must end in .npy, .npz or .csv; got {str(file)!r}")
    except OSError as exc:
        raise ValueError(f"from_file {str(file)!r} cannot be read: {exc.strerror or exc}") from None
    digest, size = _sha256(file)
    return SavedOutput(_bfloat16_from_void(array), positions, decimals, digest, size)


def load_output(
    path: str | Path, *, key: str | None = None, text_dtype: str | None = None
) -> tuple[NDArray[Any], NDArray[Any] | None]:
    """(array, positions or None) from ``.npy`` (memory-mapped), ``.npz`` or ``.csv``.

    An ``.npz`` may hold the output under ``key`` (default: its only array other than
    ``positions``, else ``encoding``, else ``values``) and the positions under
    ``positions``. No pickle. Text carries no dtype: a ``.csv`` is read as float64 and,
    when ``text_dtype`` (the claimed level's output dtype) is given, rounded to it, as
    ``strtof`` would read it; a first line that is not numbers is a header and skipped, and
    a header starting with ``position`` (or an empty cell, as pandas writes its index) marks
    a first column of positions. NumPy stores an ``ml_dtypes.bfloat16`` array as 2-byte void
    (``|V2``); such an array is read as bfloat16.
    """
    saved = read_output(path, key=key, text_dtype=text_dtype)
    return saved.array, saved.positions


def _sha256(file: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    with file.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def _bfloat16_from_void(array: NDArray[Any]) -> NDArray[Any]:
    """A 2-byte void array (how ``np.save`` records ml_dtypes.bfloat16) viewed as bfloat16."""
    if array.dtype.kind == "V" and array.dtype.itemsize == 2 and array.dtype.fields is None:
        return array.view(DTYPES["bfloat16"])
    return array
