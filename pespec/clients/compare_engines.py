"""``pespec table --compare-engines CONFIG`` (issue 35): every client that runs one model
configuration, side by side, each against the exact definition.

A disagreement between engines is resolved by the definition, not by majority: each row's
verdict and worst error ratio are against the exact rotation of the configuration (the
oracle), and its measured parameters are the diagnosis's (θ, schedule, factors, truncation,
attention factor as it measured them). For llama.cpp the arguments its converter and loader
pass to ``ggml_rope_ext`` are shown too (:mod:`pespec.clients.llamacpp_params`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pespec.clients.model import Client

__all__ = ["compare_rows", "render_compare"]


def compare_rows(clients: Iterable[Client], config: str) -> list[Client]:
    """The clients that run ``config`` (ValueError naming the configurations when none)."""
    kept = [c for c in clients if config in c.configs]
    if not kept:
        known = sorted({name for c in clients for name in c.configs})
        raise ValueError(
            f"--compare-engines must name a configuration some client runs; got {config!r} "
            f"(e.g. {', '.join(known[:8])})"
        )
    return kept


def _engine_arguments(row: dict[str, Any]) -> str:
    if str(row["client"]).startswith("vllm:"):
        return _vllm_arguments(row)
    if not str(row["client"]).startswith("ggml:"):
        return ""
    if str(row["client"]).startswith("ggml:ggml_rope_multi-vision"):  # mode 24 (issue 35)
        from pespec.clients.ggml_vision import vision_args

        try:
            return vision_args(row["config"]).describe()
        except ValueError as exc:
            return f"not transcribed: {exc}"
    if row["client"] == "ggml:ggml_rope_multi":
        from pespec.clients.ggml_mrope import mrope_args

        try:
            return mrope_args(row["config"]).describe()
        except ValueError as exc:
            return f"not transcribed: {exc}"
    from pespec.clients.catalog import get_client
    from pespec.clients.llamacpp_params import rope_args

    try:
        n_ctx = get_client(row["client"]).options.get("n_ctx")
    except ValueError:  # a row of a client this pespec does not declare
        n_ctx = None
    try:  # LongRoPE: the factors of the client's allocated context
        return rope_args(row["config"], None if n_ctx is None else int(str(n_ctx))).describe()
    except ValueError as exc:
        return f"not transcribed: {exc}"


def _vllm_arguments(row: dict[str, Any]) -> str:
    """vLLM's serving argument that changes the rotation: LongRoPE's ``max_model_len`` (and
    so the factors vLLM takes for every position)."""
    from pespec.clients.catalog import get_client
    from pespec.clients.vllm_rope import LONGROPE

    if row.get("config") not in LONGROPE:
        return ""
    try:
        served = get_client(row["client"]).options.get("max_model_len")
    except ValueError:  # a row of a client this pespec does not declare
        return ""
    length = int(str(served)) if served is not None else LONGROPE[row["config"]]
    factors = "long" if length > 4096 else "short"  # Phi-3.5: original_max_position 4096
    return f"max_model_len={length} ({factors} factors at every position)"


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _definition(config: str) -> str:
    """The preset's description and the parameters engines disagree on (issue 35): L0,
    truncate and the attention factor as the oracle computes it."""
    from pespec.rope.oracle import attention_factor
    from pespec.rope.presets import PRESETS, describe_preset

    if config not in PRESETS:
        return config
    rope = PRESETS[config]
    extra = [f"attention factor {attention_factor(rope):.7g}"]
    if rope.original_max_position_embeddings is not None:
        extra.append(f"L0={rope.original_max_position_embeddings}")
    if rope.rope_type == "yarn":
        extra.append(f"truncate={'true' if rope.truncate in (None, True) else 'false'}")
    return f"{describe_preset(config)}; {', '.join(extra)}"


def render_compare(table: dict[str, Any], config: str) -> str:
    """Markdown: the exact definition of ``config``, then one line per row of ``table`` for
    it (transformers first), each against exact."""
    rows = [r for r in table["rows"] if r.get("config") == config]
    rows.sort(key=lambda r: (r.get("library") != "transformers", r["client"], r["dtype"]))
    exact = _definition(config)
    lines = [
        f"### {config}",
        "",
        f"Exact definition: {exact}. Each row is judged against it (the oracle), not against "
        "the other rows.",
        "",
        "| library | client | shape | dtype | verdict | worst ratio | engine arguments | "
        "measured (diagnosis) or why not run |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ratio = r.get("worst_ratio")
        measured = r.get("diagnosis") or r.get("why") or ""
        lines.append(
            "| "
            + " | ".join(
                _cell(v)
                for v in (
                    r.get("library", ""),
                    f"`{r['client']}`",
                    r.get("shape", ""),
                    r["dtype"],
                    r["verdict"],
                    "" if ratio is None else f"{ratio:.3g}",
                    _engine_arguments(r),
                    measured,
                )
            )
            + " |"
        )
    if not rows:
        lines.append("| (no row) | | | | | | | |")
    return "\n".join(lines) + "\n"
