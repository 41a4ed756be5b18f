"""The surveyed transformers model types as clients on their configuration class defaults
(``--config defaults``; pespec.clients.transformers_clients.SURVEY_CLIENTS): the configuration
pespec's reader judges against is the one the module is built from, every client is
CONFORMANT in float32 (the reference is pespec's oracle, the implementation transformers' own
rotary module and apply function), ``pespec check --client transformers:helium --config
defaults`` works for a user, and what is not a client is refused (exit 2) with the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pespec.clients import CLIENTS, client_spec
from pespec.clients.resolve import load_client_config
from pespec.clients.transformers_clients import LEFT_OUT, SURVEY_CLIENTS
from pespec.rope.hf_models import HALVES_MODEL_TYPES, MODEL_ROTARY, UNSUPPORTED_MODEL_TYPES
from pespec.rope.suite import check
from tests.clirun import run_cli

transformers = pytest.importorskip("transformers")
pytest.importorskip("torch")

_ROWS = [(c.name, config) for c in SURVEY_CLIENTS for config in c.configs]


def test_every_surveyed_model_type_is_a_client_or_left_out_with_a_reason() -> None:
    names = {c.options["model_type"] for c in SURVEY_CLIENTS}
    earlier = {n.partition(":")[2] for n in CLIENTS if n.startswith("transformers:")}
    left = {k.partition(":")[0] for k in LEFT_OUT}
    parents = names | earlier
    text_of_listed = {t for t in HALVES_MODEL_TYPES if t.rsplit("_text", 1)[0] in parents}
    surveyed = set(MODEL_ROTARY) | HALVES_MODEL_TYPES
    assert surveyed - names - earlier - left - text_of_listed == set()
    assert not names & set(UNSUPPORTED_MODEL_TYPES)  # refused, never clients
    assert all(reason for reason in LEFT_OUT.values())


@pytest.mark.parametrize("client", SURVEY_CLIENTS, ids=lambda c: c.name)
def test_the_declared_source_file_is_the_modeling_file_transformers_builds(client) -> None:  # type: ignore[no-untyped-def]
    from pespec.clients.hf_rotary import defaults_config, modeling

    module = modeling(defaults_config(client.options["model_type"]))
    path = client.source.split(" ", 1)[1].removeprefix("src/")
    assert Path(module.__file__).as_posix().endswith(path)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "config"), _ROWS)
def test_every_survey_client_is_conformant_in_float32(name: str, config: str) -> None:
    rope = load_client_config(client_spec(name), config).config
    report = check(CLIENTS[name].build("float32", config), rope, diagnose=False)
    assert report.conformant, report.summary()


def test_defaults_read_the_configuration_the_module_is_built_from() -> None:
    # Helium's configuration class: head_dim 128, rope_theta 100000, interleaved pairs
    # (modeling_helium.py repeats each frequency twice; SPEC Annex E.8); values from the class.
    made = transformers.AutoConfig.for_model("helium")
    rope = load_client_config(client_spec("transformers:helium"), "defaults").config
    theta = made.rope_parameters["rope_theta"]
    assert (rope.head_dim, rope.d_r, rope.theta, rope.pairing) == (
        made.head_dim,
        made.head_dim,
        theta,
        "interleaved",
    )
    layered = load_client_config(client_spec("transformers:olmo3"), "defaults:sliding_attention")
    sliding = transformers.AutoConfig.for_model("olmo3").rope_parameters["sliding_attention"]
    assert layered.config.theta == sliding["rope_theta"]


def test_the_reproduction_line_runs_for_a_user(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "helium.json"
    argv = ["check", "--client", "transformers:helium", "--config", "defaults"]
    code, _, err = run_cli([*argv, "--dtype", "float32", "--json", str(out)], capsys)
    assert code == 0, err
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["verdict"] == "conformant"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--client", "transformers:nanochat", "--config", "defaults"], "client must be one of"),
        (["--client", "transformers:deepseek_v4", "--config", "defaults"], "client must be"),
        (
            ["--client", "transformers:helium", "--config", "defaults", "--layer-type", "x"],
            "--layer-type does not apply to --config 'defaults'",
        ),
        (["--client", "transformers:olmo3", "--config", "defaults:nope"], "layer_type must be"),
        (["--client", "transformers:helium", "--config", "Llama-2-7B"], "model_type 'helium'"),
    ],
)
def test_what_is_not_a_client_configuration_exits_2_with_the_reason(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(["check", *argv], capsys)
    assert code == 2, err
    assert message in err and "Traceback" not in err, err


_PUBLISHED = [
    (c.name, config)
    for c in CLIENTS.values()
    if c.adapter == "pespec.clients.hf_rotary:build" and c not in SURVEY_CLIENTS
    for config in c.configs
    # a library finding, a NON-CONFORMANT row of the table (tests/clients/test_coverage.py)
    if (c.name, config) != ("transformers:phimoe", "Phi-3.5-MoE-instruct-per-call")
]


@pytest.mark.parametrize(("name", "config"), _PUBLISHED)
def test_the_published_config_clients_stay_conformant_in_float32(name: str, config: str) -> None:
    # GPT-OSS's cos holds one value per pair (applied to both halves): the rotated width is
    # twice cos's, which a width of cos.shape[-1] got wrong (a shape error on every call).
    rope = load_client_config(client_spec(name), config).config
    report = check(CLIENTS[name].build("float32", config), rope, diagnose=False)
    assert report.conformant, report.summary()
