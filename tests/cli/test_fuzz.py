"""Fuzz the command line with invocations that are wrong by construction (issues #12, #24).

Every case is a usage mistake: a bad flag or value, a missing or unwritable path, or a
.npy/.npz/.csv file whose contents are malformed. Each must exit 2 with a message of at most
ten lines and no traceback, before any suite runs. The cases are built from a fixed seed
(deterministic) and run in-process through :func:`pespec.cli.main`; a few go through a real
subprocess to check the process exit status too.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from clirun import exit_code
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from paths import HF_CONFIGS

from pespec.rope.presets import MAX_HEAD_DIM, load_config
from pespec.sinusoidal.reference.encoding import encode

D = 8
ROWS = 12
MAX_LINES = 10

Case = tuple[str, Callable[[Path], list[str]]]


def _valid(rows: int = ROWS, d: int = D) -> np.ndarray:
    return encode(np.arange(rows, dtype=np.int64), d, base=10000.0)


def _csv_text(values: np.ndarray) -> str:
    return "".join(",".join(repr(v) for v in row) + "\n" for row in values.tolist())


def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=array.dtype.hasobject)
    return buffer.getvalue()


def _npz_bytes(**arrays: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _file_case(name: str, data: bytes, *extra: str, d: int = D) -> Case:
    def build(tmp: Path) -> list[str]:
        path = tmp / name
        path.write_bytes(data)
        return ["check", "--from-file", str(path), "--d-model", str(d), *extra]

    return (f"file {name} {' '.join(extra)}".strip(), build)


def _argv_case(*argv: str) -> Case:
    return (" ".join(argv) or "(no arguments)", lambda tmp: list(argv))


def _path_case(label: str, build: Callable[[Path], list[str]]) -> Case:
    return (label, build)


def _blocked(tmp: Path) -> Path:
    blocker = tmp / "plain-file"
    blocker.write_text("not a folder", encoding="utf-8")
    return blocker


def _folder(tmp: Path, name: str) -> Path:
    """A folder named like a file (``dir.png``): an output path that is a folder."""
    folder = tmp / name
    folder.mkdir()
    return folder


def _good_npy(tmp: Path) -> Path:
    path = tmp / "good.npy"
    np.save(path, _valid())
    return path


# --- bad flags and values ----------------------------------------------------------------------

FLAG_CASES: list[Case] = [
    _argv_case(),
    _argv_case("nonsense"),
    _argv_case("--bogus"),
    _argv_case("check"),
    _argv_case("check", "numpy", "--level"),
    _argv_case("check", "numpy", "--profile", "x"),
    _argv_case("check", "numpy", "--timeout", "abc"),
    _argv_case("check", "numpy", "--timeout", "-1"),
    _argv_case("check", "numpy", "--timeout", "0"),
    _argv_case("check", "numpy", "--examples", "0"),
    _argv_case("check", "numpy", "--examples", "x"),
    _argv_case("check", "numpy", "--examples", "-3"),
    _argv_case("check", "numpy", "--stages", "nope"),
    _argv_case("check", "numpy", "--stages", "golden,nope"),
    _argv_case("check", "numpy", "--level", "float7"),
    _argv_case("check", "numpy", "--level", "float32@"),
    _argv_case("check", "numpy", "--level", "@float32"),
    _argv_case("check", "numpy", "--level", ""),
    _argv_case("check", "numpy", "--d-model", "8"),
    _argv_case("check", "numpy", "--positions", "0:4"),
    _argv_case("check", "numpy", "--unknown-flag"),
    _argv_case("check", "numpy", "extra-positional"),
    _argv_case("check", "numpy-float7"),
    _argv_case("check", "no_such_backend_name"),
    _argv_case("check", "no_such_module_pespec_fuzz:pe"),
    _argv_case("check", "missing_file_pespec_fuzz.py"),
    _argv_case("check", "missing_file_pespec_fuzz.py:pe"),
    _argv_case("check", "numpy:"),
    _argv_case("check", ":pe"),
    _argv_case("encode"),
    _argv_case("encode", "--d-model", "7", "--seq-len", "3"),
    _argv_case("encode", "--d-model", "0", "--seq-len", "3"),
    _argv_case("encode", "--d-model", "-4", "--seq-len", "3"),
    _argv_case("encode", "--d-model", "abc", "--seq-len", "3"),
    _argv_case("encode", "--d-model", "4", "--seq-len", "-1"),
    _argv_case("encode", "--d-model", "4", "--seq-len", "3", "--base", "0.5"),
    _argv_case("encode", "--d-model", "4", "--seq-len", "3", "--base", "1"),
    _argv_case("encode", "--d-model", "4", "--seq-len", "3", "--base", "nan"),
    _argv_case("encode", "--d-model", "4", "--seq-len", "3", "--base", "inf"),
    _argv_case("encode", "--d-model", "4", "--seq-len", "3", "--offset", "-1"),
    _argv_case("encode", "--d-model", "4", "--seq-len", "3", "--convention", "nope"),
    _argv_case("plot"),
    _argv_case("plot", "encoding"),
    _argv_case("plot", "encoding", "--d-model", "7", "--seq-len", "3", "-o", "x.png"),
    _argv_case("plot", "encoding", "--d-model", "8", "--seq-len", "0", "-o", "x.png"),
    _argv_case("plot", "encoding", "--d-model", "8", "--seq-len", "3"),
    _argv_case("plot", "encoding", "--d-model", "8", "--seq-len", "3", "-o", "x.jpg"),
    _argv_case("plot", "encoding", "--d-model", "8", "--seq-len", "3", "-o", "x"),
    _argv_case(
        "plot", "encoding", "--d-model", "8", "--seq-len", "3", "--base", "1", "-o", "x.png"
    ),
    _argv_case("plot", "error"),
    _argv_case("plot", "error", "no_such_backend_name", "-o", "x.png"),
    _argv_case("plot", "error", "numpy", "--d-model", "3", "-o", "x.png"),
    _argv_case("plot", "error", "numpy", "--timeout", "0", "-o", "x.png"),
    _argv_case("plot", "error", "numpy", "--timeout", "-2", "-o", "x.png"),
    _argv_case("plot", "error", "numpy", "-o", "x.gif"),
    _argv_case("plot", "error", "numpy", "--level", "float7", "-o", "x.png"),
    _argv_case("golden"),
    _argv_case("golden", "export"),
    _argv_case("golden", "export", "--format", "xml", "out"),
    _argv_case("golden", "nope"),
    _argv_case("constants", "--bogus"),
]

# --from-file with bad values (a valid file, so only the flag is wrong)
for extra in (
    ["--d-model", "7"],
    ["--d-model", "0"],
    ["--d-model", "-8"],
    ["--d-model", "x"],
    ["--d-model", "16"],
    ["--d-model", "4"],
    ["--base", "1"],
    ["--base", "-5"],
    ["--base", "nan"],
    ["--base", "inf"],
    ["--positions", "abc"],
    ["--positions", "1:x"],
    ["--positions", "5:1"],
    ["--positions", "0:0"],
    ["--positions", ""],
    ["--positions", "0:5"],
    ["--positions", "0:100"],
    ["--positions", "1,2,3"],
    ["--positions", "1,,3"],
    ["--level", "float7"],
    ["--profile", "ci"],
    ["--stages", "golden"],
    ["--examples", "3"],
):

    def _with_flag(tmp: Path, extra: list[str] = extra) -> list[str]:
        base = ["check", "--from-file", str(_good_npy(tmp))]
        return [*base, *(["--d-model", str(D)] if "--d-model" not in extra else []), *extra]

    FLAG_CASES.append((f"from-file {' '.join(extra)}", _with_flag))
FLAG_CASES.append(
    _path_case(  # without --d-model the column count is d_model (issue 24, item 16)
        "from-file --d-model other than the columns",
        lambda t: ["check", "--from-file", str(_good_npy(t)), "--d-model", "2"],
    )
)
FLAG_CASES.append(
    _path_case(
        "backend and --from-file",
        lambda t: ["check", "numpy", "--from-file", str(_good_npy(t)), "--d-model", "8"],
    )
)

# --family (issue 25): an unknown family, a family without its options, another family's
# options, and the rotary family's bad flags spelled through `pespec check --family rope`
FLAG_CASES += [
    _argv_case("check", "--family"),
    _argv_case("check", "--family", "rop", "numpy"),
    _argv_case("check", "--family", "", "numpy"),
    _argv_case("check", "--family", "ROPE", "numpy"),
    _argv_case("check", "--family", "sinusoidal", "--family", "nope", "numpy"),
    _argv_case("check", "--family", "rope"),
    _argv_case("check", "--family", "rope", "numpy-float32"),
    _argv_case("check", "--family", "rope", "--config", "Llama-3.1-8B"),
    _argv_case("check", "--family", "rope", "--config"),
    _argv_case("check", "numpy", "--config", "Llama-3.1-8B"),
    _argv_case("check", "numpy", "--max-position", "7"),
    _argv_case("check", "numpy", "--fractional-positions"),
    _argv_case("check", "--family", "sinusoidal", "numpy", "--layer-type", "x"),
]
for extra in (
    ["--convention", "whisper"],
    ["--stages", "golden"],
    ["--examples", "3"],
    ["--no-shrink"],
    ["--d-model", "8"],
    ["--positions", "0:4"],
    ["--base", "500"],
    ["--config", "Qwen2.5-7B"],
    ["--config", "no-such-preset"],
    ["--config", "missing-config-pespec-fuzz.json"],
    ["--level", "float7"],
    ["--level", "float32/float7/float32"],
    ["--max-position", "0"],
    ["--max-position", "x"],
    ["--seq-len", "x"],
    ["--profile", "x"],
    ["--timeout", "abc"],
    ["--key", "x"],
    ["--unknown-flag"],
    ["extra-positional"],
):
    config = [] if "--config" in extra else ["--config", "Llama-3.1-8B"]
    FLAG_CASES.append(_argv_case("check", "--family", "rope", "numpy-float32", *config, *extra))


# --- missing and unwritable paths --------------------------------------------------------------

PATH_CASES: list[Case] = []
for suffix in (".npy", ".npz", ".csv", ".txt", ""):
    PATH_CASES.append(
        _path_case(
            f"missing from-file{suffix}",
            lambda t, s=suffix: ["check", "--from-file", str(t / f"missing{s}"), "--d-model", "8"],
        )
    )
PATH_CASES.append(
    _path_case(
        "from-file is a folder", lambda t: ["check", "--from-file", str(t), "--d-model", "8"]
    )
)
PATH_CASES.append(
    _path_case(
        "from-file with unknown suffix",
        lambda t: ["check", "--from-file", str(_blocked(t)), "--d-model", "8"],
    )
)
PATH_CASES.append(
    _path_case(
        "positions file missing",
        lambda t: [
            "check",
            "--from-file",
            str(_good_npy(t)),
            "--d-model",
            "8",
            "--positions",
            str(t / "p.npy"),
        ],
    )
)
for option in ("--json", "--markdown"):
    for label, target in (
        ("below a file", lambda t: str(_blocked(t) / "r.out")),
        ("a folder", lambda t: str(t)),
        ("deep below a file", lambda t: str(_blocked(t) / "a" / "b" / "r.out")),
    ):
        PATH_CASES.append(
            _path_case(
                f"check numpy {option} {label}",
                lambda t, o=option, g=target: ["check", "numpy", o, g(t)],
            )
        )
        PATH_CASES.append(
            _path_case(
                f"from-file {option} {label}",
                lambda t, o=option, g=target: [
                    "check",
                    "--from-file",
                    str(_good_npy(t)),
                    "--d-model",
                    "8",
                    o,
                    g(t),
                ],
            )
        )
if Path("/proc/self").is_dir():
    PATH_CASES += [
        _argv_case("check", "numpy", "--json", "/proc/pespec-fuzz.json"),
        _argv_case("check", "numpy", "--markdown", "/proc/pespec-fuzz.md"),
        _argv_case("golden", "export", "--format", "npz", "/proc/pespec-fuzz"),
        _argv_case("plot", "encoding", "--d-model", "8", "--seq-len", "3", "-o", "/proc/x.png"),
    ]
for fmt in ("npz", "csv"):
    PATH_CASES.append(
        _path_case(
            f"golden export {fmt} to a file",
            lambda t, f=fmt: ["golden", "export", "--format", f, str(_blocked(t))],
        )
    )
    PATH_CASES.append(
        _path_case(
            f"golden export {fmt} below a file",
            lambda t, f=fmt: ["golden", "export", "--format", f, str(_blocked(t) / "x")],
        )
    )
for kind in ("encoding", "error"):
    head = (
        ["plot", "encoding", "--d-model", "8", "--seq-len", "3"]
        if kind == "encoding"
        else ["plot", "error", "numpy"]
    )
    PATH_CASES.append(
        _path_case(
            f"plot {kind} below a file", lambda t, h=head: [*h, "-o", str(_blocked(t) / "x.png")]
        )
    )
    PATH_CASES.append(
        _path_case(
            f"plot {kind} to a folder",
            lambda t, h=head: ([*h, "-o", str(_folder(t, "dir.png"))]),
        )
    )

# --- malformed file contents -------------------------------------------------------------------


def _file_cases() -> list[Case]:
    rng = np.random.default_rng(20261122)
    valid = _valid()
    good_npy = _npy_bytes(valid)
    good_npz = _npz_bytes(encoding=valid, positions=np.arange(ROWS))
    cases: list[Case] = []
    for n in range(12):  # random bytes, with and without the .npy magic
        noise = rng.integers(0, 256, size=int(rng.integers(0, 400)), dtype=np.uint8).tobytes()
        cases.append(_file_case(f"noise{n}.npy", noise))
        cases.append(_file_case(f"magic-noise{n}.npy", b"\x93NUMPY" + noise))
        cases.append(_file_case(f"noise{n}.npz", noise))
        cases.append(_file_case(f"noise{n}.csv", b"\xff\xfe" + noise))
    for cut in (0, 6, 8, 10, 30, 60, 127, 128, 200, len(good_npy) - 8, len(good_npy) - 1):
        cases.append(_file_case(f"truncated{cut}.npy", good_npy[:cut]))
    for cut in (10, 40, len(good_npz) // 2, len(good_npz) - 30):
        cases.append(_file_case(f"truncated{cut}.npz", good_npz[:cut]))
    ragged = np.empty(2, dtype=object)
    ragged[0], ragged[1] = np.zeros(3), np.zeros(4)
    cases += [
        _file_case("text.npy", _csv_text(valid).encode()),
        _file_case("object.npy", _npy_bytes(ragged)),
        _file_case("one-d.npy", _npy_bytes(valid[0])),
        _file_case("three-d.npy", _npy_bytes(valid[None])),
        _file_case("scalar.npy", _npy_bytes(np.float64(1.0))),
        _file_case("columns.npy", _npy_bytes(_valid(ROWS, 2 * D))),
        _file_case("transposed.npy", _npy_bytes(_valid(D + 2, D).T.copy())),
        _file_case("bad-header.npy", b"\x93NUMPY\x01\x00\x10\x00{'descr': 1}    \n"),
        _file_case("bad-version.npy", b"\x93NUMPY\x09\x00" + good_npy[8:]),
        _file_case("empty.npz", _zip_bytes({})),
        _file_case("not-npy-member.npz", _zip_bytes({"encoding.npy": b"hello"})),
        _file_case("object.npz", _npz_bytes(encoding=ragged)),
        _file_case("two-arrays.npz", _npz_bytes(a=valid, b=valid)),
        _file_case("key.npz", _npz_bytes(encoding=valid), "--key", "nope"),
        _file_case("positions-short.npz", _npz_bytes(encoding=valid, positions=np.arange(3))),
        _file_case("one-d.npz", _npz_bytes(encoding=valid[0])),
        _file_case("text.npz", b"encoding,0,1\n"),
        _file_case("npy-as.npz", good_npy),
        _file_case("npz-as.csv", good_npz),
        _file_case("npy-as.csv", good_npy),
        _file_case("empty.csv", b""),
        _file_case("blank.csv", b"\n\n  \n"),
        _file_case("header-only.csv", b"a,b,c\n"),
        _file_case("spaces.csv", " ".join(map(repr, valid[0].tolist())).encode() + b"\n"),
        _file_case("tabs.csv", "\t".join(map(repr, valid[0].tolist())).encode() + b"\n"),
        _file_case("semicolons.csv", ";".join(map(repr, valid[0].tolist())).encode() + b"\n"),
        _file_case("nul.csv", b"0.0,1.0\x00,0.0\n"),
        _file_case("columns.csv", _csv_text(_valid(ROWS, 2 * D)).encode()),
        _file_case("positions-only.csv", b"position\n0\n1\n"),
        _file_case(
            "bad-position.csv",
            (
                "position," + ",".join(map(str, range(D))) + "\nx," + ",".join(["0.0"] * D) + "\n"
            ).encode(),
        ),
    ]
    lines = _csv_text(valid).splitlines()
    mutations: list[Callable[[list[str], int], str]] = [
        lambda cells, k: ",".join(cells[:k] + cells[k + 1 :]),  # a value missing: ragged
        lambda cells, k: ",".join([*cells, "0.5"]),  # one value too many: ragged
        lambda cells, k: ",".join([*cells[:k], "abc", *cells[k + 1 :]]),  # not a number
        lambda cells, k: ",".join([*cells[:k], "", *cells[k + 1 :]]),  # an empty cell
        lambda cells, k: ",".join(cells).replace(",", " ", 1),  # a space for a comma
        lambda cells, k: ",".join([*cells[:k], "1.0.0", *cells[k + 1 :]]),
        lambda cells, k: ",".join([*cells[:k], "0x1q-3", *cells[k + 1 :]]),  # a bad hex float
        lambda cells, k: ",".join([*cells[:k], "1,5", *cells[k + 1 :]]),  # decimal comma
    ]
    for n in range(48):
        mutate = mutations[n % len(mutations)]
        row = int(rng.integers(1, len(lines)))  # never line 1: it would read as a header
        cells = lines[row].split(",")
        changed = list(lines)
        changed[row] = mutate(cells, int(rng.integers(0, len(cells))))
        cases.append(_file_case(f"mutated{n}.csv", ("\n".join(changed) + "\n").encode()))
    return cases


FILE_CASES = _file_cases()
CASES = FLAG_CASES + PATH_CASES + FILE_CASES


def test_the_fuzz_covers_at_least_200_invocations() -> None:
    assert len(CASES) >= 200, len(CASES)
    assert len({name for name, _ in CASES}) == len(CASES)  # one id per case


@pytest.mark.parametrize("build", [b for _, b in CASES], ids=[n for n, _ in CASES])
def test_malformed_invocation_exits_2_with_a_short_message(
    build: Callable[[Path], list[str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # relative outputs (x.png) land in the test's folder
    argv = build(tmp_path)
    code = exit_code(argv)
    captured = capsys.readouterr()
    text = (captured.out + captured.err).strip()
    assert code == 2, f"{argv}: exit {code}\n{text[-1500:]}"
    assert text, f"{argv}: no message"
    assert "Traceback" not in text, text
    assert len(text.splitlines()) <= MAX_LINES, text


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--from-file", "missing.npy", "--d-model", "8"],
        ["check", "numpy", "--stages", "nope"],
        ["plot", "encoding", "--d-model", "8", "--seq-len", "3", "-o", "x.jpg"],
    ],
)
def test_process_exit_status_is_2(argv: list[str], tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pespec", *argv],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 2, run.stdout + run.stderr
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) <= MAX_LINES


# --- the rotary command line and the config reader (issue 24) ----------------------------------
#
# Hypothesis (derandomized under the ci profile that tests/conftest.py loads) writes random and
# truncated config.json files, built from the published copies in pespec/rope/published:
# every key set to a JSON value of a wrong type, removed, or given NaN, ±inf, a negative or a
# huge number; unknown rope_types; truncation at a random byte. The reader must answer with a
# RopeConfig or a ValueError/TypeError (one line); the CLI with exit 2 and a one-line message,
# or a verdict (exit 0/1) or the inputs it wrote: never a traceback, never a silent exit 0.


_HF_COPIES = sorted(HF_CONFIGS.glob("*.json"))
_SPECIAL = st.sampled_from(
    [float("nan"), float("inf"), -float("inf"), -1, 0, 1, 2, 3, 0.5, -1e300, 1e300, 10**400]
)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
    | _SPECIAL
)
_KEYS = st.sampled_from(
    [
        "head_dim", "hidden_size", "num_attention_heads", "n_embd", "n_head",
        "qk_rope_head_dim", "rotary_dim", "partial_rotary_factor", "rotary_pct", "rope_theta",
        "rotary_emb_base", "rope_local_base_freq", "rope_scaling", "rope_parameters",
        "rope_interleave", "max_position_embeddings", "original_max_position_embeddings",
        "n_positions", "factor", "beta_fast", "beta_slow", "truncate", "attention_factor",
        "mscale", "mscale_all_dim", "low_freq_factor", "high_freq_factor", "short_factor",
        "long_factor", "layer_types", "text_config", "model_type",
    ]
)  # fmt: skip
_JSON = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
_ROPE_TYPES = st.sampled_from(
    ["default", "linear", "dynamic", "yarn", "llama3", "longrope", "ntk", "su", "mrope", "", "YARN"]
)
_FUZZ = settings(
    max_examples=int(os.environ.get("PESPEC_FUZZ_EXAMPLES", "60")),  # more: a longer hunt
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _blocks(config: dict[str, Any]) -> list[dict[str, Any]]:
    """The dicts a mutation may touch: the top level, text_config, the scaling blocks."""
    found = [config]
    for key in ("text_config", "rope_scaling", "rope_parameters"):
        if isinstance(config.get(key), dict):
            found.append(config[key])
    return found


@st.composite
def _mutated_config(draw: st.DrawFn) -> bytes:
    """A published config.json with 1-4 keys changed, removed or given odd values."""
    path = draw(st.sampled_from(_HF_COPIES))
    config: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    for _ in range(draw(st.integers(1, 4))):
        block = draw(st.sampled_from(_blocks(config)))
        if not block:
            continue
        key = draw(_KEYS | st.sampled_from(sorted(block)))
        action = draw(st.sampled_from(["value", "delete", "rope_type", "type"]))
        if action == "delete":
            block.pop(key, None)
        elif action in ("rope_type", "type"):
            block[action] = draw(_ROPE_TYPES | _JSON)
        else:
            block[key] = draw(_SPECIAL | _JSON)
    return json.dumps(config).encode()


@st.composite
def _truncated_config(draw: st.DrawFn) -> bytes:
    data = draw(st.sampled_from(_HF_COPIES)).read_bytes()
    return data[: draw(st.integers(0, len(data)))]


_CONFIG_BYTES = _mutated_config() | _truncated_config() | st.binary(max_size=64)


def _main_captured(argv: list[str]) -> tuple[int, str, str]:
    """``pespec ARGV`` in this process: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = exit_code(argv)
    return code, out.getvalue(), err.getvalue()


def _assert_usage_error(argv: list[str], code: int, out: str, err: str) -> None:
    text = (out + err).strip()
    assert code == 2, f"{argv}: exit {code}\n{text[-1500:]}"
    assert "Traceback" not in text, text
    lines = err.strip().splitlines()
    assert lines and "error" in lines[-1], text
    if lines[0].startswith("usage:"):  # argparse's own: the usage, then one error line
        assert len(lines) <= MAX_LINES and "error" not in "".join(lines[:-1]), text
    else:  # pespec's: one line
        assert len(lines) == 1, text


@given(data=_CONFIG_BYTES)
@_FUZZ
def test_config_reader_accepts_or_names_the_problem(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.json"
        path.write_bytes(data)
        for seq_len in (None, 4096):
            try:
                reading = load_config(str(path), seq_len=seq_len)
            except (ValueError, TypeError) as exc:
                message = str(exc)
                assert message and "\n" not in message, repr(message)
            else:
                assert 2 <= reading.config.head_dim <= MAX_HEAD_DIM


@given(data=_CONFIG_BYTES, seq_len=st.sampled_from([None, "4096", "0", "-3", "x", "1e9"]))
@_FUZZ
def test_rope_inputs_on_fuzzed_configs(data: bytes, seq_len: str | None) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.json"
        path.write_bytes(data)
        target = Path(folder) / "inputs.npz"
        argv = ["rope", "inputs", "--config", str(path), "-o", str(target)]
        argv += [] if seq_len is None else ["--seq-len", seq_len]
        code, out, err = _main_captured(argv)
        event(f"exit {code}")
        if code == 0:
            assert out.startswith(f"wrote {target}: ") and target.is_file(), out + err
        else:
            _assert_usage_error(argv, code, out, err)


@pytest.mark.slow
@given(data=_CONFIG_BYTES)
@settings(_FUZZ, max_examples=25)
def test_rope_check_on_fuzzed_configs(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.json"
        path.write_bytes(data)
        try:
            head_dim = load_config(str(path), seq_len=None).config.head_dim
        except (ValueError, TypeError):
            head_dim = 0
        if head_dim > 256:
            return  # valid, too large to run the suite on here (the reader test has it)
        argv = ["rope", "check", "numpy", "--config", str(path), "--quiet"]
        code, out, err = _main_captured(argv)
        event(f"exit {code}")
        if code in (0, 1):
            assert "CONFORMANT" in out.splitlines()[0], out + err
        else:
            _assert_usage_error(argv, code, out, err)


_ROPE_WORDS = st.sampled_from(
    [
        "--config", "--layer-type", "--seq-len", "--level", "--profile", "--timeout", "--key",
        "--from-file", "--json", "--markdown", "--quiet", "--verbose", "--names", "-o",
        "Llama-2-7B", "Qwen2.5-7B", "Gemma-3-4B global layers", "full_attention", "numpy",
        "nump", "torch-float7", "4096", "0", "-1", "nan", "x", "float32", "float32/float32",
        "float7/float32/float32", "ci", "dev", "missing.json", "missing.npy", "dir/", "",
        "inputs.npz", "out.json", "report.md",
    ]
)  # fmt: skip


@given(
    command=st.sampled_from(["check", "inputs", "presets"]),
    words=st.lists(_ROPE_WORDS, max_size=6),
)
@_FUZZ
def test_random_rotary_flags(command: str, words: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
        argv = ["rope", command, *words]
        code, out, err = _main_captured(argv)
        event(f"exit {code}")
        text = out + err
        assert "Traceback" not in text, text
        if code == 2:
            _assert_usage_error(argv, code, out, err)
        elif command == "check":
            assert code in (0, 1) and "CONFORMANT" in out, f"{argv}: exit {code}\n{text}"
        elif command == "inputs":
            assert code == 0 and "wrote " in text, f"{argv}: exit {code}\n{text}"
        else:
            assert code == 0 and "Llama-2-7B" in out, f"{argv}: exit {code}\n{text}"
