"""A family added from outside pespec edits no engine file (issue 25, design rule 2).

``tests/thirdparty/toyfamily`` is a third-party family (ALiBi head slopes) that lives
entirely outside ``pespec``: its configuration, an exact reference, a ``FamilyRun`` for the
engine's one ``Suite``, report hooks and a :class:`~pespec.conformance.family.Family`
registered through the entry-point group ``pespec.families`` (its check command is pespec's
own). These tests run it as a user would, on main's engine unchanged (no file of
``pespec/`` was edited for it: that they pass is the proof): ``pespec check --family toy``
in process and supervised (the default: the child process builds the suite through the
registry), its JSON report and renderings, a wrong backend, and a backend that ends the
process. The last test keeps the engine free of a family registry: no engine module names a
family or imports one (the list of modules still being purged can only shrink).
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import pespec
from pespec.conformance.stage import CONTRACT_ITEMS
from pespec.families import ENTRY_POINT_GROUP, FAMILIES, families, get_family
from tests.clirun import run_cli

THIRDPARTY = Path(__file__).resolve().parents[1] / "thirdparty"
ENTRY = "toy = toyfamily.family:FAMILY"


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    """toyfamily importable and registered in ``pespec.families`` (this process only)."""
    monkeypatch.syspath_prepend(str(THIRDPARTY))
    entry = importlib.metadata.EntryPoint("toy", "toyfamily.family:FAMILY", ENTRY_POINT_GROUP)
    real = importlib.metadata.entry_points

    def entry_points(**kw: Any) -> Any:
        return [entry] if kw.get("group") == ENTRY_POINT_GROUP else real(**kw)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)


def _dist_info(root: Path) -> Path:
    """A folder holding ``toyfamily-0.1.dist-info`` (METADATA, entry_points.txt): on
    PYTHONPATH, ``importlib.metadata`` finds the entry point as if toyfamily were installed."""
    info = root / "site" / "toyfamily-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toyfamily\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{ENTRY}\n")
    return info.parent


def _pespec(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m pespec ARGS`` with toyfamily and its dist-info on PYTHONPATH."""
    site = _dist_info(cwd)
    root = Path(pespec.__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(THIRDPARTY), str(site), str(root)])}
    return subprocess.run(
        [sys.executable, "-m", "pespec", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _renders(path: Path) -> dict[str, Any]:
    """The JSON report at ``path``, checked to read back and render (summary, Markdown)."""
    from pespec.supervised.report_load import report_from_dict

    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    report = report_from_dict(data)
    assert report.family == "toy" and report.summary() == data["summary"]
    assert "heads 1, 2, 4, 8, 16, 32, 64" in report.to_markdown()
    assert json.loads(report.to_json())["family"] == "toy"
    return data


# -- the registry and the reference ------------------------------------------------------


@pytest.mark.usefixtures("toy")
def test_the_registry_finds_the_third_party_family() -> None:
    family = get_family("toy")
    assert family.name == "toy" and "toy" in families() and "toy" not in FAMILIES
    from toyfamily.run import ToyRun

    assert family.load("suite") == ToyRun.suite and family.load("check") == ToyRun.check
    assert family.load("load_backend") == ToyRun.load
    assert callable(family.load("command")) and family.report_hook("rebuilt") is not None


def test_the_exact_reference_agrees_with_mpmath() -> None:
    """Independent of the toy's proof: 2^(-8h/H) at 200 bits, the nearest float within half
    an ulp, and :func:`within` deciding a bound of half an ulp and of one ulp as mpmath does."""
    mpmath = pytest.importorskip("mpmath")
    sys.path.insert(0, str(THIRDPARTY))
    try:
        from toyfamily.reference import slope, within
    finally:
        sys.path.remove(str(THIRDPARTY))
    with mpmath.workprec(200):
        for heads in (1, 2, 4, 8, 16, 32, 64, 128):
            for h in range(1, heads + 1):
                y = mpmath.mpf(2) ** (-mpmath.mpf(8 * h) / heads)
                s = slope(h, heads)
                assert abs(mpmath.mpf(s) - y) <= mpmath.mpf(math.ulp(s)) / 2, (h, heads)
                up = math.nextafter(math.nextafter(s, math.inf), math.inf)
                for x in (s, up):
                    for r in (Fraction(1, 2**53), Fraction(1, 2**52)):
                        expected = (
                            abs(mpmath.mpf(x) - y) <= mpmath.mpf(r.numerator) / r.denominator * y
                        )
                        assert within(x, h, heads, r) == expected, (x, h, heads, r)


# -- pespec check --family toy, in this process -----------------------------------------


@pytest.mark.usefixtures("toy")
def test_check_family_toy_in_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report, markdown = tmp_path / "r.json", tmp_path / "r.md"
    argv = ["check", "--family", "toy", "toyfamily.examples:correct", "--in-process"]
    code, out, _ = run_cli([*argv, "--json", str(report), "--markdown", str(markdown)], capsys)
    assert code == 0 and "CONFORMANT at level float64, heads 1, 2, 4" in out
    data = _renders(report)
    assert (data["family"], data["verdict"], data["heads"]) == (
        "toy",
        "conformant",
        [1, 2, 4, 8, 16, 32, 64],
    )
    assert "**Verdict: conformant**" in markdown.read_text(encoding="utf-8")


@pytest.mark.usefixtures("toy")
def test_a_wrong_toy_backend_is_non_conformant_in_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Two ulps above the slopes: at H = 1 the slope 2^-8 is exact, so x - y = 2 ulp(y) > the
    bound 2^-52·y = ulp(y): reference:heads-1 fails."""
    argv = ["check", "--family", "toy", "toyfamily.examples:two_ulps_up", "--in-process"]
    code, out, _ = run_cli(argv, capsys)
    assert code == 1 and "NON-CONFORMANT" in out and "reference:heads-1" in out


# -- pespec check --family toy, supervised (a real entry point, a child process) --------


@pytest.mark.usefixtures("toy")  # this process reads the child's report back too
@pytest.mark.parametrize(
    ("backend", "code", "words"),
    [
        ("correct", 0, "CONFORMANT at level float64"),
        ("from_zero", 1, "reference:heads-1"),
        ("exits", 1, "the backend ended the process with os._exit(0)"),
    ],
)
def test_check_family_toy_supervised(backend: str, code: int, words: str, tmp_path: Path) -> None:
    """The default run: the worker finds toy through the real entry point (dist-info on
    PYTHONPATH) and builds its suite; a backend that calls os._exit(0) gets NON-CONFORMANT."""
    args = ["check", "--family", "toy", f"toyfamily.examples:{backend}", "--json", "r.json"]
    done = _pespec([*args, "--markdown", "r.md"], tmp_path)
    assert done.returncode == code, done.stdout + done.stderr
    assert words in done.stdout, done.stdout
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert data["family"] == "toy" and data["conformant"] is (code == 0)
    if backend == "from_zero":
        assert data["diagnosis"]["slip"] == "heads counted from 0 (h = 0..H-1)"
    if backend == "correct":
        _renders(tmp_path / "r.json")
    assert (tmp_path / "r.md").read_text(encoding="utf-8").strip()


@pytest.mark.slow
def test_check_family_toy_takes_its_own_option(tmp_path: Path) -> None:
    """``--heads`` is the toy family's own option (``Family.options``): ``pespec check``
    adds it when ``--family toy`` names the entry-point family, and it reaches the suite
    (heads 1 and 8 planned, not the default 2, 4, ...). Without ``--family toy`` the option
    is unknown (exit 2)."""
    args = ["check", "--family", "toy", "toyfamily.examples:correct", "--heads", "1,8"]
    done = _pespec([*args, "--json", "r.json"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    ids = [c["id"] for c in json.loads((tmp_path / "r.json").read_text("utf-8"))["checks"]]
    contract = [f"contract:{item}" for item in CONTRACT_ITEMS]
    assert ids == [*contract, "reference:heads-1", "reference:heads-8"], ids
    plain = _pespec(["check", "numpy", "--heads", "1,8"], tmp_path / "again")
    assert plain.returncode == 2 and "--heads" in plain.stderr, plain.stderr


def _plugin(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m pytest --pyargs pespec.conformance ARGS`` with toyfamily's entry point."""
    site = _dist_info(cwd)
    root = Path(pespec.__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(THIRDPARTY), str(site), str(root)])}
    command = [sys.executable, "-m", "pytest", "--pyargs", "pespec.conformance", "-q"]
    return subprocess.run(
        [*command, "-p", "no:cacheprovider", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
@pytest.mark.parametrize("where", [[], ["--pe-in-process"]], ids=["supervised", "in-process"])
@pytest.mark.parametrize(
    ("backend", "code", "words"),
    [("correct", 0, "passed"), ("from_zero", 1, "reference:heads-1")],
)
def test_the_pytest_plugin_runs_a_third_party_family(
    backend: str, code: int, words: str, where: list[str], tmp_path: Path
) -> None:
    """``--pe-family toy`` builds the entry-point family's suite through the registry (the
    worker too), one test per planned check; a wrong backend fails the session naming the
    failed check. ``--pe-option`` passes the family's own keyword (here ``heads``, a JSON
    list)."""
    spec = f"toyfamily.examples:{backend}"
    args = ["--pe-family", "toy", "--pe-backend", spec, "--pe-option", "heads=[1, 8]", *where]
    done = _plugin([*args, "-vv"], tmp_path)  # -q -vv: one line per test
    assert done.returncode == code, done.stdout + done.stderr
    assert words in done.stdout, done.stdout
    # the option reached the suite: heads 1 and 8 planned, not the default 2, 4, ...
    assert "reference:heads-8" in done.stdout and "reference:heads-2" not in done.stdout


def test_pe_option_values_are_json_else_text() -> None:
    from pespec.pytest_plugin import family_options

    assert family_options(["heads=[1, 8]", "name=abc", "n=3", "flag=true"]) == {
        "heads": [1, 8],
        "name": "abc",
        "n": 3,
        "flag": True,
    }
    with pytest.raises(pytest.UsageError, match="KEY=VALUE"):
        family_options(["heads"])


# -- the engine holds no registry of families --------------------------------------------

ENGINE = Path(pespec.__file__).parent / "conformance"

STILL_NAMING_A_FAMILY: dict[str, str] = {
    "__init__.py": "the old path pespec.conformance re-exports the sinusoidal suite, loader "
    "and from-file check for one release (resolved through the registry; imported from "
    "pespec.sinusoidal only for type checkers)",
    "report.py": "Report.family defaults to 'sinusoidal' for reports built by hand by older "
    "code (the engine ranks below the registry, so it cannot read DEFAULT_FAMILY)",
}
"""Engine modules that still name a family, and why: being moved out (issue 25). The list
may only shrink: a module that becomes clean must be taken off it."""


def _family_modules() -> tuple[str, ...]:
    """The family packages, and every module the registry names for a built-in family."""
    named = {
        str(getattr(family, role)).partition(":")[0]
        for family in FAMILIES.values()
        for role in (
            "suite",
            "check",
            "load_backend",
            "check_file",
            "command",
            "fixtures",
            "report",
        )
        if getattr(family, role)
    }
    return tuple(
        sorted(named | {"pespec.sinusoidal", "pespec.rope", "pespec.sinusoidal.reference"})
    )


def _is_alias(tree: ast.Module) -> bool:
    """True for an old-path alias module (``sys.modules[__name__] = the new module``)."""
    return any(
        isinstance(node, ast.Assign)
        and any(ast.unparse(t) == "sys.modules[__name__]" for t in node.targets)
        for node in tree.body
    )


def _naming(path: Path, tree: ast.Module) -> list[str]:
    """Where ``tree`` names a family: a string equal to a family's name, an import of a
    family package or of a module the registry names (other than itself)."""
    me = "pespec." + ".".join(path.relative_to(ENGINE.parent).with_suffix("").parts)
    packages, names = _family_modules(), {*FAMILIES, "toy"}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in names:
            found.append(f"line {node.lineno}: the string {node.value!r}")
        imported = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported = [node.module]
        for module in imported:
            if module != me and any(module == p or module.startswith(p + ".") for p in packages):
                found.append(f"line {node.lineno}: imports {module}")
    return found


def test_no_engine_module_names_a_family() -> None:
    offenders: dict[str, list[str]] = {}
    for path in sorted(ENGINE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if not _is_alias(tree) and (hits := _naming(path, tree)):
            offenders[path.relative_to(ENGINE).as_posix()] = hits
    new = {name: hits for name, hits in offenders.items() if name not in STILL_NAMING_A_FAMILY}
    assert not new, f"an engine module names a family (a registry in the engine): {new}"
    cleaned = sorted(set(STILL_NAMING_A_FAMILY) - set(offenders))
    assert not cleaned, f"clean now: take {cleaned} off STILL_NAMING_A_FAMILY"


def test_the_check_finds_a_family_name_and_a_family_import() -> None:
    tree = ast.parse('import pespec.rope.suite\nfrom pespec.sinusoidal import x\nF = "rope"\n')
    found = _naming(ENGINE / "engine.py", tree)
    assert sorted(f.split(": ")[1] for f in found) == [
        "imports pespec.rope.suite",
        "imports pespec.sinusoidal",
        "the string 'rope'",
    ]
    assert _is_alias(ast.parse("import sys\nsys.modules[__name__] = m\n"))


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["check", "--family", "toy", "x"], "toy"),
        (["check", "x", "--family=toy"], "toy"),
        (["check", "x"], None),
        (["golden", "--family", "toy"], None),
        (["check", "--family"], None),
    ],
)
def test_requested_family_reads_the_check_command_line(
    argv: list[str], expected: str | None
) -> None:
    from pespec.cli.check import requested_family

    assert requested_family(argv) == expected
