"""Reading a saved output for ``--from-file``: .csv text, .npy and .npz, never with pickle.

Every problem with a file is a :class:`FileFormatError` (a ValueError) that says what is
wrong with the file in its own terms: line numbers are 1-based lines of the file, values are
counted from 1 within a line, and nothing suggests an unsafe way of loading it.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["FileFormatError", "TextTable", "read_npy", "read_npz", "read_text_table"]

_NPY_MAGIC = b"\x93NUMPY"
_POSITION_HEADERS = ("position", "positions", "pos", "p", "")
"""A header whose first cell is one of these marks a leading column of positions ("" is
the unnamed index column pandas' ``to_csv()`` writes)."""


class FileFormatError(ValueError):
    """A --from-file input that cannot be read as an output array; the message says why."""


@dataclass(frozen=True)
class TextTable:
    """A comma-separated table: values (rows, columns), positions from a leading
    ``position`` column (or None), and how many decimals its values were printed with
    (``decimals``: the most digits after the point; None when any uses an exponent)."""

    values: NDArray[np.float64]
    positions: NDArray[Any] | None
    decimals: int | None


def read_text_table(file: Path) -> TextTable:
    """Parse ``file`` as comma-separated numbers, one row per line.

    A first line that is not numbers is a header; when its first cell is ``position`` (or
    empty, as pandas writes its index) the first column holds the positions. A comma at
    the end of every line (common in C output) is allowed; blank lines are skipped. Values
    are decimal or C99 hexadecimal floats (printf's %a, read exactly).
    """
    text = _text_of(file)
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        raise FileFormatError(f"from_file {str(file)!r} is empty: it holds no values")
    header_cells = _header(lines[0][1])
    position_column = header_cells is not None and header_cells[0].lower() in _POSITION_HEADERS
    body = lines[1:] if header_cells is not None else lines
    if not body:
        raise FileFormatError(
            f"from_file {str(file)!r} holds a header line and no values (line "
            f"{lines[0][0]}: {lines[0][1][:60]!r})"
        )
    first_line, first = body[0]
    separator = _other_separator(first)
    if "," not in first and separator is not None:
        raise FileFormatError(
            f"from_file {str(file)!r}: line {first_line} holds values separated by "
            f"{separator}; pespec reads comma-separated values (np.savetxt(path, out, "
            "delimiter=',', fmt='%.17g'), or fprintf with ',' between values)"
        )
    width = len(_cells(first))
    rows = np.empty((len(body), width), dtype=np.float64)
    for r, (number, line) in enumerate(body):
        cells = _cells(line)
        if len(cells) != width:
            spaced = [k for k, c in enumerate(cells, start=1) if len(c.split()) > 1]
            hint = (
                f" (value {spaced[0]} holds a space: separate values by commas)" if spaced else ""
            )
            raise FileFormatError(
                f"from_file {str(file)!r}: line {number} has {len(cells)} values but line "
                f"{first_line} has {width}; every row must have the same number of values{hint}"
            )
        rows[r] = _numbers(file, number, cells)
    decimals = _decimals([cell for _, line in body[:64] for cell in _cells(line)])
    if not position_column or width < 2:  # one column under "position": a positions file
        return TextTable(rows, None, decimals)
    positions = rows[:, 0]
    if np.all(np.isfinite(positions)) and np.all(positions == np.round(positions)):
        if np.all(np.abs(positions) < 2.0**53):
            return TextTable(rows[:, 1:], positions.astype(np.int64), decimals)
    return TextTable(rows[:, 1:], positions, decimals)


def _text_of(file: Path) -> str:
    data = file.read_bytes()
    if data.startswith(_NPY_MAGIC) or data.startswith(b"PK\x03\x04"):
        kind = ".npy" if data.startswith(_NPY_MAGIC) else ".npz (zip)"
        raise FileFormatError(
            f"from_file {str(file)!r} is a binary {kind} file, not text: name it {kind[:4]}"
        )
    if b"\x00" in data:
        raise FileFormatError(
            f"from_file {str(file)!r} is not a text file (it holds NUL bytes): a .csv must "
            "hold comma-separated numbers"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileFormatError(
            f"from_file {str(file)!r} is not a text file (byte {exc.start + 1} is not UTF-8): "
            "a .csv must hold comma-separated numbers"
        ) from None


def _other_separator(line: str) -> str | None:
    """How ``line`` separates its numbers when not by commas: "';'", "tabs", "spaces"."""
    for separator, name in ((";", "';'"), ("\t", "tabs"), (None, "spaces")):
        parts = line.split(separator)
        if len(parts) > 1 and all(_is_number(p) for p in parts if p.strip()):
            return name
    return None


def _is_number(text: str) -> bool:
    try:
        _parse(text)
    except ValueError:
        return False
    return True


def _parse(text: str) -> float:
    """A decimal number, or a C99 hexadecimal float as printf's %a writes it (exact)."""
    try:
        return float(text)
    except ValueError:
        stripped = text.strip().lower().lstrip("+-")
        if not stripped.startswith("0x"):
            raise
        value = float.fromhex(text.strip())
        return value


def _cells(line: str) -> list[str]:
    cells = line.split(",")
    if len(cells) > 1 and not cells[-1].strip():
        cells.pop()  # a trailing comma ends the line
    return cells


def _header(line: str) -> list[str] | None:
    """The cells of ``line`` when it is a header (not all numbers), else None."""
    cells = [c.strip() for c in _cells(line)]
    if all(_is_number(cell) for cell in cells):
        return None
    if "," not in line and _other_separator(line) is not None:
        return None  # numbers under another separator: said where they are read
    return cells


def _numbers(file: Path, number: int, cells: list[str]) -> NDArray[np.float64]:
    try:
        return np.array([float(c) for c in cells], dtype=np.float64)
    except ValueError:
        pass
    values = np.empty(len(cells), dtype=np.float64)
    for k, cell in enumerate(cells, start=1):
        try:
            values[k - 1] = _parse(cell)
        except (ValueError, OverflowError):
            shown = repr(cell.strip()) if cell.strip() else "empty"
            hint = ""
            if len(cell.split()) > 1:
                hint = "; values must be separated by commas, not spaces"
            raise FileFormatError(
                f"from_file {str(file)!r}: line {number}, value {k} is {shown}, not a number{hint}"
            ) from None
    return values


def _decimals(cells: list[str]) -> int | None:
    """Most digits after the decimal point among ``cells``; None when one uses an exponent
    (then the values carry their own precision) or none has a point."""
    most = None
    for cell in cells:
        text = cell.strip().lower()
        if any(c in text for c in "enxp"):  # exponent, nan, inf, hexadecimal
            return None
        if "." in text:
            digits = len(text.partition(".")[2])
            most = digits if most is None else max(most, digits)
    return most


def _check_magic(file: Path) -> None:
    with file.open("rb") as handle:
        head = handle.read(len(_NPY_MAGIC))
    if head != _NPY_MAGIC:
        what = "a text file" if _looks_textual(file) else "not a NumPy .npy file"
        rename = (
            "; text with comma-separated numbers should be named .csv"
            if (what == "a text file")
            else ""
        )
        raise FileFormatError(
            f"from_file {str(file)!r} is {what}: a .npy file starts with the bytes "
            f"\\x93NUMPY (written by np.save){rename}"
        )


def _looks_textual(file: Path) -> bool:
    with file.open("rb") as handle:
        head = handle.read(4096)
    try:
        head.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return b"\x00" not in head


def _object_error(file: Path, name: str = "") -> FileFormatError:
    where = f" in array {name!r}" if name else ""
    return FileFormatError(
        f"from_file {str(file)!r} holds an array of Python objects{where} (dtype object, "
        "e.g. a list of arrays of different lengths); pespec loads numbers only: save a "
        "numeric array, e.g. np.save(path, np.asarray(out, dtype=np.float32))"
    )


def read_npy(file: Path) -> NDArray[Any]:
    """The array of a ``.npy`` file, memory-mapped; never pickle."""
    _check_magic(file)
    try:
        with file.open("rb") as handle:
            version = np.lib.format.read_magic(handle)
            header = (
                np.lib.format.read_array_header_1_0(handle)
                if version == (1, 0)
                else np.lib.format.read_array_header_2_0(handle)
            )
    except (ValueError, OSError, EOFError, SyntaxError) as exc:
        raise FileFormatError(f"from_file {str(file)!r} is a corrupt .npy file: {exc}") from None
    if np.dtype(header[2]).hasobject:
        raise _object_error(file)
    try:
        array: NDArray[Any] = np.load(file, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise FileFormatError(
            f"from_file {str(file)!r} is a corrupt .npy file (its header says shape "
            f"{header[0]}, dtype {np.dtype(header[2])}; {exc})"
        ) from None
    return array


def read_npz(file: Path, key: str | None) -> tuple[NDArray[Any], NDArray[Any] | None]:
    """(output, positions or None) of a ``.npz`` archive; never pickle.

    The output is the array named ``key``; by default the only array other than
    ``positions``, else ``encoding``, else ``values`` (``pespec golden export``)."""
    if not zipfile.is_zipfile(file):
        raise FileFormatError(
            f"from_file {str(file)!r} is not a .npz archive (a zip file written by np.savez), "
            "or it is cut short"
        )
    try:
        with np.load(file, allow_pickle=False) as archive:
            names = [n for n in archive.files if n != "positions"]
            chosen = key if key is not None else _default_key(file, names)
            if chosen not in archive.files:
                raise FileFormatError(
                    f"key must be one of {names} in {str(file)!r}; got {chosen!r}"
                )
            output = _member(file, archive, chosen)
            positions = (
                _member(file, archive, "positions") if "positions" in archive.files else None
            )
            return output, positions
    except FileFormatError:
        raise
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise FileFormatError(f"from_file {str(file)!r} is a corrupt .npz archive: {exc}") from None


def _default_key(file: Path, names: list[str]) -> str:
    if not names:
        raise FileFormatError(f"from_file {str(file)!r} holds no arrays")
    if len(names) == 1:
        return names[0]
    for name in ("encoding", "values"):
        if name in names:
            return name
    raise FileFormatError(
        f"key must name the output array in {str(file)!r} (give --key); it holds {names}"
    )


def _member(file: Path, archive: Any, name: str) -> NDArray[Any]:
    try:
        array: NDArray[Any] = archive[name]
    except ValueError as exc:
        if "pickle" in str(exc) or "object" in str(exc):
            raise _object_error(file, name) from None
        raise
    if not isinstance(array, np.ndarray):  # NpzFile returns a member without the magic as bytes
        raise FileFormatError(
            f"from_file {str(file)!r}: member {name!r} of the archive is not a NumPy array "
            "(write the archive with np.savez)"
        )
    return array
