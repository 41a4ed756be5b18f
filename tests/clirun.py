"""Running ``pespec`` in-process in a test: the exit code of ``pespec.cli.main``, argparse's
own usage errors (``SystemExit``) included."""

from __future__ import annotations

import pytest

from pespec.cli import main


def exit_code(argv: list[str]) -> int:
    """``main(argv)``'s exit code; argparse's ``SystemExit`` counted as its code (else 2)."""
    try:
        return main(argv)
    except SystemExit as exited:  # argparse's own usage errors
        return int(exited.code) if isinstance(exited.code, int) else 2


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``pespec ARGV`` run in this process."""
    code = exit_code(argv)
    out = capsys.readouterr()
    return code, out.out, out.err
