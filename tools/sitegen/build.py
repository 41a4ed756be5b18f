"""Build the SPEC as a static site with MkDocs (Material theme), warnings as errors (issue 40).

    python tools/sitegen/build.py OUT_DIR [--table TABLE.json] [--history FOLDER]

Lays out the sources (:mod:`sitegen.sources`) and the conformance table's page in a temporary
folder, writes the MkDocs configuration beside them and runs ``mkdocs build --strict``. Needs
the ``[site]`` extra (``pip install -e '.[site]'``). No font or script is fetched from the
network (the theme's web fonts are turned off); search is MkDocs' own, built into the site.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/: the sitegen package

from sitegen.sources import ROOT, write_sources

HOME = """# pespec

pespec is a verified reference specification and conformance suite for sinusoidal, rotary and
multi-axis position encodings. This site is built from the repository's `spec/` chapters (the
single-file form is `SPEC.md`), its guides (`docs/`) and the conformance table's page.

- [The specification](spec/00-front.md), one page per chapter.
- [The conformance table](table/index.html): every library entry point checked, with filters,
  causes, each row's reproduction line and the table's history.
- Guides: [plugging in an implementation](docs/guide.md), [FAQ](docs/faq.md).

Stable links: a requirement is `spec/CHAPTER.html#R6.1`, a numbered section
`spec/CHAPTER.html#sec-6.1` (an annex's: `#sec-A.3`); every heading also keeps the anchor that
links to `SPEC.md` use (`#61-backends`).
"""


def _config(src: Path, out: Path, nav: dict[str, list[str | dict[str, str]]]) -> str:
    """mkdocs.yml (YAML; the lists in JSON form, which YAML reads)."""
    groups = [{name: pages} for name, pages in nav.items()]
    navigation = [{"Home": "index.md"}, *groups, {"Conformance table": "table/index.html"}]
    return f"""site_name: pespec
docs_dir: {json.dumps(str(src))}
site_dir: {json.dumps(str(out))}
use_directory_urls: false
strict: true
validation:
  omitted_files: warn
  absolute_links: warn
  unrecognized_links: warn
  anchors: warn
theme:
  name: material
  font: false
  features: [navigation.sections, search.highlight, toc.follow]
plugins: [search]
markdown_extensions:
  - tables
  - attr_list
  - md_in_html
  - admonition
  - toc:
      permalink: true
      slugify: !!python/name:sitegen.sources.github_slug
nav: {json.dumps(navigation)}
"""


def build(out: Path, table: Path, history: Path | None, root: Path = ROOT) -> None:
    """Write the site of the checkout ``root`` into ``out`` (RuntimeError with MkDocs'
    messages when it warns)."""
    from pespec.tablepage import load_table, write_page
    from pespec.tablepage.history import load_history

    with tempfile.TemporaryDirectory(prefix="pespec-site-") as folder:
        src = Path(folder) / "src"
        nav = write_sources(src, root)
        (src / "index.md").write_text(HOME, encoding="utf-8")
        snapshots = load_history(history) if history and history.is_dir() else []
        write_page(load_table(table, "--table"), src / "table", snapshots)
        config = Path(folder) / "mkdocs.yml"
        config.write_text(_config(src, out.resolve(), nav), encoding="utf-8")
        tools = str(Path(__file__).resolve().parents[1])
        path = os.pathsep.join([tools, os.environ.get("PYTHONPATH", "")])
        env = {**os.environ, "PYTHONPATH": path}
        done = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config)],
            capture_output=True,
            text=True,
            env=env,
        )
        if done.returncode != 0:
            raise RuntimeError(f"mkdocs build failed:\n{done.stdout}{done.stderr}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the folder the site is written into")
    parser.add_argument("--table", type=Path, default=ROOT / "results" / "conformance-table.json")
    parser.add_argument("--history", type=Path, default=ROOT / "results" / "history")
    args = parser.parse_args(argv)
    try:
        build(args.out, args.table, args.history)
    except (RuntimeError, ValueError) as exc:
        print(exc, file=sys.stderr)
        return 1
    print(f"wrote the site into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
