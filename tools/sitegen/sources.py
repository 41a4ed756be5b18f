"""The site's sources: SPEC.md cut back into its chapters (its generated blocks as they are),
docs/*.md, a home page and the conformance table's page, with stable anchors added and the
links that pointed into the single-file SPEC pointed at the chapter that holds their heading.

Anchors: every heading keeps the GitHub-style slug that links to SPEC.md already use
(:func:`github_slug`, also the slug MkDocs is told to use), a numbered section also gets
``sec-N.M`` (``sec-A.3`` in an annex), and every requirement ``**R6.1**`` gets ``R6.1``.
"""

from __future__ import annotations

import re
import shutil
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEADING = re.compile(r"^(#{1,6}) (.+?)\s*$", re.MULTILINE)
REQUIREMENT = re.compile(r"^\*\*(R\d+\.\d+[a-z]?)\*\*", re.MULTILINE)
SPEC_LINK = re.compile(r"\]\((?:\.\./)?SPEC\.md#([^)\s]+)\)")
ANCHOR_LINK = re.compile(r"\]\(#([^)\s]+)\)")


def github_slug(value: str, separator: str = "-") -> str:
    """GitHub's heading anchor: lower case, punctuation dropped (hyphens and underscores
    kept), each space a hyphen; MkDocs' ``toc`` calls it as ``slugify(value, separator)``."""
    text = unicodedata.normalize("NFC", re.sub(r"<[^>]+>", "", value)).lower().strip()
    text = "".join(ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in "LN")
    return text.replace(" ", separator)


def section_id(title: str) -> str | None:
    """``sec-6.1`` for "6.1 Backends", ``sec-A`` for "Annex A — ...", ``sec-A.3`` for
    "A.3 ..."; None for an unnumbered heading."""
    found = re.match(r"^(?:Annex )?((?:\d+|[A-Z])(?:\.\d+)*)\.?(?: |$)", title)
    return f"sec-{found.group(1)}" if found else None


def chapters(spec: str, parts: list[Path]) -> dict[str, str]:
    """SPEC.md's text cut at each part's first line: file name → its filled text."""
    starts: list[int] = []
    for part in parts:
        first = part.read_text(encoding="utf-8").split("\n", 1)[0]
        at = spec.find(first + "\n", starts[-1] + 1 if starts else 0)
        if at < 0:
            raise ValueError(f"SPEC.md does not hold {part.name}'s first line (regenerate it)")
        starts.append(at)
    bounds = [*starts, len(spec)]
    return {p.name: spec[bounds[i] : bounds[i + 1]] for i, p in enumerate(parts)}


def add_anchors(text: str) -> str:
    """``text`` with ``sec-*`` anchors before numbered headings and ``R*`` anchors before
    requirements (raw HTML anchors: the headings keep their GitHub slugs)."""

    def heading(match: re.Match[str]) -> str:
        sid = section_id(match.group(2))
        return f'<a id="{sid}"></a>\n\n{match.group(0)}' if sid else match.group(0)

    text = HEADING.sub(heading, text)
    return REQUIREMENT.sub(lambda m: f'<a id="{m.group(1)}"></a>{m.group(0)}', text)


def slugs(text: str) -> set[str]:
    """The GitHub slugs of ``text``'s headings (outside fenced code)."""
    plain = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    return {github_slug(m.group(2)) for m in HEADING.finditer(plain)}


def relink(text: str, where: dict[str, str], own: set[str], prefix: str) -> str:
    """Links to ``SPEC.md#slug`` (and in a chapter, ``#slug`` of another chapter) pointed
    at the chapter page that has the heading; ``where``: slug → chapter file."""

    def spec_link(match: re.Match[str]) -> str:
        slug = match.group(1)
        return f"]({prefix}{where[slug]}#{slug})" if slug in where else match.group(0)

    def anchor(match: re.Match[str]) -> str:
        slug = match.group(1)
        if slug in own or slug not in where:
            return match.group(0)
        return f"]({prefix}{where[slug]}#{slug})"

    return ANCHOR_LINK.sub(anchor, SPEC_LINK.sub(spec_link, text))


def write_sources(out: Path, root: Path = ROOT) -> dict[str, list[str | dict[str, str]]]:
    """Write the site's Markdown under ``out`` (spec/, docs/, index.md); return the nav
    groups: "SPEC" and "Guides" → page paths relative to ``out``."""
    parts = sorted((root / "spec").glob("[0-9][0-9]-*.md"))
    texts = chapters((root / "SPEC.md").read_text(encoding="utf-8"), parts)
    where = {slug: name for name, text in texts.items() for slug in slugs(text)}
    (out / "spec").mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        text = relink(text, where, slugs(text), "")
        (out / "spec" / name).write_text(add_anchors(text), encoding="utf-8")
    (out / "docs").mkdir(exist_ok=True)
    guides = sorted((root / "docs").glob("*.md"))
    for path in guides:
        text = relink(path.read_text(encoding="utf-8"), where, set(), "../spec/")
        (out / "docs" / path.name).write_text(text, encoding="utf-8")
    if (root / "docs" / "examples").is_dir():
        shutil.copytree(root / "docs" / "examples", out / "docs" / "examples", dirs_exist_ok=True)
    return {
        "SPEC": [{_title(name, text): f"spec/{name}"} for name, text in texts.items()],
        "Guides": [f"docs/{p.name}" for p in guides],
    }


def _title(name: str, text: str) -> str:
    """A chapter's title in the navigation: its first heading ("6. Conformance")."""
    found = HEADING.search(text)
    if name.startswith("00-") or found is None:
        return "Front matter"
    return found.group(2)
