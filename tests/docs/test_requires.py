"""Docs examples that need an optional package say so (issue 11).

The README's test command installs pespec with its ``[test]`` extra and nothing else, and runs
every executed example of README.md and docs/*.md (tests/docs/test_examples.py). An example
that imports anything outside the standard library, pespec, ``[project.dependencies]`` and the
``[test]`` extra, or that runs a built-in torch/JAX backend (``pespec check torch-float32``),
must carry ``<!-- requires: MODULE -->`` so it runs only where MODULE is importable. The rule
is proved on synthetic Markdown below, then applied to the real documents.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import re
import shlex
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest
from paths import ROOT

from .test_examples import DOCUMENTS, EXECUTED, Block, blocks, required_modules

BUILTIN_LIBRARY_BACKEND = re.compile(r"^(torch|jax)(-\w+)?(:\S*)?$")
"""A built-in torch/JAX backend spec (``torch``, ``torch-float16:cuda``, ``jax-bfloat16``)."""

IMPORT_NAMES = {"pyyaml": "yaml", "pillow": "PIL", "scikit-learn": "sklearn"}
"""Distributions whose import name is not their normalized name (none of ours today)."""


def _requirement_names() -> list[str]:
    """Distribution names of ``[project.dependencies]`` and the ``[test]`` extra."""
    try:
        import tomllib
    except ImportError:  # Python 3.10: the installed metadata says the same
        requires = importlib.metadata.requires("pespec") or []
        lines = [r for r in requires if ";" not in r or re.search(r"extra\s*==\s*.test.", r)]
    else:
        project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        lines = [*project["dependencies"], *project["optional-dependencies"]["test"]]
    names = [re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", line) for line in lines]
    return [name.group(0) for name in names if name]


def import_names(distributions: list[str]) -> set[str]:
    """Top-level import names of ``distributions``: the normalized name (``ml-dtypes`` ->
    ``ml_dtypes``), and, for installed ones, every top-level module they provide."""
    normalized = {re.sub(r"[-_.]+", "-", name).lower() for name in distributions}
    names = {IMPORT_NAMES.get(name, name.replace("-", "_")) for name in normalized}
    for module, providers in importlib.metadata.packages_distributions().items():
        if any(re.sub(r"[-_.]+", "-", p).lower() in normalized for p in providers):
            names.add(module)
    return names


@functools.cache
def allowed_modules() -> frozenset[str]:
    """What the README's test command makes importable: stdlib, pespec, its deps, ``[test]``."""
    return frozenset({*sys.stdlib_module_names, "pespec", *import_names(_requirement_names())})


def needed_modules(block: Block) -> set[str]:
    """Top-level modules a block imports (Python) or whose built-in backend it runs (a bash
    ``pespec`` command line, or a Python call with the backend's name as an argument)."""
    if block.language == "python":
        return _python_needs(block.code)
    if block.language == "bash":
        return _bash_needs(block.code)
    return set()


def _python_needs(code: str) -> set[str]:
    """Modules imported by ``code``, and those of built-in backends named in its calls."""
    needed: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            needed.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            needed.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call):  # check("torch-float16"), load_backend("jax")
            arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
            needed |= _backend_modules(
                arg.value
                for arg in arguments
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
            )
    return needed


def _bash_needs(code: str) -> set[str]:
    """Modules of the built-in backends that the ``pespec`` command lines of ``code`` run."""
    needed: set[str] = set()
    for line in code.splitlines():
        words = shlex.split(line, comments=True)
        if words[:1] == ["pespec"]:
            needed |= _backend_modules(words[1:])
    return needed


def _backend_modules(words: Iterable[str]) -> set[str]:
    """torch/jax for each word naming a built-in library backend (BUILTIN_LIBRARY_BACKEND)."""
    matches = (BUILTIN_LIBRARY_BACKEND.match(word) for word in words)
    return {match.group(1) for match in matches if match}


def unmarked(path: Path, allowed: frozenset[str]) -> list[str]:
    """``file:line: needs X`` for every executed block needing a module its markers omit."""
    problems = []
    for block in blocks(path):
        if block.language not in EXECUTED or "not-executed" in block.markers:
            continue
        if any(name.startswith("README:") for name in block.markers):
            continue  # the quick-start commands run in CI, not here
        missing = needed_modules(block) - allowed - set(required_modules(block))
        if missing:
            problems.append(
                f"{path.name}:{block.line}: needs {', '.join(sorted(missing))}: add "
                f"<!-- requires: {', '.join(sorted(missing))} --> before the block"
            )
    return problems


SYNTHETIC = """\
```python
import json
import numpy as np
import ml_dtypes
import pytest_benchmark
from pespec.conformance import check
```

```python
import torch
```

<!-- requires: torch -->
```python
import torch.nn
```

<!-- requires: torch -->
```python
from transformers import AutoModel
import torch
```

<!-- requires: torch, transformers -->
```python
from transformers import AutoModel
import torch
```

```python
from pespec.conformance import check
check("numpy-float32")
report = check(backend="torch-bfloat16")
```

<!-- not-executed: illustration -->
```python
import jax
```

```bash
pespec check numpy-float32 --quiet
pespec check my_pe.py:torch_backend
pespec check torch-float32 --quiet
```

```bash
pespec plot error jax-bfloat16 -o err.png
```

<!-- requires: torch -->
```bash
pespec check torch-float16:cuda
```
"""


def test_the_rule_on_synthetic_markdown(tmp_path: Path) -> None:
    doc = tmp_path / "synthetic.md"
    doc.write_text(SYNTHETIC, encoding="utf-8")
    problems = unmarked(doc, allowed_modules())
    found = [(p.split(":")[1], p.split(": needs ")[1].split(":")[0]) for p in problems]
    # line numbers are those of the opening fences above
    assert found == [
        ("9", "torch"),
        ("19", "transformers"),
        ("30", "torch"),
        ("41", "torch"),
        ("47", "jax"),
    ]


def test_distribution_names_map_to_import_names() -> None:
    names = import_names(["ml-dtypes", "pytest-benchmark", "Pytest_Timeout", "numpy"])
    assert {"ml_dtypes", "pytest_benchmark", "pytest_timeout", "numpy"} <= names
    allowed = allowed_modules()
    assert {"ml_dtypes", "pytest_benchmark", "mpmath", "gmpy2", "matplotlib", "pespec"} <= allowed
    assert {"json", "math", "pathlib"} <= allowed  # sys.stdlib_module_names
    assert not {"torch", "jax", "transformers", "diffusers"} & allowed


@pytest.mark.parametrize("path", DOCUMENTS, ids=[p.name for p in DOCUMENTS])
def test_docs_examples_needing_optional_packages_are_marked(path: Path) -> None:
    assert unmarked(path, allowed_modules()) == []
