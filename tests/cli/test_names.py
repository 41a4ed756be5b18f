"""Names users type are printed as typed (issue 24, item 8).

rich reads ``:x:`` as an emoji code and ``[bold]`` as markup: ``pespec check pe_x.py:x``
printed ``pe_x.py❌``. Every console pespec makes has emoji codes off, every user string in
pespec's markup is escaped, and the terminal table holds plain text.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from pespec.cli import main

CORRECT = """
from pespec.sinusoidal.reference import encode


def x(positions, d_model, base):
    return encode(positions, d_model=d_model, base=base)


ok = x
"""

FAILING = """
def x(positions, d_model, base):
    raise ValueError("bad :x: [bold]value[/] :ok: [/]")
"""

NAMES = ("pe_x.py:x", "pe_[bold]:ok:.py:ok", "pe_:llama:.py:x", "[red]x[/].py:x")
"""The last is a file ``].py`` in a folder ``[red]x[``: ``[/]`` inside a path."""


def _write(folder: Path, spec: str, text: str) -> None:
    path = folder / spec.rpartition(":")[0]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.mark.slow  # over 25 s with the other core busy (issue 37)
@pytest.mark.parametrize("spec", NAMES)
@pytest.mark.parametrize("flag", ["--quiet", "--verbose"])
def test_backend_names_print_as_typed(
    spec: str,
    flag: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Before: ``pe_x.py❌ CONFORMANT`` (the quiet line) and a table titled with emoji."""
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, spec, CORRECT)
    assert main(["check", spec, "--stages", "contract,golden", flag]) == 0
    out = capsys.readouterr().out
    assert f"{spec}: CONFORMANT" in out
    if flag == "--verbose":  # the table's title
        assert f"pespec check {spec} (level" in out
    for emoji in ("❌", "👌", "🦙"):
        assert emoji not in out


def test_user_messages_print_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A failing backend's own message (with emoji codes and markup) and its name survive the
    lead of a failing run: verdict, first failure, reproduction."""
    monkeypatch.chdir(tmp_path)
    spec = "[bold]:x:[/].py:x"
    _write(tmp_path, spec, FAILING)
    assert main(["check", spec, "--stages", "contract"]) == 1
    out = " ".join(capsys.readouterr().out.split())  # rich wraps long lines
    assert f"{spec}: NON-CONFORMANT" in out
    assert "bad :x: [bold]value[/] :ok: [/]" in out
    assert "❌" not in out and "👌" not in out


def test_rich_table_is_plain_text_on_any_console(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table of ``report.rich_table()`` keeps its names on a user's own console, whose
    emoji codes and markup are on (rich's defaults)."""
    from rich.console import Console

    from pespec.conformance import Suite

    monkeypatch.chdir(tmp_path)
    spec = "[bold]:x:[/].py:x"
    _write(tmp_path, spec, CORRECT)
    report = Suite(spec, stages=("contract",)).run()
    console = Console(file=io.StringIO(), width=200)
    console.print(report.rich_table())
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert f"pespec check {spec} (level" in text
    assert "❌" not in text
