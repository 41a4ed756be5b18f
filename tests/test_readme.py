"""The README's two fresh-machine commands: .ci/run runs exactly the README's test command,
and the main command's ``pespec`` invocation works. (Other README and docs code blocks are
executed by tests/test_docs*.py.)"""

from __future__ import annotations

import re
import shlex
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np
import pytest

from pespec.cli import main
from pespec.reference import sinusoidal_positional_encoding

ROOT = Path(__file__).resolve().parent.parent
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
    lines = CI_RUN.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _runs_pytest(line: str) -> bool:
    words = shlex.split(line, comments=True)
    return words[:1] == ["pytest"] or (len(words) >= 3 and words[1:3] == ["-m", "pytest"])


def test_ci_runs_exactly_the_readme_test_command() -> None:
    steps = _command("test-command")
    assert len(steps) == 4, steps
    make_venv, activate, install, run_tests = steps
    assert shlex.split(make_venv)[:3] == ["python3", "-m", "venv"]
    assert shlex.split(activate)[0] == "."
    lines = _ci_lines()
    # the test invocation itself, verbatim, as a line of .ci/run
    assert run_tests in lines, f"{run_tests!r} is not a line of .ci/run"
    # a fresh virtual environment, activated, with the same editable install and extra
    assert any(shlex.split(line)[:3] == ["python3", "-m", "venv"] for line in lines)
    assert any(line.startswith(". ") and line.endswith("/bin/activate") for line in lines)
    readme_install = shlex.split(install)
    assert readme_install[:3] == ["pip", "install", "-e"]
    extra = readme_install[-1]
    ci_installs = [shlex.split(line) for line in lines if "pip install" in line and "-e" in line]
    assert any(words[-1] == extra for words in ci_installs), (extra, ci_installs)
    # and it is the only pytest run of .ci/run
    pytest_lines = [line for line in lines if _runs_pytest(line)]
    assert pytest_lines == [run_tests]


def test_console_script_is_the_cli_main() -> None:
    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts")}
    assert scripts.get("pespec") == "pespec.cli:main"


def test_main_command_runs(capsys: pytest.CaptureFixture[str]) -> None:
    steps = _command("main-command")
    assert shlex.split(steps[0])[:3] == ["python3", "-m", "venv"]
    assert shlex.split(steps[2])[:3] == ["pip", "install", "-e"]
    words = shlex.split(steps[-1])
    assert words[0] == "pespec", steps[-1]
    assert main(words[1:]) == 0  # the console script calls pespec.cli:main with these args
    out = capsys.readouterr().out
    assert out.strip()
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
