"""Text for one cell of a Markdown table (the generated docs, the conformance table page)."""

from __future__ import annotations

__all__ = ["cell"]


def cell(text: object) -> str:
    """``text`` as one table cell: every ``|`` escaped exactly once (a ``\\|`` already escaped
    stays one), line breaks as spaces; None is empty. An unescaped ``|`` (|x|, a norm, a
    shell pipe) would split the cell and shift every later column of the row."""
    plain = str(text if text is not None else "").replace("\\|", "|")
    return plain.replace("|", "\\|").replace("\n", " ")
