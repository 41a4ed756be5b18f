"""The conformance table (issue 29): every client × configuration × dtype, one row each.

Each row runs ``pespec check --client NAME --dtype D [--config C] --json F --in-process`` in
its own process (a backend that crashes, hangs or ends its process costs its row only; the
process is killed after ``timeout`` seconds), so the row's reproduction line is exactly what
a user runs. Where the platform forks, the process is a fork of one zygote that has torch,
transformers and diffusers imported already (:mod:`pespec.clients.zygote`): the same command
line, seconds of imports fewer per row. A row that cannot run says why: a library not
installed, a GPU needed, the configuration refused. :func:`build_table` returns the JSON
document; :mod:`table_text` renders it and compares two of them.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pespec._version import SPEC_VERSION, __version__
from pespec.clients.catalog import all_clients, get_client
from pespec.clients.engines import EngineZygotes, engine_python, missing_env
from pespec.clients.model import CONFIG_FAMILIES, Client
from pespec.clients.zygote import Zygote
from pespec.clients.zygote import available as zygote_available

__all__ = ["TABLE_SCHEMA", "build_table", "planned_rows", "reproduction", "select_clients"]

TABLE_SCHEMA = "pespec-conformance-table/1"
ROW_TIMEOUT = 600.0
"""Seconds one row's check may take before its process is killed (the row says it hung)."""


def select_clients(
    *,
    family: str | None = None,
    library: str | None = None,
    client: str | None = None,
    every_tier: bool = False,
    device: str | None = None,
) -> list[Client]:
    """The clients the filters keep, in catalog order (ValueError when none is left): the
    ``core`` tier only unless ``every_tier`` or a client is named."""
    kept = [
        c
        for c in all_clients().values()
        if (family is None or c.family == family)
        and (library is None or c.library == library)
        and (client is None or c.name == client)
        and (device is None or c.device == device)
        and (every_tier or client is not None or c.tier == "core")
    ]
    if not kept:
        raise ValueError(
            f"no client has family={family!r}, library={library!r}, client={client!r}"
            f"{'' if device is None else f', device={device!r}'} "
            "(pespec table --list prints them)"
        )
    return kept


def planned_rows(clients: Iterable[Client]) -> list[dict[str, Any]]:
    """One row stub per client × configuration × dtype."""
    return [
        {
            "client": c.name,
            "family": c.family,
            "library": c.library,
            "entry": c.entry,
            "source": c.source,
            "config": config,
            "dtype": dtype,
            "device": c.device,
            **({"shape": c.options["shape"]} if "shape" in c.options else {}),
        }
        for c in clients
        for config in c.configs
        for dtype in c.dtypes
    ]


def reproduction(row: dict[str, Any]) -> str:
    """The command line that checks ``row`` again (what a user types)."""
    line = f"pespec check --client {row['client']} --dtype {row['dtype']}"
    if row["family"] in CONFIG_FAMILIES:
        line += f" --config {json.dumps(row['config']) if ' ' in row['config'] else row['config']}"
    try:
        env = get_client(row["client"]).options.get("engine_env")
    except ValueError:  # a row of a client this pespec does not declare
        env = None
    if env:  # issue 35: the engine's own environment
        line = f"tools/engine-env {env} DIR && DIR/{env}/bin/{line}"
    return " ".join([line, *_call_timeout(row)])


def _command(row: dict[str, Any], out: Path) -> list[str]:
    command = [sys.executable, "-m", "pespec", "check", "--client", row["client"]]
    command += ["--dtype", row["dtype"], "--json", str(out), "--quiet", "--in-process"]
    if row["family"] in CONFIG_FAMILIES:
        command += ["--config", row["config"]]
    return command + _call_timeout(row)


def _call_timeout(row: dict[str, Any]) -> list[str]:
    """``--timeout S`` for a client declaring ``options["call_timeout"]`` (issue 35: a Triton
    kernel under the interpreter runs each program in Python, minutes per call), and
    ``--max-position P`` for one declaring ``options["max_positions"][config]`` (issue 35:
    vLLM serving LongRoPE at ``max_model_len`` ℓ never sees a position past ℓ - 1)."""
    try:
        options = get_client(row["client"]).options
    except ValueError:
        return []
    seconds = options.get("call_timeout")
    extra = [] if seconds is None else ["--timeout", f"{float(seconds):g}"]
    last = options.get("max_positions", {}).get(row.get("config"))
    return extra if last is None else [*extra, "--max-position", str(int(last))]


def _not_run(client: Client) -> str | None:
    """Why ``client`` cannot run here, or None (a GPU client on a machine without one says
    that first: it is why the row cannot run, whatever is installed; an engine client's
    distributions are its environment's, checked by its own process)."""
    env = client.options.get("engine_env")
    if env and client.device == "cpu":
        return missing_env(env) if engine_python(env) is None else None
    if client.device == "cuda":
        try:
            import torch

            if not torch.cuda.is_available():
                return "needs a GPU (device cuda): none here"
        except ImportError:
            return "needs a GPU (device cuda) and torch"
    for dist in client.distributions:
        try:
            importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return f"not installed: {dist}"
    return None


def _worst_ratio(report: dict[str, Any]) -> float | None:
    ratios = [c["ratio"] for c in report.get("checks", []) if c.get("ratio") is not None]
    return max(ratios) if ratios else None


def _read_report(row: dict[str, Any], path: Path) -> None:
    report = json.loads(path.read_text(encoding="utf-8"))
    level = report.get("level")
    row["verdict"] = "CONFORMANT" if report.get("conformant") else "NON-CONFORMANT"
    row["level"] = level.get("name") if isinstance(level, dict) else level
    row["worst_ratio"] = _worst_ratio(report)
    row["diagnosis"] = report.get("diagnosis_sentence")
    row["summary"] = report.get("summary")
    row["versions"] = report.get("execution", {}).get("libraries", {})
    row["checks"] = [  # each check's worst element, for the table page's error picture
        {
            "id": c.get("id"),
            "status": c.get("status"),
            "ratio": c.get("ratio"),
            "position": c.get("worst_position"),
        }
        for c in report.get("checks", [])
        if c.get("ratio") is not None
    ]
    measured = (report.get("diagnosis") or {}).get("measured_vs_declared")
    if measured:
        row["measured_vs_declared"] = measured


def run_row(
    row: dict[str, Any],
    timeout: float = ROW_TIMEOUT,
    zygote: Zygote | None = None,
    engines: EngineZygotes | None = None,
) -> dict[str, Any]:
    """``row`` with its verdict (or why it did not run), duration and reproduction; run in a
    fork of ``zygote`` (an engine's row: of its environment's zygote in ``engines``) when
    given, else in a new interpreter."""
    client = get_client(row["client"])
    out = {**row, "reproduction": reproduction(row), "verdict": "not run"}
    why = _not_run(client)
    if why is not None:
        return {**out, "why": why, "duration_s": 0.0}
    with tempfile.TemporaryDirectory(prefix="pespec-table-") as folder:
        path = Path(folder) / "report.json"
        started = time.perf_counter()
        command = _command(row, path)
        env = client.options.get("engine_env")
        if env is not None:  # issue 35: in the engine's interpreter (engines.py)
            command[0] = str(engine_python(str(env)))
            zygote = None if engines is None else engines.get(str(env))
        try:
            if zygote is None:
                raise RuntimeError("no zygote")
            code, stderr = zygote.run(command[3:], Path(folder), timeout)
        except RuntimeError:  # no zygote, or it ended: this row in a new interpreter
            code, stderr = _run_process(command, timeout)
        if code is None:
            out["why"] = f"hung: no verdict within {timeout:g} s (the process was killed)"
        elif code in (0, 1) and path.is_file():
            _read_report(out, path)
        else:
            last = (stderr.strip().splitlines() or ["(no message)"])[-1]
            kind = "refused" if code == 2 else f"ended with exit {code}"
            out["why"] = f"{kind}: {last}"
        out["duration_s"] = round(time.perf_counter() - started, 1)
    return out


def _run_process(command: list[str], timeout: float) -> tuple[int | None, str]:
    """(exit status or None when killed after ``timeout`` seconds, stderr) of a new process."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, ""
    return done.returncode, done.stderr


def _environment() -> dict[str, str]:
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": str(os.cpu_count()),
    }


def manifest_digest() -> str:
    """sha256 of the golden fixtures' MANIFEST this pespec ships."""
    import hashlib

    from pespec.conformance.fixtures import MANIFEST

    folder = Path(__file__).resolve().parent.parent / "golden"
    return hashlib.sha256((folder / MANIFEST).read_bytes()).hexdigest()


def build_table(
    clients: Iterable[Client],
    *,
    jobs: int = 2,
    timeout: float = ROW_TIMEOUT,
    progress: Callable[[dict[str, Any]], None] | None = None,
    fork: bool = True,
    shard: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """The table document of ``clients`` (rows in catalog order), ``jobs`` rows at a time;
    each row in a fork of one pre-loaded process (:mod:`zygote`) where the platform forks
    and ``fork``, else in a new interpreter; ``shard`` (K, N): only that part of the rows
    (:mod:`table_parts`)."""
    rows = planned_rows(clients)
    if shard is not None:
        from pespec.clients.table_parts import in_shard

        rows = [r for r in rows if in_shard(r, shard)]
    started = time.perf_counter()
    done: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        zygote = stack.enter_context(Zygote()) if fork and zygote_available() else None
        engines = stack.enter_context(EngineZygotes()) if fork else None
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for result in pool.map(lambda r: run_row(r, timeout, zygote, engines), rows):
                done.append(result)
                if progress is not None:
                    progress(result)
    return {
        "schema": TABLE_SCHEMA,
        **({"shard": f"{shard[0]}/{shard[1]}"} if shard is not None else {}),
        "pespec_version": __version__,
        "spec_version": SPEC_VERSION,
        "manifest_sha256": manifest_digest(),
        "date": datetime.now(timezone.utc).date().isoformat(),
        "environment": _environment(),
        "duration_s": round(time.perf_counter() - started, 1),
        "rows": done,
    }
