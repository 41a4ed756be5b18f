"""What a new user hit (issue 41): each rough edge reproduced with the user's input, through
the real command in a child process where the terminal matters (stdout and stderr are pipes
there, as in a CI log)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pespec.cli import main

SINUSOIDAL_FLOAT64 = '''
import numpy as np


def encoder(positions, d_model, base):
    """The canonical interleaved encoding in float64, the sign of column 2 flipped (a bug)."""
    p = np.asarray(positions, dtype=np.float64)[:, None]
    k = np.arange(d_model // 2, dtype=np.float64)
    angle = p / base ** (2 * k / d_model)
    out = np.empty((p.shape[0], d_model))
    out[:, 0::2], out[:, 1::2] = np.sin(angle), np.cos(angle)
    out[:, 2] = -out[:, 2]
    return out
'''


def _pespec(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pespec", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_loader_error_has_no_empty_line_before_it(tmp_path: Path) -> None:
    """Item 13: stderr was "\\npespec check: error: ..." (a progress bar on a pipe)."""
    run = _pespec("check", "nosuch.py:f", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.startswith("pespec check: error: backend 'nosuch.py:f'"), run.stderr


def test_piped_output_is_not_hard_wrapped(tmp_path: Path) -> None:
    """Item 3: a reproduction printed to a pipe stays one line (it was cut at the width)."""
    (tmp_path / "enc.py").write_text(SINUSOIDAL_FLOAT64)
    argv = ("check", "enc.py:encoder", "--stages", "contract,golden", "--verbose")
    run = _pespec(*argv, cwd=tmp_path)
    assert run.returncode == 1
    lines = [line for line in run.stdout.splitlines() if line and line[0] not in "┏┃┡│└"]
    assert any(len(line) > 200 for line in lines), run.stdout  # longer than the 160 width
    for line in lines:  # each message and reproduction whole on its line
        assert line.count("(") == line.count(")") and line.count("[") == line.count("]"), line


def test_quiet_lines_carry_the_diagnosis_in_both_families(tmp_path: Path) -> None:
    """Item 2: the rotary --quiet line carried "; diagnosis:", the sinusoidal one did not."""
    (tmp_path / "enc.py").write_text(SINUSOIDAL_FLOAT64)
    run = _pespec("check", "enc.py:encoder", "--quiet", cwd=tmp_path)
    assert run.returncode == 1
    assert len(run.stdout.strip().splitlines()) == 1
    assert "; diagnosis: " in run.stdout


def test_a_partial_run_is_not_judged_with_its_own_exit_code(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Item 10: --stages contract on a correct backend said NON-CONFORMANT, exit 1."""
    assert main(["check", "numpy", "--stages", "contract", "--quiet"]) == 3
    line = capsys.readouterr().out
    assert "numpy: NOT JUDGED" in line and "NON-CONFORMANT" not in line
    assert main(["rope", "check", "numpy", "--config", "Llama-2-7B", "--quiet"]) == 0


def test_help_gives_the_default_timeout_and_the_not_judged_code(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Items 12 and 10: --help said neither the 120 s default nor exit 3."""
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "seconds one backend call may take (default 120)" in text
    from pespec.cli.check import HELP_DEFAULT_TIMEOUT
    from pespec.conformance.engine import DEFAULT_TIMEOUT

    assert HELP_DEFAULT_TIMEOUT == DEFAULT_TIMEOUT  # the help's number is the engine's
    assert "3 NOT JUDGED" in text


def test_the_guide_counts_the_conventions_pespec_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Item 12: the guide said 13 conventions; `pespec conventions` prints 14 lines."""
    import re

    from paths import ROOT

    assert main(["conventions"]) == 0
    printed = len(capsys.readouterr().out.strip().splitlines())
    guide = " ".join((ROOT / "docs" / "guide.md").read_text(encoding="utf-8").split())
    for said in re.findall(r"lists the (\d+) named conventions", guide):
        assert int(said) == printed


def test_the_plot_hint_names_the_checkout_install() -> None:
    """Item 12: the hint said pip install 'pespec[plot]' only; a checkout needs -e '.[plot]'."""
    from pespec.plot import _INSTALL_HINT

    assert "pip install -e '.[plot]'" in _INSTALL_HINT


def test_one_library_is_singular() -> None:
    """Item 12: "from 1 libraries run"."""
    from pespec.clients.table_text import summary

    row = {"verdict": "CONFORMANT", "library": "transformers"}
    table = {"rows": [row], "pespec_version": "x", "spec_version": "y", "date": "z"}
    assert "from 1 library run" in summary(table)


def test_the_multiaxis_family_says_it_has_no_built_ins(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Item 9: "backend must be a built-in name" without listing any (there are none)."""
    code = main(["check", "--family", "multiaxis", "numpy", "--config", "mae-vit-b-16"])
    err = capsys.readouterr().err
    assert code == 2
    assert "has no built-in backends" in err and "must be a built-in name" not in err


def test_a_missing_config_names_the_pytest_option() -> None:
    """Item 9: under pytest, "config must name a multiaxis preset ...; got None"."""
    from pespec.multiaxis.sinusoidal.run import check

    with pytest.raises(ValueError, match="--pe-option config=NAME"):
        check("numpy", config=None)


EXITS = '''
import os


def encoder(positions, d_model, base):
    """A backend that ends the process with status 0."""
    os._exit(0)
'''


def test_os_exit_in_process_is_refused_and_failed(tmp_path: Path) -> None:
    """Item 4: --in-process with a backend calling os._exit(0) gave exit 0 and no output."""
    (tmp_path / "ex.py").write_text(EXITS)
    run = _pespec("check", "ex.py:encoder", "--in-process", "--quiet", cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "NON-CONFORMANT" in run.stdout and "os._exit(0)" in run.stdout


def test_os_exit_under_pytest_in_process_fails_the_session(tmp_path: Path) -> None:
    """Item 4: pytest --pe-in-process exited 0 too."""
    from pluginrun import run_plugin

    (tmp_path / "ex.py").write_text(EXITS)
    run = run_plugin(f"{tmp_path / 'ex.py'}:encoder", "--pe-in-process", "--pe-stages", "contract")
    assert run.returncode == 1, run.stdout[-2000:]
    assert "os._exit(0)" in run.stdout


def test_a_sinusoidal_backend_given_to_rope_check_is_refused_at_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 11: it ran and failed with "The truth value of an array ... is ambiguous"."""
    (tmp_path / "enc.py").write_text(SINUSOIDAL_FLOAT64)
    code = main(["rope", "check", f"{tmp_path / 'enc.py'}:encoder", "--config", "Llama-2-7B"])
    err = capsys.readouterr().err
    assert code == 2
    assert "'d_model' is an argument of the sinusoidal family's" in err
    assert "truth value" not in err


ODD_DTYPES = (
    SINUSOIDAL_FLOAT64
    + """

def complex_out(positions, d_model, base):
    return encoder(positions, d_model, base).astype(np.complex128)


def int_out(positions, d_model, base):
    return np.round(encoder(positions, d_model, base)).astype(np.int64)


def zeros_out(positions, d_model, base):
    return np.zeros((len(positions), d_model), dtype=np.int64)
"""
)


@pytest.mark.parametrize("name", ["complex_out", "int_out", "zeros_out"])
def test_odd_output_dtypes_give_no_library_warning(tmp_path: Path, name: str) -> None:
    """Item 6: a raw NumPy ComplexWarning / RuntimeWarning named pespec/sinusoidal/measure.py."""
    (tmp_path / "odd.py").write_text(ODD_DTYPES)
    run = _pespec("check", f"odd.py:{name}", "--quiet", cwd=tmp_path)
    assert run.returncode == 1
    assert "dtype must be one of" in run.stdout
    assert "Warning" not in run.stderr, run.stderr


def test_a_port_with_theta_hard_coded_is_told_it_ignores_the_configuration() -> None:
    """Item 1: config-independence was skipped with "a cache keyed on too little?" for a
    backend that has no cache and ignores θ."""
    import numpy as np

    from pespec.rope import PRESETS, check

    def llama_port(x: np.ndarray, positions: np.ndarray, rope: object) -> np.ndarray:
        """rotate_half with θ = 10000 written in (Llama-2's), float64."""
        d = x.shape[1]
        inv = 1.0 / 10000.0 ** (np.arange(0, d, 2, dtype=np.float64) / d)
        emb = np.concatenate([np.outer(positions, inv)] * 2, axis=-1)
        rotated = np.concatenate([-x[:, d // 2 :], x[:, : d // 2]], axis=-1)
        return x * np.cos(emb) + rotated * np.sin(emb)

    report = check(llama_port, PRESETS["Llama-2-7B"], stages=("contract", "golden", "property"))
    result = report.get("property:config-independence")
    assert result.status == "skipped"
    assert "ignores the configuration it is given" in result.message
    assert '{"configs": [' in result.message and "keyed on too little" not in result.message


def test_mae_pos_embed_with_its_cls_row_names_leading_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 8: MAE's real pos_embed (197 rows: the cls token's zeros, then 14×14) was refused
    with "has 197 rows but the 196 rows ..."."""
    import numpy as np

    from pespec.multiaxis.sinusoidal.presets import PRESETS

    def one_d(d: int, pos: np.ndarray) -> np.ndarray:  # MAE util/pos_embed.py, float64
        omega = 1.0 / 10000 ** (np.arange(d // 2, dtype=np.float64) / (d / 2.0))
        out = np.outer(pos.astype(np.float64), omega)
        return np.concatenate([np.sin(out), np.cos(out)], axis=1)

    h, w = np.meshgrid(np.arange(14), np.arange(14), indexing="ij")
    grid = np.concatenate([one_d(384, w.ravel()), one_d(384, h.ravel())], axis=1)
    table = np.concatenate([np.zeros((1, 768)), grid])  # get_2d_sincos_pos_embed(cls_token=True)
    assert PRESETS["mae-vit-b-16"].sizes == (14, 14)
    path = str(tmp_path / "pos_embed.npy")
    np.save(path, table)
    argv = ["check", "--family", "multiaxis", "--from-file", path, "--config", "mae-vit-b-16"]
    assert main([*argv, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "1 leading row(s)" in err and "--leading-rows 1" in err
    assert main([*argv, "--leading-rows", "1", "--quiet"]) == 0
    assert "CONFORMANT" in capsys.readouterr().out


MULTIAXIS_BUGS = """
import numpy as np


def one_d(d, pos):
    omega = 1.0 / 10000 ** (np.arange(d // 2, dtype=np.float64) / (d / 2))
    out = np.outer(pos.astype(np.float64), omega)
    return np.concatenate([np.sin(out), np.cos(out)], axis=1)


def mae(positions, config):
    d = config.d_model // 2
    return np.concatenate([one_d(d, positions[:, 1]), one_d(d, positions[:, 0])], axis=1)


def scaled(positions, config):
    return mae(positions, config) * 1.001


def nan_at_3_7(positions, config):
    out = mae(positions, config)
    if out.shape[0] > 3:
        out[3, 7] = np.nan
    return out
"""


def test_multiaxis_messages_are_shaped_for_k_axes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 7: reproductions said encoder(np.array([0]), 384, 10000.0) for a backend taking
    (positions (n, 2), config); a NaN was reported without its row and column."""
    from pespec.multiaxis.sinusoidal.run import check

    (tmp_path / "bugs.py").write_text(MULTIAXIS_BUGS)
    scaled = check(f"{tmp_path / 'bugs.py'}:scaled", config="mae-vit-b-16")
    message = scaled.get("property:0:boundedness").message
    assert "Reproduce (encoder = the backend under test)" not in message
    assert "of backend(positions (n, 2), config)" in message
    # section 1 is axis 0 (h), output columns 384..767: its local column 192 is output 576
    reference = scaled.get("reference:section-1").message
    assert "at axis-0 coordinate 0 (section 1), output column 576" in reference, reference
    nan = check(f"{tmp_path / 'bugs.py'}:nan_at_3_7", config="mae-vit-b-16")
    first = nan.failed[0].message
    assert "nan at row 3 (position (" in first and "column 7" in first


SEGFAULTS = '''
import ctypes


def encoder(positions, d_model, base):
    """Reads address 0: a segmentation fault."""
    return ctypes.string_at(0)
'''


def test_a_segfault_shows_the_backend_frames_not_pespecs(tmp_path: Path) -> None:
    """Item 5: ~25 lines of faulthandler stack, mostly pespec's own frames, also with
    --quiet."""
    (tmp_path / "seg.py").write_text(SEGFAULTS)
    run = _pespec("check", "seg.py:encoder", cwd=tmp_path)
    assert run.returncode == 1 and "SIGSEGV" in run.stdout
    assert "the backend's frames when the check process crashed" in run.stderr
    assert 'seg.py", line 7 in encoder' in run.stderr
    assert "pespec/" not in run.stderr, run.stderr
    quiet = _pespec("check", "seg.py:encoder", "--quiet", cwd=tmp_path)
    assert quiet.returncode == 1 and 'File "' not in quiet.stderr, quiet.stderr
    verbose = _pespec("check", "seg.py:encoder", "--verbose", cwd=tmp_path)
    assert "pespec/conformance/contract.py" in verbose.stderr
