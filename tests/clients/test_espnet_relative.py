"""ESPnet's relative positional encodings as clients (issue 43 item 2; SPEC §10.10).

``RelPositionalEncoding`` (``latest``, espnet PR #2816) holds rows P−1 … −(P−1): CONFORMANT.
``LegacyRelPositionalEncoding`` builds its table once for max_len = 5000 rows, positions
4999 … 0 (``reverse=True``), and returns the first P of them: positions 4999 … 5000 − P, not
Transformer-XL's P−1 … 0 (kept as ``legacy`` for old models; PR #2816 calls the previous
implementation buggy). Confirmed here against an independent 200-bit mpmath transcription.
"""

from __future__ import annotations

import mpmath
import pytest
from clirun import run_cli

from pespec.clients.catalog import get_client
from pespec.clients.relative_clients import relative_declaration
from pespec.clients.relative_route import check_client

pytest.importorskip("torch")
pytest.importorskip("espnet.nets.pytorch_backend.transformer.embedding")


def mp_pair(p: int, i: int, d: int) -> tuple[float, float]:
    """(sin, cos) of p·10000^(−2i/d) at 200 bits, rounded to float64."""
    with mpmath.workprec(200):
        angle = p * mpmath.power(10000, mpmath.mpf(-2 * i) / d)
        return float(mpmath.sin(angle)), float(mpmath.cos(angle))


def test_legacy_rows_are_positions_4999_down_not_p_minus_1_down() -> None:
    client = get_client("espnet:LegacyRelPositionalEncoding")
    decl = relative_declaration(client)
    table = client.build("float32", None)()
    d, length = decl.d_model, decl.length
    i = d // 2 - 1  # the lowest frequency: sin moves by ~0.2 over 4488 positions
    for row in (0, length - 1):
        held = mp_pair(4999 - row, i, d)
        declared = mp_pair(length - 1 - row, i, d)
        assert abs(table[row, 2 * i] - held[0]) < 2.0**-12  # float32: far below the gap
        assert abs(table[row, 2 * i] - declared[0]) > 0.1
    report = check_client("client:espnet:LegacyRelPositionalEncoding@float32")
    assert not report.conformant
    assert "4999 … 4488" in str(report.diagnosis_sentence)


def test_latest_is_conformant_with_xscale_apart() -> None:
    client = get_client("espnet:RelPositionalEncoding")
    decl = relative_declaration(client)
    table = client.build("float32", None)()
    for row, p in ((0, decl.length - 1), (decl.length - 1, 0), (2 * decl.length - 2, -511)):
        sin, cos = mp_pair(p, 1, decl.d_model)
        assert abs(table[row, 2] - sin) < 2.0**-12 and abs(table[row, 3] - cos) < 2.0**-12
    report = check_client("client:espnet:RelPositionalEncoding@float32")
    assert report.conformant
    assert report.family_head["convention"]["xscale"] == "sqrt(d)"


def test_the_command_line_runs_the_table_check(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["check", "--client", "espnet:LegacyRelPositionalEncoding", "--in-process", "--quiet"]
    code, out, _ = run_cli(argv, capsys)
    assert code == 1 and "4999 … 4488" in out
