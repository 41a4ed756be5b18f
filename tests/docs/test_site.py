"""The SPEC as a static site (issue 40): MkDocs builds it with warnings as errors, and every
requirement id and numbered section of SPEC.md has a stable anchor in the built pages."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from paths import ROOT

pytest.importorskip("mkdocs", reason="the [site] extra is not installed")
pytest.importorskip("material", reason="the [site] extra (mkdocs-material) is not installed")

from sitegen.build import build
from sitegen.sources import github_slug, section_id

TABLE = ROOT / "results" / "conformance-table.json"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build(out, TABLE, ROOT / "results" / "history")
    return out


def _ids(site: Path) -> set[str]:
    ids: set[str] = set()
    for page in (site / "spec").glob("*.html"):
        ids |= set(re.findall(r'id="([^"]+)"', page.read_text(encoding="utf-8")))
    return ids


def test_every_requirement_id_of_the_spec_has_an_anchor(site: Path) -> None:
    spec = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    requirements = set(re.findall(r"^\*\*(R\d+\.\d+[a-z]?)\*\*", spec, re.MULTILINE))
    assert len(requirements) > 50  # SPEC §1–§9 number their requirements
    assert requirements <= _ids(site), sorted(requirements - _ids(site))


def test_every_numbered_section_has_a_stable_anchor(site: Path) -> None:
    spec = re.sub(
        r"^```.*?^```",
        "",
        (ROOT / "SPEC.md").read_text(encoding="utf-8"),
        flags=re.MULTILINE | re.DOTALL,
    )
    titles = re.findall(r"^#{1,6} (.+?)\s*$", spec, re.MULTILINE)
    wanted = {section_id(t) for t in titles} - {None}
    assert {"sec-6.1", "sec-4.4"} <= wanted
    assert wanted <= _ids(site), sorted(str(w) for w in wanted - _ids(site))
    # the GitHub anchors that links to SPEC.md use are kept too
    assert {github_slug(t) for t in titles} <= _ids(site)


def test_the_site_has_search_the_table_page_and_no_web_fonts(site: Path) -> None:
    assert (site / "search" / "search_index.json").is_file()
    assert (site / "table" / "index.html").is_file()
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "fonts.googleapis" not in home and 'href="table/index.html"' in home


def test_slugs_and_section_ids_follow_github_and_the_numbering() -> None:
    assert github_slug("6.1 Backends") == "61-backends"
    assert github_slug("A C or CUDA kernel: --from-file") == "a-c-or-cuda-kernel---from-file"
    assert section_id("Annex A — Error-model derivation") == "sec-A"
    assert section_id("A.3 The bound") == "sec-A.3"
    assert section_id("6. Conformance") == "sec-6"
    assert section_id("Notation") is None


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "spec").mkdir(parents=True)
    (root / "docs").mkdir()
    chapter = "## 1. Definition\n\n**R1.1** Text.\n"
    (root / "spec" / "01-definition.md").write_text(chapter, encoding="utf-8")
    (root / "SPEC.md").write_text(chapter, encoding="utf-8")
    shutil.copy(ROOT / "docs" / "faq.md", root / "docs" / "faq.md")
    shutil.copy(ROOT / "docs" / "guide.md", root / "docs" / "guide.md")
    (root / "docs" / "broken.md").write_text("# B\n\n[gone](nowhere.md)\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match=r"nowhere\.md"):
        build(tmp_path / "out", TABLE, None, root)
