"""Rotary configurations of real models (SPEC Annex F.1), each citing its published config.json.

Every value below is transcribed from the model's ``config.json`` on the Hugging Face Hub
(through transformers' defaults where the file leaves a field out, as for Gemma 3); the test
suite reads a copy of each file (``pespec/rope/published/``, with its provenance in
``PROVENANCE.md``) with :func:`pespec.rope.from_hf` and requires the result to equal the preset.
Models for which no copy of the published file could be obtained are left out rather than
guessed (Mistral-7B-v0.1, GPT-NeoX-20B: see SPEC Annex F.1).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType

from pespec._suggest import did_you_mean
from pespec.rope.config import RopeConfig
from pespec.rope.hf import ConfigArgumentError, ConfigReading, read_hf

__all__ = [
    "MAX_HEAD_DIM",
    "PRESETS",
    "PRESET_ALIASES",
    "PRESET_SOURCES",
    "PresetSource",
    "describe_preset",
    "load_config",
    "preset_config",
    "read_config",
]


@dataclass(frozen=True)
class PresetSource:
    """Where a preset comes from: the Hub repository, the test copy and how to read it."""

    repo: str
    copy: str
    layer_type: str | None = None
    seq_len: int | None = None
    note: str = ""


_PHI35_SHORT = (
    1.0,
    1.0199999809265137,
    1.0299999713897705,
    1.0299999713897705,
    1.0499999523162842,
    1.0499999523162842,
    1.0499999523162842,
    1.0499999523162842,
    1.0499999523162842,
    1.0699999332427979,
    1.0999999046325684,
    1.1099998950958252,
    1.1599998474121094,
    1.1599998474121094,
    1.1699998378753662,
    1.2899998426437378,
    1.339999794960022,
    1.679999828338623,
    1.7899998426437378,
    1.8199998140335083,
    1.8499997854232788,
    1.8799997568130493,
    1.9099997282028198,
    1.9399996995925903,
    1.9899996519088745,
    2.0199997425079346,
    2.0199997425079346,
    2.0199997425079346,
    2.0199997425079346,
    2.0199997425079346,
    2.0199997425079346,
    2.0299997329711914,
    2.0299997329711914,
    2.0299997329711914,
    2.0299997329711914,
    2.0299997329711914,
    2.0299997329711914,
    2.0299997329711914,
    2.0299997329711914,
    2.0299997329711914,
    2.0799996852874756,
    2.0899996757507324,
    2.189999580383301,
    2.2199995517730713,
    2.5899994373321533,
    2.729999542236328,
    2.749999523162842,
    2.8399994373321533,
)
_PHI35_LONG = (
    1.0800000429153442,
    1.1100000143051147,
    1.1399999856948853,
    1.340000033378601,
    1.5899999141693115,
    1.600000023841858,
    1.6200000047683716,
    2.620000123977661,
    3.2300000190734863,
    3.2300000190734863,
    4.789999961853027,
    7.400000095367432,
    7.700000286102295,
    9.09000015258789,
    12.199999809265137,
    17.670000076293945,
    24.46000099182129,
    28.57000160217285,
    30.420001983642578,
    30.840002059936523,
    32.590003967285156,
    32.93000411987305,
    42.320003509521484,
    44.96000289916992,
    50.340003967285156,
    50.45000457763672,
    57.55000305175781,
    57.93000411987305,
    58.21000289916992,
    60.1400032043457,
    62.61000442504883,
    62.62000274658203,
    62.71000289916992,
    63.1400032043457,
    63.1400032043457,
    63.77000427246094,
    63.93000411987305,
    63.96000289916992,
    63.970001220703125,
    64.02999877929688,
    64.06999969482422,
    64.08000183105469,
    64.12000274658203,
    64.41000366210938,
    64.4800033569336,
    64.51000213623047,
    64.52999877929688,
    64.83999633789062,
)


def _phi35(seq_len: int) -> RopeConfig:
    return RopeConfig(
        head_dim=96,
        theta=10000.0,
        rope_type="longrope",
        original_max_position_embeddings=4096,
        max_position_embeddings=131072,
        seq_len=seq_len,
        short_factor=_PHI35_SHORT,
        long_factor=_PHI35_LONG,
    )


# Each model's context length: config.json's max_position_embeddings (GPT-J: n_positions;
# Gemma 3: Gemma3TextConfig's default, the file has none). It sets the positions the rotary
# suite checks by default (SPEC R8.17) and is not part of the rotation (RopeConfig equality).
_CONTEXT_LENGTHS = {
    "Llama-2-7B": 4096,
    "Llama-3.1-8B": 131072,
    "Qwen2.5-7B-Instruct": 32768,
    "GPT-J-6B": 2048,
    "Gemma-3-4B global layers": 131072,
    "Gemma-3-4B local layers": 131072,
    "Gemma-4-31B global layers": 262144,
    "gpt-oss-20b": 131072,
    "DeepSeek-V3": 163840,
    "Phi-3.5-mini-instruct-seq-len-4096": 131072,
    "Phi-3.5-mini-instruct-seq-len-131072": 131072,
}


def _with_context(configs: dict[str, RopeConfig]) -> dict[str, RopeConfig]:
    return {
        name: replace(config, context_length=_CONTEXT_LENGTHS[name])
        for name, config in configs.items()
    }


PRESET_ALIASES: MappingProxyType[str, str] = MappingProxyType(
    {
        "Phi-3.5-mini-instruct, ℓ = 4096": "Phi-3.5-mini-instruct-seq-len-4096",
        "Phi-3.5-mini-instruct, ℓ = 131072": "Phi-3.5-mini-instruct-seq-len-131072",
    }
)
"""Former preset names (they had commas, awkward in a shell and in a comma-separated list)
and the name each has now; still accepted wherever a preset name is, never listed."""


class _PresetTable(Mapping[str, RopeConfig]):
    """A read-only mapping of preset names that also answers to the former names
    (:data:`PRESET_ALIASES`); iteration and ``len`` cover the current names only."""

    def __init__(self, presets: Mapping[str, RopeConfig]) -> None:
        self._presets = MappingProxyType(dict(presets))

    def __getitem__(self, name: str) -> RopeConfig:
        return self._presets[PRESET_ALIASES.get(name, name)]

    def __iter__(self) -> Iterator[str]:
        return iter(self._presets)

    def __len__(self) -> int:
        return len(self._presets)

    def __repr__(self) -> str:
        return f"PRESETS({list(self._presets)})"


PRESETS: Mapping[str, RopeConfig] = _PresetTable(
    _with_context(
        {
            "Llama-2-7B": RopeConfig(head_dim=128, theta=10000.0),
            "Llama-3.1-8B": RopeConfig(
                head_dim=128,
                theta=500000.0,
                rope_type="llama3",
                factor=8.0,
                low_freq_factor=1.0,
                high_freq_factor=4.0,
                original_max_position_embeddings=8192,
                max_position_embeddings=131072,
            ),
            "Qwen2.5-7B-Instruct": RopeConfig(head_dim=128, theta=1000000.0),
            "GPT-J-6B": RopeConfig(
                head_dim=256, rotary_dim=64, theta=10000.0, pairing="interleaved"
            ),
            "Gemma-3-4B global layers": RopeConfig(
                head_dim=256, theta=1000000.0, rope_type="linear", factor=8.0
            ),
            "Gemma-3-4B local layers": RopeConfig(head_dim=256, theta=10000.0),
            "Gemma-4-31B global layers": RopeConfig(
                head_dim=512, theta=1000000.0, rope_type="proportional", rotated_pairs=64
            ),
            "gpt-oss-20b": RopeConfig(
                head_dim=64,
                theta=150000.0,
                rope_type="yarn",
                factor=32.0,
                original_max_position_embeddings=4096,
                max_position_embeddings=131072,
                truncate=False,
                beta_fast=32.0,
                beta_slow=1.0,
            ),
            "DeepSeek-V3": RopeConfig(
                head_dim=64,
                theta=10000.0,
                rope_type="yarn",
                pairing="interleaved_in_halves_out",
                factor=40.0,
                original_max_position_embeddings=4096,
                max_position_embeddings=163840,
                mscale=1.0,
                mscale_all_dim=1.0,
                truncate=True,
                beta_fast=32.0,
                beta_slow=1.0,
            ),
            "Phi-3.5-mini-instruct-seq-len-4096": _phi35(4096),
            "Phi-3.5-mini-instruct-seq-len-131072": _phi35(131072),
        }
    )
)
"""Rotary configurations of real models, by name (read-only; former names still answer)."""

PRESET_SOURCES: MappingProxyType[str, PresetSource] = MappingProxyType(
    {
        "Llama-2-7B": PresetSource(
            "meta-llama/Llama-2-7b-hf",
            "llama-2-7b-hf.json",
            note="no rope_theta in the file: LlamaConfig's 10000",
        ),
        "Llama-3.1-8B": PresetSource("meta-llama/Llama-3.1-8B", "llama-3.1-8b.json"),
        "Qwen2.5-7B-Instruct": PresetSource("Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b-instruct.json"),
        "GPT-J-6B": PresetSource(
            "EleutherAI/gpt-j-6b",
            "gpt-j-6b.json",
            note="rotary_dim 64 of 4096/16 = 256; GPT-J's fixed base 10000",
        ),
        "Gemma-3-4B global layers": PresetSource(
            "google/gemma-3-4b-it",
            "gemma-3-4b-it.json",
            layer_type="full_attention",
            note="head_dim and θ from Gemma3TextConfig's defaults",
        ),
        "Gemma-3-4B local layers": PresetSource(
            "google/gemma-3-4b-it",
            "gemma-3-4b-it.json",
            layer_type="sliding_attention",
            note="rope_local_base_freq (Gemma3TextConfig default 10000), no scaling",
        ),
        "Gemma-4-31B global layers": PresetSource(
            "google/gemma-4-31B-it",
            "gemma-4-31b-it.json",
            layer_type="full_attention",
            note="head_dim = global_head_dim 512; k = int(0.25·512 // 2) = 64 pairs rotated",
        ),
        "gpt-oss-20b": PresetSource("openai/gpt-oss-20b", "gpt-oss-20b.json"),
        "DeepSeek-V3": PresetSource(
            "deepseek-ai/DeepSeek-V3",
            "deepseek-v3.json",
            note="d_r = qk_rope_head_dim; rope_interleave defaults to true; A = 1; the softmax "
            "scale's mscale² is out of scope",
        ),
        "Phi-3.5-mini-instruct-seq-len-4096": PresetSource(
            "microsoft/Phi-3.5-mini-instruct",
            "phi-3.5-mini-instruct.json",
            seq_len=4096,
            note="short_factor (ℓ ≤ L0)",
        ),
        "Phi-3.5-mini-instruct-seq-len-131072": PresetSource(
            "microsoft/Phi-3.5-mini-instruct",
            "phi-3.5-mini-instruct.json",
            seq_len=131072,
            note="long_factor (ℓ > L0)",
        ),
    }
)
"""For each preset: the Hub repository, the file name of its copy under pespec/rope/published."""


MAX_HEAD_DIM = 4096
"""The largest head_dim ``--config`` accepts from a file (real models use 64 to 512): the
suite's arrays are (n, head_dim) float64 with n in the thousands."""


def describe_preset(name: str) -> str:
    """One line on a preset: schedule, θ, head_dim / d_r, pairing, ℓ, and its Hub source."""
    config, source = PRESETS[name], PRESET_SOURCES[PRESET_ALIASES.get(name, name)]
    text = f"{config.rope_type} θ={config.theta:g} head_dim={config.head_dim}"
    if config.d_r != config.head_dim:
        text += f" d_r={config.d_r}"
    if config.pairing != "halves":
        text += f" {config.pairing}"
    if config.factor is not None:
        text += f" factor={config.factor:g}"
    if config.seq_len is not None:
        text += f" ℓ={config.seq_len}"
    layer = f", {source.layer_type}" if source.layer_type else ""
    return f"{text} ({source.repo}{layer})"


def preset_config(name: str) -> RopeConfig:
    """The preset called ``name`` (a current or former name); ValueError with close matches."""
    if name in PRESETS:
        return PRESETS[name]
    raise ValueError(
        f"no preset {name!r}{did_you_mean(name, PRESETS)} (pespec rope presets lists them)"
    )


PUBLISHED = Path(__file__).parent / "published"
"""The copies of published config.json files shipped with pespec (PROVENANCE.md there)."""


def published_config(name: str) -> Path:
    """The shipped copy of a published config.json called ``name`` (without ``.json``)."""
    return PUBLISHED / f"{name}.json"


def _looks_like_path(text: str) -> bool:
    return (
        text.endswith(".json")
        or "/" in text
        or os.sep in text
        or bool(os.altsep and os.altsep in text)
    )


def _variant(text: str, layer_type: str | None, seq_len: int | str | None) -> ConfigReading | None:
    """The reading of a named variant or declared configuration (:mod:`pespec.rope.variants`,
    issue 36), or None when ``text`` names none (a file of that name wins)."""
    from pespec.rope.variants import DECLARED, VARIANTS, read_variant

    if (text not in VARIANTS and text not in DECLARED) or Path(text).is_file():
        return None
    for flag, given in (("--seq-len", seq_len), ("--layer-type", layer_type)):
        if given is not None:
            raise ValueError(f"{flag} does not apply: {text!r} fixes it (got {flag} {given})")
    reading: ConfigReading = read_variant(text)
    return reading


def load_config(
    text: str, layer_type: str | None = None, seq_len: int | str | None = None
) -> ConfigReading:
    """``--config``: a preset name or a JSON file (RopeConfig dict or config.json), with the
    reader's notes; messages name the command-line flags (``--seq-len``, ``--layer-type``)."""
    if text in PRESETS:
        for flag, given in (("--seq-len", seq_len), ("--layer-type", layer_type)):
            if given is not None:
                raise ValueError(
                    f"{flag} applies to a config.json; preset {text!r} fixes it "
                    f"(got {flag} {given})"
                )
        return ConfigReading(PRESETS[text])
    variant = _variant(text, layer_type, seq_len)
    if variant is not None:
        return variant
    path = Path(text)
    if not path.is_file() and not _looks_like_path(text) and published_config(text).is_file():
        path = published_config(text)  # a published copy shipped with pespec, by its name
    if not path.is_file():
        if _looks_like_path(text):
            what = "a folder, not a file" if path.is_dir() else "no such file"
            raise ValueError(f"--config: {what}: {text}")
        raise ValueError(
            f"--config must be a preset name, a published config's name or a JSON file; no preset "
            f"{text!r}{did_you_mean(text, PRESETS)} (pespec rope presets "
            "lists them)"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(f"--config {text!r} is not readable JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"--config {text!r} must hold a JSON object; got {type(data).__name__}")
    try:
        reading = _from_json(data, layer_type, seq_len)
    except ConfigArgumentError as exc:
        raise ValueError(exc.for_flag(f"--{exc.argument.replace('_', '-')}")) from None
    if reading.config.head_dim > MAX_HEAD_DIM:
        raise ValueError(
            f"--config {text!r}: head_dim must be at most {MAX_HEAD_DIM} for the "
            f"command line's suite (it holds (n, head_dim) float64 arrays of "
            f"thousands of rows; real models use 64 to 512); got "
            f"{reading.config.head_dim}"
        )
    return reading


def _from_json(
    data: dict[str, object], layer_type: str | None, seq_len: int | str | None
) -> ConfigReading:
    """A RopeConfig dict (``to_dict``; ``--seq-len`` fills a missing ℓ) or a config.json."""
    known = set(RopeConfig.__dataclass_fields__)
    if not ("head_dim" in data and set(data) <= known):
        return read_hf(data, layer_type=layer_type, seq_len=seq_len)
    if layer_type is not None:
        raise ValueError(
            f"--layer-type applies to a transformers config.json, not to a "
            f"RopeConfig dict; got --layer-type {layer_type}"
        )
    if seq_len == "per-call":  # ℓ per call (SPEC Annex G.1)
        data = {**data, "seq_len_rule": seq_len}
    elif seq_len is not None:
        if data.get("seq_len") not in (None, seq_len):
            raise ValueError(
                f"--seq-len {seq_len} differs from the file's seq_len {data['seq_len']!r}"
            )
        data = {**data, "seq_len": seq_len}
    elif (
        data.get("rope_type") in ("dynamic", "longrope")
        and data.get("seq_len") is None
        and not (data.get("seq_len_rule"))
    ):
        raise ValueError(
            f"--seq-len is required for rope_type {data['rope_type']!r}: the "
            "sequence length ℓ, an int >= 1 (SPEC §8.4); the file has no seq_len"
        )
    return ConfigReading(RopeConfig.from_dict(data))


def read_config(
    text: str, layer_type: str | None = None, seq_len: int | str | None = None
) -> RopeConfig:
    """A RopeConfig from a preset name or a JSON file (RopeConfig dict or config.json)."""
    return load_config(text, layer_type, seq_len).config
