"""Every code example in README.md and docs/*.md is executed (issue 8, CONTRIBUTING).

Per document, in order, in one temporary working directory and one Python namespace:

* ```python blocks are executed;
* ```bash blocks must consist of ``pespec ...`` command lines; each runs in-process through
  :func:`pespec.cli.main` and must exit 0 (or the code named by ``<!-- exit: N -->``);
* ```cpp and ```rust blocks are compiled (g++, rustc) and run; the test skips from there on
  when the compiler is not installed, saying which;
* ``<!-- requires: MODULE[, MODULE...] -->`` marks a self-contained block for optional
  libraries (jax, torch): it runs on its own, in a test that is skipped, visibly, when a
  MODULE is missing (tests/docs/test_requires.py checks no such block lacks the marker);
* ``<!-- not-executed: reason -->`` opts a block out, with a reason.

The README's two quick-start commands (marked ``<!-- README:... -->``) are run by CI
(``.ci/run``) instead. Other fence languages (text, json) are not code examples.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from paths import ROOT

from pespec.cli import main

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXECUTED = {"python", "bash", "cpp", "rust"}
MARKER = re.compile(r"<!--\s*(README:[\w-]+|[\w-]+)\s*(?::\s*(.*?))?\s*-->")
FENCE = re.compile(r"^```(\S*)\s*$")


@dataclass
class Block:
    """One fenced code block with the markers on the lines right before it."""

    language: str
    code: str
    line: int
    markers: dict[str, str]


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, in order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if match is None:
            i += 1
            continue
        markers: dict[str, str] = {}
        j = i - 1
        while j >= 0 and lines[j].strip().startswith("<!--"):
            marker = MARKER.match(lines[j].strip())
            if marker:
                markers[marker.group(1)] = marker.group(2) or ""
            j -= 1
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        found.append(Block(match.group(1), "\n".join(lines[i + 1 : end]) + "\n", i + 1, markers))
        i = end + 1
    return found


def required_modules(block: Block) -> list[str]:
    """The modules named by the block's ``<!-- requires: a, b -->`` marker (none without)."""
    names = block.markers.get("requires", "")
    return [name.strip() for name in names.split(",") if name.strip()]


def _is_ci_command(block: Block) -> bool:
    return any(name.startswith("README:") for name in block.markers)


def _run_bash(block: Block, where: str) -> None:
    expected = int(block.markers.get("exit", "0") or 0)
    for line in block.code.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        words = shlex.split(line)
        assert words[0] == "pespec", f"{where}: bash examples must be pespec commands: {line}"
        assert main(words[1:]) == expected, f"{where}: {line!r} did not exit {expected}"


def _run_native(block: Block, where: str, workdir: Path) -> None:
    compiler = {"cpp": "g++", "rust": "rustc"}[block.language]
    executable = shutil.which(compiler)
    if executable is None:
        pytest.skip(f"{where}: {compiler} is not installed; the {block.language} example and "
                    "the blocks after it were not run")  # fmt: skip
    name = f"example_{block.line}"
    if block.language == "cpp":
        source = workdir / f"{name}.cpp"
        command = [executable, "-O2", "-std=c++17", str(source), "-o", str(workdir / name)]
    else:
        source = workdir / f"{name}.rs"
        command = [executable, "-O", str(source), "-o", str(workdir / name)]
    source.write_text(block.code, encoding="utf-8")
    compiled = subprocess.run(command, capture_output=True, text=True, check=False)
    assert compiled.returncode == 0, f"{where}: compile failed\n{compiled.stderr}"
    ran = subprocess.run([str(workdir / name)], cwd=workdir, capture_output=True, text=True,
                         check=False)  # fmt: skip
    assert ran.returncode == 0, f"{where}: exited {ran.returncode}\n{ran.stderr}"


@pytest.mark.slow
@pytest.mark.parametrize("path", DOCUMENTS, ids=[p.name for p in DOCUMENTS])
def test_examples_run(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": "__doc_example__"}
    for block in blocks(path):
        where = f"{path.name}:{block.line}"
        if block.language not in EXECUTED or "not-executed" in block.markers:
            continue
        if _is_ci_command(block):
            continue
        if block.markers.get("requires"):
            continue  # run on its own by test_examples_needing_optional_modules
        if block.language == "python":
            exec(compile(block.code, where, "exec"), namespace)
        elif block.language == "bash":
            _run_bash(block, where)
        else:
            _run_native(block, where, tmp_path)


OPTIONAL = [
    (path, block)
    for path in DOCUMENTS
    for block in blocks(path)
    if required_modules(block)
    and block.language in ("python", "bash")
    and "not-executed" not in block.markers
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "block"),
    OPTIONAL,
    ids=[f"{p.name}:{b.line}-{'+'.join(required_modules(b))}" for p, b in OPTIONAL],
)
def test_examples_needing_optional_modules(
    path: Path, block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Self-contained examples for optional libraries (jax, torch): skipped when missing.
    for module in required_modules(block):
        pytest.importorskip(module)
    monkeypatch.chdir(tmp_path)
    where = f"{path.name}:{block.line}"
    if block.language == "bash":
        _run_bash(block, where)
    else:
        exec(compile(block.code, where, "exec"), {"__name__": "__doc__"})


def test_every_code_block_is_executed_or_explains_why() -> None:
    executed = 0
    for path in DOCUMENTS:
        for block in blocks(path):
            where = f"{path.name}:{block.line}"
            assert block.language, f"{where}: fenced blocks must name their language"
            reason = block.markers.get("not-executed")
            if reason is not None:
                assert reason, f"{where}: not-executed needs a reason"
                continue
            if block.language in EXECUTED and not _is_ci_command(block):
                executed += 1
    assert executed >= 10


def test_the_harness_catches_a_failing_example(tmp_path: Path) -> None:
    # A wrong example must fail the test: the harness really executes the blocks.
    doc = tmp_path / "bad.md"
    doc.write_text("```python\nassert 1 + 1 == 3\n```\n", encoding="utf-8")
    (block,) = blocks(doc)
    with pytest.raises(AssertionError):
        exec(compile(block.code, "bad.md", "exec"), {})
    doc.write_text("<!-- exit: 0 -->\n```bash\npespec constants nope\n```\n", encoding="utf-8")
    (block,) = blocks(doc)
    assert block.markers == {"exit": "0"}
    with pytest.raises(AssertionError, match="did not exit 0"):
        _run_bash(block, "bad.md")
