"""Loading pespec costs next to nothing until it is used (issue 11).

pytest imports ``pespec.pytest_plugin`` (entry point ``pytest11``) in every run of an
environment where pespec is installed, including projects that never use it; so the plugin,
``pespec`` and ``pespec.conformance`` import none of the heavy modules below until a ``--pe-*``
option is used, and ``pespec``'s public names are imported on first access (PEP 562).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import pespec

HEAVY = ("numpy", "mpmath", "gmpy2", "hypothesis", "multiprocessing")


def _imported(code: str) -> set[str]:
    """Modules ``python -X importtime -c code`` reports importing."""
    command = [sys.executable, "-X", "importtime", "-c", code]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("import time:")]
    return {line.rsplit("|", 1)[1].strip() for line in lines[1:]}  # [0] is the header


def _heavy(modules: set[str]) -> set[str]:
    return {name for name in modules if name.split(".")[0] in HEAVY}


def test_importing_the_plugin_imports_nothing_heavy() -> None:
    modules = _imported("import pespec.pytest_plugin")
    assert "pespec.pytest_plugin" in modules  # the report covers the plugin
    assert _heavy(modules) == set()


def test_the_check_sees_heavy_imports() -> None:
    # The same measurement on a module that needs NumPy and mpmath finds them.
    assert {"numpy", "mpmath"} <= _heavy(_imported("import pespec.sinusoidal.reference"))


def _loaded_after(code: str) -> set[str]:
    """``sys.modules`` after running ``code`` in a fresh interpreter (the CLI imports its
    sub-commands with importlib, out of -X importtime's view)."""
    script = f"import sys\n{code}\nprint(' '.join(sorted(sys.modules)))\n"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return set(result.stdout.splitlines()[-1].split())


def test_only_pespec_tables_loads_the_spec_blocks() -> None:
    # Building the parser registers every sub-command; the renderers of SPEC's generated
    # blocks (and the constants they render) load when ``pespec constants`` runs, not before.
    parser = _loaded_after("from pespec.cli import build_parser; build_parser()")
    assert "pespec.cli.constants" in parser  # the command is registered
    assert not {m for m in parser if m.startswith(("pespec.specblocks", "pespec.constants"))}
    run = _loaded_after("from pespec.cli import main; main(['constants', 'tiny'])")
    assert {"pespec.specblocks", "pespec.specblocks.tables", "pespec.constants"} <= run


@pytest.mark.slow
def test_a_pytest_run_without_pe_options_imports_nothing_heavy(tmp_path: Path) -> None:
    # An unrelated empty project, with the plugin loaded on its own (other installed plugins,
    # such as Hypothesis's, which imports hypothesis at the end of every run, are not pespec's).
    # pytest imports plugins with importlib, out of -X importtime's view: read sys.modules.
    code = (
        "import sys, pytest\n"
        f"status = pytest.main(['-q', '-p', 'no:cacheprovider', '-p', 'pespec.pytest_plugin',"
        f" '--rootdir', {str(tmp_path)!r}, {str(tmp_path)!r}])\n"
        "assert status == 5, status\n"  # no tests collected
        "print(' '.join(sorted(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    modules = set(result.stdout.splitlines()[-1].split())
    assert "pespec.pytest_plugin" in modules
    assert _heavy(modules) == set()


@pytest.mark.slow
def test_import_pespec_is_lazy_and_public_names_load_on_use() -> None:
    code = (
        "import sys, pespec\n"
        "assert 'numpy' not in sys.modules and 'pespec.sinusoidal.reference' not in sys.modules\n"
        "pe = pespec.sinusoidal_positional_encoding(3, 4)\n"
        "assert pe[0].tolist() == [0.0, 1.0, 0.0, 1.0]\n"  # sin 0 = 0, cos 0 = 1
        "assert 'numpy' in sys.modules\n"
        "from pespec import Convention, encode\n"
        "assert encode is pespec.sinusoidal.reference.encode\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_public_names_resolve_and_dir_lists_them() -> None:
    for name in pespec.__all__:
        assert getattr(pespec, name) is not None
    listed = dir(pespec)
    assert set(pespec.__all__) <= set(listed)
    assert {"sinusoidal", "conformance", "teaching"} <= set(listed)
    assert listed == sorted(listed)
    assert pespec.encode is pespec.sinusoidal.reference.encode


def test_unknown_attribute_raises_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'pespec' has no attribute 'nope'"):
        _ = pespec.nope  # type: ignore[attr-defined]
    assert not hasattr(pespec, "nope")


FAMILIES = (
    "pespec.rope",
    "pespec.multiaxis.rope",
    "pespec.multiaxis.sinusoidal",
    "pespec.multiaxis",
    "pespec.sinusoidal",
)


def _of(modules: set[str], prefixes: tuple[str, ...]) -> set[str]:
    """The ``modules`` under ``prefixes``, but a family's registry entry (issue 38): the lazy
    package (``pespec.rope``) and its ``family.py``, data read for the options of
    ``pespec check``."""
    entries = {p.rstrip(".") for p in prefixes}
    return {
        m
        for m in modules
        if m.startswith(prefixes)
        and m not in entries
        and not (m.endswith(".family") and m.rsplit(".", 1)[0] in entries)
    }


def test_pespec_help_imports_no_family_and_nothing_heavy() -> None:
    # issue 37: `pespec --help` builds every sub-command's parser and nothing else
    code = "from pespec.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    loaded = _loaded_after(code)
    assert "pespec.cli.check" in loaded  # the sub-commands are registered
    assert _heavy(loaded) == set()
    assert _of(loaded, FAMILIES) == set()
    assert (
        _of(
            loaded,
            (
                "pespec.sinusoidal.reference",
                "pespec.sinusoidal.properties",
                "pespec.conformance.report",
            ),
        )
        == set()
    )


def test_pespec_check_imports_only_its_family() -> None:
    # issue 37: the sinusoidal check loads no other family's modules
    code = (
        "from pespec.cli import main\n"
        "main(['check', 'numpy', '--stages', 'contract', '--in-process', '--quiet'])"
    )
    loaded = _loaded_after(code)
    assert "pespec.sinusoidal.run" in loaded
    assert _of(loaded, FAMILIES[:-1]) == set()  # every family but the sinusoidal one


def test_the_supervising_check_process_imports_no_suite_and_no_hypothesis() -> None:
    # issue 37: `pespec check BACKEND` runs the suite in a supervised child; the process that
    # starts it, reads its events and prints the verdict imports neither the suite (0.6 s),
    # nor the references, nor NumPy, nor Hypothesis, whose storage folder reaches the child through
    # $HYPOTHESIS_STORAGE_DIRECTORY (the child inherits the environment)
    code = (
        "import os\n"
        "os.environ.pop('HYPOTHESIS_STORAGE_DIRECTORY', None)\n"
        "from pespec.cli import main\n"
        "code = main(['check', 'numpy', '--stages', 'contract', '--quiet'])\n"
        "assert code == 3, code\n"  # a partial run: not judged
        "assert os.environ['HYPOTHESIS_STORAGE_DIRECTORY'].endswith('hypothesis')\n"
    )
    loaded = _loaded_after(code)
    assert "pespec.supervised.supervisor" in loaded  # it did supervise
    assert _of(loaded, FAMILIES) == {"pespec.sinusoidal.report"}  # and the registry entry
    assert (
        _of(loaded, ("pespec.sinusoidal.reference", "pespec.sinusoidal.properties", "hypothesis"))
        == set()
    )
    assert _heavy(loaded) == set()  # not even NumPy: the plan's PlannedCheck needs none
