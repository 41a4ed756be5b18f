"""The README's two fresh-machine commands: .ci/run's first pass is exactly the README's test
command, and the main command's ``pespec`` invocation works. (Other README and docs code blocks are
executed by tests/docs/test_*.py.)"""

from __future__ import annotations

import re
import shlex
from importlib.metadata import entry_points

import numpy as np
import pytest
from paths import ROOT

from pespec.cli import main
from pespec.sinusoidal.reference import sinusoidal_positional_encoding

README = ROOT / "README.md"
CI_RUN = ROOT / ".ci" / "run"


def _command(marker: str) -> list[str]:
    """The ``&&``-separated steps of the bash block that follows ``<!-- README:marker -->``."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(rf"<!-- README:{marker} -->\n```bash\n(.*?)\n```", text, re.DOTALL)
    assert len(blocks) == 1, f"README must have exactly one README:{marker} block"
    command = blocks[0].strip()
    assert "\n" not in command, "the command must be a single line a user can paste"
    return [step.strip() for step in command.split("&&")]


def _ci_lines() -> list[str]:
    """The commands of .ci/run, one per line (backslash continuations joined), no comments."""
    text = CI_RUN.read_text(encoding="utf-8").replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def _runs_pytest(line: str) -> bool:
    """Whether a command line (steps joined by ``&&``) runs pytest."""
    for step in line.split("&&"):
        words = shlex.split(step, comments=True)
        if words[:1] == ["pytest"] or (len(words) >= 3 and words[1:3] == ["-m", "pytest"]):
            return True
    return False


def _readme_command(marker: str) -> str:
    """The single line of the bash block that follows ``<!-- README:marker -->``."""
    return " && ".join(_command(marker))


def test_ci_first_pass_is_the_readme_test_command_verbatim() -> None:
    command = _readme_command("test-command")
    steps = _command("test-command")
    assert len(steps) == 4, steps
    make_venv, activate, install, run_tests = steps
    assert shlex.split(make_venv)[:3] == ["python3", "-m", "venv"]
    assert shlex.split(activate)[0] == "."
    assert shlex.split(install)[:3] == ["pip", "install", "-e"]
    assert _runs_pytest(run_tests)
    text = README.read_text(encoding="utf-8")
    assert f"\n{command}\n" in text  # the steps joined back are the README's line, verbatim
    lines = _ci_lines()
    # the first pytest run of .ci/run is the README's whole command line, character for character
    pytest_lines = [i for i, line in enumerate(lines) if _runs_pytest(line)]
    assert pytest_lines, ".ci/run runs no tests"
    first = pytest_lines[0]
    assert lines[first] == command, f"{lines[first]!r} != README's {command!r}"
    # before it nothing is installed or activated: the venv holds only what the command installs,
    # and it is made in a new folder (a copy of the working tree), so no existing .venv is reused
    before = lines[:first]
    assert not [line for line in before if "pip " in line or "activate" in line], before
    assert any("mktemp -d" in line for line in before) and any(
        line.startswith('cd "$work"') for line in before
    )
    # a second pass with the optional backends, torch's CPU wheel installed before any extra
    assert len(pytest_lines) == 2, pytest_lines
    installs = [line for line in lines[first + 1 :] if "pip install" in line]
    assert "torch==2.13.0" in installs[0], installs
    assert any("integration" in line for line in installs), installs


def test_ci_fails_on_pytest_exit_5() -> None:
    text = CI_RUN.read_text(encoding="utf-8")
    assert text.count('pytest_status "$status"') == 2
    assert re.search(r'if \[ "\$1" -eq 5 \]; then\n[^\n]*\n\s*exit 1', text)


def test_console_script_is_the_cli_main() -> None:
    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts")}
    assert scripts.get("pespec") == "pespec.cli:main"


@pytest.mark.slow
def test_main_command_runs(capsys: pytest.CaptureFixture[str]) -> None:
    steps = _command("main-command")
    assert shlex.split(steps[0])[:3] == ["python3", "-m", "venv"]
    assert shlex.split(steps[2])[:3] == ["pip", "install", "-e"]
    words = shlex.split(steps[-1])
    assert words[0] == "pespec", steps[-1]
    assert main(words[1:]) == 0  # the console script calls pespec.cli:main with these args
    out = capsys.readouterr().out
    assert out.strip()
    if words[1:] == ["check", "numpy"]:  # the README's sentence on the self-check says so
        quoted = "`numpy: CONFORMANT at level float64, ...`"
        assert quoted in README.read_text(encoding="utf-8")
        assert "\nnumpy: CONFORMANT at level float64, " in out, out[-400:]
    if words[1] == "encode":
        # pespec encode --d-model D --seq-len L: one line per position, the library's values
        d_model = int(words[words.index("--d-model") + 1])
        seq_len = int(words[words.index("--seq-len") + 1])
        lines = out.strip().splitlines()
        assert len(lines) == seq_len
        first = [float(v) for v in lines[0].split("[", 1)[1].rstrip("]").split()]
        assert first == [0.0, 1.0] * (d_model // 2)
        last = [float(v) for v in lines[-1].split("[", 1)[1].rstrip(" ]").split()]
        assert np.array_equal(last, sinusoidal_positional_encoding(seq_len, d_model)[-1])
