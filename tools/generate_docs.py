"""Build SPEC.md from spec/*.md and fill every generated block in the docs.

A generated block is written in a Markdown source as::

    <!-- GENERATED: pespec.specblocks.AREA:function -->
    ...anything (replaced)...
    <!-- END GENERATED -->

``function()`` takes no arguments and returns Markdown text; it is in ``pespec.specblocks``
(``<thing>_table`` or ``<thing>_text``), or in ``tools/docgen`` (``docgen.MODULE:function``)
when it reads files of the checkout. SPEC.md is the
concatenation of ``spec/NN-*.md`` in name order, with its blocks filled;
README.md and docs/*.md have their blocks filled in place.

    python tools/generate_docs.py          # rewrite the files (atomically)
    python tools/generate_docs.py --check  # exit 1 and name the files that are stale

The test suite runs ``--check`` so numbers in the docs cannot drift from the code.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Callable
from pathlib import Path

from pespec._atomic import write_atomic

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(
    r"(<!-- GENERATED: (?P<target>[\w.]+:\w+) -->\n)(?P<body>.*?)(<!-- END GENERATED -->)",
    re.DOTALL,
)


def _call(target: str) -> str:
    module_name, function_name = target.split(":")
    function: Callable[[], str] = getattr(importlib.import_module(module_name), function_name)
    text = function()
    return text if text.endswith("\n") else text + "\n"


def fill_blocks(text: str) -> str:
    """Return ``text`` with every generated block's body replaced by its generator's output."""
    cache: dict[str, str] = {}

    def replace(match: re.Match[str]) -> str:
        target = match.group("target")
        if target not in cache:
            cache[target] = _call(target)
        return match.group(1) + cache[target] + match.group(4)

    return BLOCK.sub(replace, text)


def expected_outputs(root: Path = ROOT) -> dict[Path, str]:
    """Every generated file and the text it should have."""
    outputs: dict[Path, str] = {}
    parts = sorted((root / "spec").glob("[0-9][0-9]-*.md"))
    if parts:
        spec = "\n".join(part.read_text(encoding="utf-8").rstrip("\n") + "\n" for part in parts)
        outputs[root / "SPEC.md"] = fill_blocks(spec)
    for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        if path.exists():
            outputs[path] = fill_blocks(path.read_text(encoding="utf-8"))
    return outputs


def stale_files(root: Path = ROOT) -> list[Path]:
    """Generated files whose content differs from what the generators produce now."""
    stale = []
    for path, text in expected_outputs(root).items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != text:
            stale.append(path)
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only report stale files")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_files()
        for path in stale:
            print(f"stale: {path.relative_to(ROOT)} (run python tools/generate_docs.py)")
        return 1 if stale else 0
    for path, text in expected_outputs().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != text:
            write_atomic(path, text)
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
