"""Every generated block in SPEC.md, README.md and docs/*.md is up to date (CONTRIBUTING), and
named in one scheme: ``pespec.specblocks.AREA:<thing>_table`` or ``..._text`` for the installed
package, ``docgen.MODULE:...`` for the generators that read checkout files (tools/docgen)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest
from paths import ROOT

import pespec.specblocks
from pespec.cli.constants import TABLES
from pespec.specblocks import tables as table_blocks

BLOCK = re.compile(
    r"<!-- GENERATED: (?P<module>[\w.]+):(?P<function>\w+) -->\n"
    r"(?P<body>.*?)<!-- END GENERATED -->",
    re.DOTALL,
)
"""A generated block as ``tools/generate_docs.py`` fills it."""

TABLE_RULE = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+$", re.MULTILINE)
"""The delimiter row of a Markdown table (``|---|---|``)."""

HOMES = ("pespec.specblocks.", "docgen.")
"""Where generators live: the installed package's one module per SPEC area, or tools/docgen."""


def _blocks(paths: list[Path]) -> list[tuple[str, str, str, str]]:
    """(file, module, function, body) of every generated block in ``paths``."""
    return [
        (path.name, m["module"], m["function"], m["body"])
        for path in paths
        for m in BLOCK.finditer(path.read_text(encoding="utf-8"))
    ]


def _sources() -> list[Path]:
    """The Markdown sources that hold generated blocks (spec parts, README, docs)."""
    return [
        *sorted((ROOT / "spec").glob("*.md")),
        ROOT / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
    ]


def _generated() -> list[Path]:
    """The files whose blocks are filled (kept fresh by the first test)."""
    return [ROOT / "SPEC.md", ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _generator_names() -> set[str]:
    """``module:function`` for every public function of pespec.specblocks and tools/docgen."""
    names = set()
    packages = [pespec.specblocks, importlib.import_module("docgen")]
    for package in packages:
        for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            module = importlib.import_module(info.name)
            for name in getattr(module, "__all__", ()):
                if inspect.isfunction(getattr(module, name)):
                    names.add(f"{info.name}:{name}")
    return names


@pytest.mark.slow
def test_generated_docs_are_up_to_date() -> None:
    # The same command CI documents; exit 1 names the stale files.
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "generate_docs.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_spec_has_every_part_in_order() -> None:
    # One "## " heading per part: the numbered normative sections, then the lettered annexes.
    spec = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    headings = [line for line in spec.splitlines() if line.startswith("## ")]
    sections = [line for line in headings if line.split()[1][0].isdigit()]
    annexes = [line.split()[2] for line in headings if line.split()[1] == "Annex"]
    numbers = [int(line.split()[1].rstrip(".")) for line in sections]
    parts = sorted((ROOT / "spec").glob("[0-9][0-9]-*.md"))[1:]  # 00 is the front matter
    assert len(sections) + len(annexes) == len(headings) == len(parts), headings
    assert numbers == list(range(1, len(numbers) + 1)), headings
    assert annexes == [chr(ord("A") + k) for k in range(len(annexes))], headings
    assert len(numbers) >= 8, numbers  # 1-7 the sinusoidal encoding, 8 rotary (SPEC 1.1)
    assert "<!-- GENERATED: pespec.specblocks.tables:quoted_values_table -->" in spec


def test_every_block_names_a_generator_of_the_one_scheme() -> None:
    blocks = _blocks(_sources())
    assert len(blocks) >= 29, len(blocks)  # every block of the sources is seen
    problems = []
    for file, module, function, _ in blocks:
        target = f"{file}: {module}:{function}"
        if not module.startswith(HOMES):
            problems.append(f"{target} is outside pespec.specblocks and tools/docgen")
            continue
        generator = getattr(importlib.import_module(module), function, None)
        if not inspect.isfunction(generator):
            problems.append(f"{target} names no function")
            continue
        if not function.endswith(("_table", "_text")):
            problems.append(f"{target} ends in neither _table nor _text")
        required = [
            p.name
            for p in inspect.signature(generator).parameters.values()
            if p.default is inspect.Parameter.empty
        ]
        if required:
            problems.append(f"{target} requires arguments {required}")
    assert not problems, "\n".join(problems)


def test_table_blocks_hold_a_table_and_text_blocks_do_not() -> None:
    # The suffix says what the block is: _table for a Markdown table, _text for prose or a list.
    checked = 0
    for file, module, function, body in _blocks(_generated()):
        has_table = TABLE_RULE.search(body) is not None
        if function.endswith("_table"):
            assert has_table, f"{file}: {module}:{function} holds no Markdown table"
        else:
            assert not has_table, f"{file}: {module}:{function} holds a table: name it _table"
        checked += 1
    assert checked >= 29, checked


def test_every_generator_fills_a_block_or_a_command() -> None:
    # One place, nothing dead: each public function of pespec.specblocks and tools/docgen fills
    # a block of the docs, or prints a table of ``pespec constants`` (the same functions).
    used = {f"{module}:{function}" for _, module, function, _ in _blocks(_sources())}
    printed = {f"{table_blocks.__name__}:{name}" for name in TABLES.values()}
    assert printed <= _generator_names(), sorted(printed - _generator_names())
    assert _generator_names() <= used | printed, sorted(_generator_names() - used - printed)


CELL_BAR = re.compile(r"(?<!\\)\|")
"""A cell separator of a Markdown table row: a ``|`` not escaped as ``\\|``."""


def test_generated_table_rows_have_the_columns_of_their_header() -> None:
    # A ``|`` inside a cell's text (|x|, a norm) must be escaped, or the row gains columns and
    # the rendered table shifts every later cell (docs/mutation.md's survivor notes did).
    problems = []
    for file, module, function, body in _blocks(_generated()):
        rule = TABLE_RULE.search(body)
        if rule is None:
            continue
        header = body[: rule.start()].rstrip("\n").rsplit("\n", 1)[-1]
        width = len(CELL_BAR.findall(header))
        for row in body[rule.end() :].splitlines():
            if row.startswith("|") and len(CELL_BAR.findall(row)) != width:
                problems.append(f"{file} {module}:{function}: {row[:100]}")
    assert not problems, "\n".join(problems[:10])
