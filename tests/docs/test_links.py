"""Every relative link of the docs resolves: the file exists, and its ``#anchor`` is a heading
of that file as GitHub renders it (issue 24, item 18: the guide's table of contents, the
README's links into SPEC.md and the guide).

The anchors are computed here by GitHub's published rule (lower case; characters other than
letters, digits, ``-``, ``_`` and spaces dropped; spaces to hyphens; ``-1``, ``-2`` for
repeats), independently of ``tools/docgen/contents.py`` which writes the contents lists.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from paths import ROOT

DOCUMENTS = [
    ROOT / "README.md",
    ROOT / "CONTRIBUTING.md",
    ROOT / "SPEC.md",
    *sorted((ROOT / "docs").glob("*.md")),
]
LINK = re.compile(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    """``text`` without fenced code blocks and inline code spans."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.DOTALL | re.MULTILINE)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the headings of ``path``."""
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    found: set[str] = set()
    for title in re.findall(r"^#{1,6} (.+?)\s*$", text, flags=re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        unique, k = slug, 0
        while unique in found:
            k += 1
            unique = f"{slug}-{k}"
        found.add(unique)
    return found


def test_the_anchor_rule_on_headings_github_renders(tmp_path: Path) -> None:
    # Anchors as github.com shows them for headings of these kinds (a repeat gets -1).
    path = tmp_path / "doc.md"
    doc = "## Ports of Whisper: `--convention`\n### 4.4 Levels\n## A (B), §8\n## A (B), §8\n"
    path.write_text(doc + "```text\n# not a heading\n```\n", encoding="utf-8")
    assert anchors(path) == {"ports-of-whisper---convention", "44-levels", "a-b-8", "a-b-8-1"}


def test_links_are_found() -> None:
    found = [LINK.findall(_prose(path.read_text(encoding="utf-8"))) for path in DOCUMENTS]
    assert sum(len(links) for links in found) >= 30  # the scan sees the documents' links


@pytest.mark.parametrize("document", DOCUMENTS, ids=[p.name for p in DOCUMENTS])
def test_every_relative_link_resolves(document: Path) -> None:
    problems = []
    for target in LINK.findall(_prose(document.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        path = (document.parent / file_part).resolve() if file_part else document
        if not path.exists():
            problems.append(f"{target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            problems.append(f"{target}: no heading with that anchor in {path.name}")
    assert not problems, f"{document.name}:\n" + "\n".join(problems)


@pytest.mark.parametrize(("name", "title"), [("guide", "plugging-in-your-implementation"),
                                             ("faq", "faq")])  # fmt: skip
def test_the_contents_link_every_section(name: str, title: str) -> None:
    document = ROOT / "docs" / f"{name}.md"
    text = document.read_text(encoding="utf-8")
    contents = text.split(f"<!-- GENERATED: docgen.contents:{name}_contents_text -->", 1)[1]
    contents = contents.split("<!-- END GENERATED -->", 1)[0]
    linked = set(re.findall(r"\]\(#([^)]+)\)", contents))
    assert linked == anchors(document) - {title}
