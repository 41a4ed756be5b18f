"""Tables of contents of the long documents (docs/guide.md, docs/faq.md), from their headings.

A generated block (``<!-- GENERATED: docgen.contents:guide_contents_text -->``) holds one link
per ``##`` heading, ``###`` headings indented below it, each to the anchor GitHub gives the
heading; a heading added or renamed makes the block stale until ``tools/generate_docs.py``
runs (tests/docs/test_generated.py), and tests/docs/test_links.py checks every anchor resolves.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["faq_contents_text", "guide_contents_text"]

DOCS = Path(__file__).resolve().parents[2] / "docs"
FENCE = re.compile(r"^(```|~~~)")


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation (backticks, colons, dots,
    parentheses, §) dropped, each space a hyphen (``A C kernel: `--x` `` -> ``a-c-kernel---x``)."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings(text: str) -> list[tuple[int, str]]:
    """(level, title) of each ``#``-heading of a Markdown text, outside fenced code blocks."""
    found: list[tuple[int, str]] = []
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and (match := re.match(r"^(#{1,6}) (.+)$", line)):
            found.append((len(match.group(1)), match.group(2).strip()))
    return found


def _contents(path: Path) -> str:
    """The contents list of ``path``: its ``##`` and ``###`` headings, linked."""
    lines = ["Contents:", ""]
    seen: dict[str, int] = {}
    for level, title in headings(path.read_text(encoding="utf-8")):
        anchor = github_anchor(title)
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        if level not in (2, 3):
            continue
        unique = anchor if count == 0 else f"{anchor}-{count}"
        label = title.replace("[", "\\[").replace("]", "\\]")
        lines.append(f"{'  ' * (level - 2)}- [{label}](#{unique})")
    return "\n".join(lines) + "\n"


def guide_contents_text() -> str:
    """The contents of docs/guide.md."""
    return _contents(DOCS / "guide.md")


def faq_contents_text() -> str:
    """The questions of docs/faq.md."""
    return _contents(DOCS / "faq.md")
