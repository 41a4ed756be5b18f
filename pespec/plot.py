"""Pictures: the encoding as a heatmap, a backend's error against the bound of its level, and
a rotary backend's diagnosis.

``pespec plot encoding --d-model 128 --seq-len 200 -o pe.png`` draws the float64 reference
encoding (positions down, columns across). ``pespec plot error BACKEND -o err.png`` draws
|backend − exact| against position for a few columns on log–log axes, with the element bound
of the backend's level (SPEC §4) dashed in the same colour: a conformant backend stays under
its dashed lines. The exact values are the certified oracle's (SPEC Annex B).
``pespec plot diagnosis BACKEND --config C -o diag.png`` draws a rotary backend's measured
frequencies against the declared ones and its phase error against position with the bound
of its level (SPEC Annex D.9; the data: :mod:`pespec.rope.diagnosis.curves`).

matplotlib is the optional ``[plot]`` extra; it is imported lazily (Agg backend, no display)
and its absence raises :class:`PlotDependencyError` saying how to install it. ``pespec check
--markdown`` embeds :func:`report_error_plot`'s picture when matplotlib is installed; the
sub-command is :mod:`pespec.cli.plot`.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec._atomic import atomic_path
from pespec.numerics.validation import check_non_negative_int
from pespec.sinusoidal.properties.base import EncodingConfig, Level, level_for_dtype, parse_level
from pespec.sinusoidal.reference import oracle
from pespec.sinusoidal.reference.encoding import encode, sinusoidal_positional_encoding
from pespec.sinusoidal.reference.validation import check_base, check_d_model

__all__ = [
    "FORMATS",
    "PlotDependencyError",
    "default_columns",
    "default_positions",
    "diagnosis_figure",
    "diagnosis_plot",
    "encoding_figure",
    "encoding_plot",
    "error_curves",
    "error_figure",
    "error_plot",
    "plot_format",
]

_INSTALL_HINT = (
    "install the plot extra: pip install -e '.[plot]' in a checkout of pespec, "
    "pip install 'pespec[plot]' from a package index (or pip install matplotlib)"
)


class PlotDependencyError(ImportError):
    """matplotlib (the ``[plot]`` extra) is not installed."""


def _pyplot() -> Any:
    """matplotlib.pyplot with the non-interactive Agg backend, or PlotDependencyError."""
    try:
        matplotlib = importlib.import_module("matplotlib")
    except ImportError:
        raise PlotDependencyError(f"pespec plot needs matplotlib; {_INSTALL_HINT}") from None
    matplotlib.use("Agg")
    return importlib.import_module("matplotlib.pyplot")


FORMATS: dict[str, tuple[str, dict[str, Any]]] = {
    ".png": ("png", {"Software": "pespec"}),
    ".pdf": ("pdf", {"Creator": "pespec", "Producer": "pespec", "CreationDate": None}),
    ".svg": ("svg", {"Creator": "pespec", "Date": None}),
}
"""File suffixes the plots are written as: matplotlib's format name and the metadata pinned
so that the same inputs give the same bytes (no version string, no creation date)."""

MAX_HEATMAP_ROWS = 1024
"""Rows drawn at most: a longer encoding is sampled at evenly spaced positions (the figure
has fewer pixels than that, so nothing visible is lost and memory stays small)."""

MAX_HEATMAP_COLUMNS = 8192
"""Columns drawn at most (the widest common models): a wider encoding is refused with a
ValueError saying so (one column per element; 1024 × 8192 float64 values)."""


def plot_format(path: str | os.PathLike[str], name: str = "path") -> str:
    """matplotlib's format name for ``path``'s suffix; ValueError for another suffix."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(
            f"{name} must end in {', '.join(FORMATS)} (the format is taken from the suffix); "
            f"got {str(path)!r}"
        )
    return FORMATS[suffix][0]


def _save(figure: Any, path: str | os.PathLike[str]) -> Path:
    """Write ``figure`` to ``path`` atomically in the format its suffix names (.png, .pdf,
    .svg; temp file + os.replace); close it. Run-to-run metadata is pinned."""
    target = Path(path)
    try:
        file_format = plot_format(target)
        metadata = FORMATS[target.suffix.lower()][1]
        plt = _pyplot()
        with plt.rc_context({"svg.hashsalt": "pespec"}), atomic_path(target, suffix=".plot") as tmp:
            figure.savefig(tmp, format=file_format, dpi=110, metadata=metadata)
    finally:
        _pyplot().close(figure)
    return target


def encoding_figure(d_model: int, seq_len: int, *, base: float = 10000.0) -> Any:
    """matplotlib Figure: heatmap of the float64 reference encoding, shape (seq_len, d_model).

    More than :data:`MAX_HEATMAP_ROWS` positions are sampled at evenly spaced positions
    (the axis still reads 0 … seq_len − 1); more than :data:`MAX_HEATMAP_COLUMNS` columns
    are refused."""
    d = check_d_model(d_model)
    length = check_non_negative_int(seq_len, "seq_len")
    if length == 0:
        raise ValueError("seq_len must be a positive int to draw a heatmap; got 0")
    if d > MAX_HEATMAP_COLUMNS:
        raise ValueError(
            f"d_model must be at most {MAX_HEATMAP_COLUMNS} to draw a heatmap (one column per "
            f"element); got {d}"
        )
    b = check_base(base)
    rows = min(length, MAX_HEATMAP_ROWS)
    positions = np.unique(np.round(np.linspace(0, length - 1, rows)).astype(np.int64))
    if positions.size == length:
        pe = sinusoidal_positional_encoding(length, d, base=b)
    else:
        pe = encode(positions, d, base=b)
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(8.0, 5.0), layout="constrained")
    image = axes.imshow(
        pe, aspect="auto", cmap="RdBu_r", vmin=-1.0, vmax=1.0, interpolation="nearest",
        extent=(-0.5, d - 0.5, length - 0.5, -0.5),
    )  # fmt: skip
    axes.set_xlabel("column j   (j = 2i: sin(p·ω_i),  j = 2i+1: cos(p·ω_i))")
    axes.set_ylabel("position p")
    title = f"Sinusoidal positional encoding PE(p, j), d = {d}, base = {b:g}"
    if positions.size < length:
        title += f"\n({positions.size} of {length} positions drawn, evenly spaced)"
    axes.set_title(title)
    figure.colorbar(image, ax=axes, label="PE(p, j)")
    return figure


def encoding_plot(
    d_model: int, seq_len: int, path: str | os.PathLike[str], *, base: float = 10000.0
) -> Path:
    """Write :func:`encoding_figure` to ``path`` (.png, .pdf or .svg); returns the path."""
    plot_format(path)
    return _save(encoding_figure(d_model, seq_len, base=base), path)


def default_positions(max_position: float = 1e5, count: int = 160) -> NDArray[np.int64]:
    """Integer positions 1 … max_position spaced evenly on a log scale (duplicates removed)."""
    top = max(1.0, float(max_position))
    return np.unique(np.round(np.geomspace(1.0, top, count))).astype(np.int64)


def default_columns(d_model: int) -> list[int]:
    """Columns drawn: sin and cos of the fastest pair, sin of the middle and last pairs."""
    d = check_d_model(d_model)
    return sorted({0, 1, 2 * (d // 4), d - 2})


def _as_level(level: Level | str | None, output: NDArray[Any], backend: Any) -> Level:
    """The level to draw: given, else the backend's claimed level, else its dtype's default."""
    if isinstance(level, Level):
        return level
    if isinstance(level, str):
        return parse_level(level)
    capabilities = getattr(backend, "capabilities", None)
    claimed = capabilities.claimed_level() if capabilities is not None else None
    return claimed if claimed is not None else level_for_dtype(output.dtype)


def error_curves(
    encoder: Callable[[NDArray[Any], int, float], Any],
    level: Level | str | None = None,
    *,
    d_model: int = 64,
    positions: Any = None,
    base: float = 10000.0,
) -> tuple[Level, NDArray[Any], NDArray[np.float64], NDArray[np.float64]]:
    """(level, positions (n,), |error| (n, d), bound (n, d)) for ``encoder`` against the oracle.

    |error| is the absolute difference (in float64) from the certified correctly rounded
    float64 encoding; non-finite outputs give ``inf``. The bound is the element bound of the
    level, :func:`pespec.sinusoidal.properties.errormodel.element_bound` (SPEC §4).
    """
    from pespec.conformance.host import to_host
    from pespec.sinusoidal.properties.errormodel import element_bound

    d = check_d_model(d_model)
    b = check_base(base)
    config = EncodingConfig(
        default_positions() if positions is None else np.asarray(positions), d, b
    )
    output = to_host(encoder(config.positions, d, b))
    if output.shape != (config.positions.shape[0], d):
        raise ValueError(
            f"backend output must have shape {(config.positions.shape[0], d)}; got {output.shape}"
        )
    chosen = _as_level(level, output, encoder)
    exact = oracle.encode(config.positions, d, base=b)
    with np.errstate(invalid="ignore", over="ignore"):
        error = np.abs(output.astype(np.float64) - exact)
    error[~np.isfinite(error)] = np.inf
    bound = np.broadcast_to(
        np.asarray(element_bound(config, chosen), dtype=np.float64), error.shape
    )
    return chosen, config.positions, error, np.array(bound)


def error_figure(
    encoder_or_backend: Any,
    level: Level | str | None = None,
    *,
    d_model: int = 64,
    positions: Any = None,
    columns: list[int] | None = None,
    base: float = 10000.0,
    timeout: float | None = None,
) -> Any:
    """matplotlib Figure: |error| against position for a few columns, the level's bound dashed.

    ``encoder_or_backend``: a :class:`pespec.conformance.backends.Backend`, a backend spec
    string (``"numpy-float32"``, ``"torch"``, ``"module:attr"``) or any Encoder callable.
    ``level``: a Level, a level name such as ``"float16@float64"``, or None for the backend's
    claimed level (or the default level of its output dtype). Zero errors are drawn at the
    bottom of the axes; non-finite outputs are counted in the title. ``timeout``: seconds
    the backend call may take (a hanging backend raises BackendFailure); None waits.
    """
    from pespec.conformance.contract import GuardedBackend
    from pespec.sinusoidal.loading import load_backend

    backend = load_backend(encoder_or_backend)
    if positions is None:
        declared = backend.capabilities.max_position
        positions = default_positions(1e5 if declared is None else declared)
    encoder: Any = backend
    if timeout is not None:
        if level is None:
            level = backend.capabilities.claimed_level()
        encoder = GuardedBackend(backend, timeout=timeout).raw_call
    chosen, pos, error, bound = error_curves(
        encoder, level, d_model=d_model, positions=positions, base=base
    )
    cols = default_columns(d_model) if columns is None else list(columns)
    if not cols or any(not 0 <= c < d_model for c in cols):
        raise ValueError(f"columns must be column indices in [0, {d_model}); got {columns!r}")
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(8.0, 5.0), layout="constrained")
    finite = error[np.isfinite(error)]
    positive = finite[finite > 0]
    floor = float(min(positive.min() if positive.size else 1.0, bound.min())) / 10
    x = np.maximum(pos.astype(np.float64), 0.5)  # position 0 drawn at 0.5 on the log axis
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for n, column in enumerate(cols):
        colour = colours[n % len(colours)]
        role = "sin" if column % 2 == 0 else "cos"
        label = f"column {column} ({role}, pair {column // 2})"
        axes.plot(x, np.maximum(error[:, column], floor), ".-", color=colour, ms=3, lw=0.8,
                  label=label)  # fmt: skip
        axes.plot(x, bound[:, column], "--", color=colour, lw=1.2)
    axes.plot([], [], "--", color="grey", label=f"element bound, level {chosen.name} (SPEC §4)")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("position p")
    axes.set_ylabel("|backend − exact|  (absolute error)")
    bad = int(np.count_nonzero(~np.isfinite(error[:, cols])))
    drawn = error[:, cols]
    over = int(np.count_nonzero(np.isfinite(drawn) & (drawn > bound[:, cols])))
    title = f"{backend.name}:\nerror vs exact, d = {d_model}, level {chosen.name}"  # 2 lines:
    title += f" — {over} of {drawn.size} values above the bound"  # a long spec fits the width
    if bad:
        title += f", {bad} non-finite (not drawn)"
    axes.set_title(title, fontsize=10)
    axes.grid(True, which="major", alpha=0.3)
    if np.any(error[:, cols] == 0):
        axes.annotate("errors of exactly 0 are drawn on the bottom edge", (0.99, 0.01),
                      xycoords="axes fraction", ha="right", va="bottom", fontsize=8)  # fmt: skip
    axes.legend(fontsize=8, loc="upper left")
    return figure


def error_plot(
    encoder_or_backend: Any,
    level: Level | str | None,
    path: str | os.PathLike[str],
    *,
    d_model: int = 64,
    positions: Any = None,
    columns: list[int] | None = None,
    base: float = 10000.0,
    timeout: float | None = None,
) -> Path:
    """Write :func:`error_figure` to ``path`` (.png, .pdf or .svg); returns the path.

    :func:`report_error_plot` draws it beside a Markdown report.
    """
    plot_format(path)
    figure = error_figure(
        encoder_or_backend, level, d_model=d_model, positions=positions, columns=columns,
        base=base, timeout=timeout,
    )  # fmt: skip
    return _save(figure, path)


def report_error_plot(
    backend: Any,
    level: Level | str | None,
    markdown: str | os.PathLike[str],
    *,
    timeout: float | None = None,
) -> str | None:
    """Draw ``<name>.error.png`` beside the Markdown report ``markdown``; its file name (to
    embed), or None when matplotlib is not installed or the backend fails (or outlasts
    ``timeout`` seconds) while plotting: no picture, never a crash."""
    if importlib.util.find_spec("matplotlib") is None:
        return None
    target = Path(markdown)
    png = target.with_name(f"{target.stem}.error.png")
    try:
        return error_plot(backend, level, png, timeout=timeout).name
    except (Exception, SystemExit, GeneratorExit):  # the backend misbehaved: no picture
        return None


def _rope_curves(
    backend: Any, config: Any, level: Any, timeout: float | None, max_position: int | None
) -> tuple[str, Any]:
    """(the backend's name, :func:`~pespec.rope.diagnosis.curves.diagnosis_curves` of it),
    probed within the domain the suite checks, each call under ``timeout`` seconds."""
    from pespec.conformance.engine import DEFAULT_TIMEOUT
    from pespec.rope.backends import load_rope_backend, resolve_config
    from pespec.rope.diagnosis.curves import diagnosis_curves
    from pespec.rope.domain import position_domain
    from pespec.rope.guard import rope_guard

    loaded = load_rope_backend(backend)
    rope = resolve_config(config)
    caps = loaded.capabilities
    if not caps.supports(rope):
        raise ValueError(f"config is not among the configs backend {loaded.name!r} declares")
    domain = position_domain(rope, caps, max_position=max_position)
    guard = rope_guard(loaded, timeout=DEFAULT_TIMEOUT if timeout is None else timeout)
    curves = diagnosis_curves(
        guard.raw_call, rope, level=level, claimed_level=caps.level,
        max_position=domain.max_position,
    )  # fmt: skip
    return loaded.name, curves


def _frequency_panel(axes: Any, curves: Any) -> None:
    """(a) |ω̂_j| with ±σ_j against the declared ω_j per pair, deviating pairs marked."""
    pairs = np.arange(curves.omega_declared.size)
    axes.plot(pairs, curves.omega_declared, "-", color="grey", lw=1.5, label="declared ω_j")
    finite = np.isfinite(curves.omega_measured)
    shown = finite & (curves.omega_measured != 0)
    for sign, face, text in ((1, None, "measured ω̂_j ± σ_j"), (-1, "none", "ω̂_j < 0, as |ω̂_j|")):
        pick = shown & (np.sign(curves.omega_measured) == sign)
        if pick.any():
            axes.errorbar(pairs[pick], np.abs(curves.omega_measured[pick]),
                          yerr=curves.precision[pick], fmt="o", ms=3, mfc=face, lw=0.8,
                          color="C0", label=text)  # fmt: skip
    bad = curves.deviates & shown
    if bad.any():
        axes.plot(pairs[bad], np.abs(curves.omega_measured[bad]), "x", color="C3", ms=7,
                  label=f"deviates ({int(bad.sum())} of {pairs.size} pairs)")  # fmt: skip
    if not finite.all():
        axes.plot([], [], " ", label=f"{int((~finite).sum())} pairs not measured")
    axes.set_yscale("log")
    axes.set_xlabel("pair j")
    axes.set_ylabel("frequency ω (rad per position)")
    axes.set_title("(a) measured against declared frequency", fontsize=10)
    axes.grid(True, which="major", alpha=0.3)
    axes.legend(fontsize=8, loc="lower left")


def _worst_pairs(curves: Any, count: int = 4) -> list[int]:
    """The pair furthest above its bound (relative), then the first, middle and last pairs."""
    half = curves.omega_declared.size
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.nan_to_num(np.abs(curves.phase_error) / curves.phase_bound, nan=np.inf)
    worst = int(np.argmax(ratio.max(axis=0)))
    return list(dict.fromkeys([worst, 0, half // 2, half - 1]))[:count]


def _phase_panel(axes: Any, curves: Any, pairs: list[int], colours: list[str]) -> None:
    """(b) |φ̂_j(p) − φ_j(p)| against p for ``pairs``, the level's bound dashed."""
    error = np.abs(curves.phase_error[:, pairs])
    bound = curves.phase_bound[:, pairs]
    finite = error[np.isfinite(error)]
    positive = finite[finite > 0]
    floor = float(min(positive.min() if positive.size else 1.0, bound.min())) / 10
    x = np.maximum(curves.positions, 0.5)  # position 0 drawn at 0.5 on the log axis
    over_pair = np.any(np.isfinite(error) & (error > bound), axis=0)
    for n, pair in enumerate(pairs):
        colour = colours[n % len(colours)]
        label = f"pair {pair}"
        if n == 0:  # _worst_pairs puts the worst first
            label += " (furthest above its bound)" if over_pair[0] else " (nearest its bound)"
        axes.plot(x, np.maximum(error[:, n], floor), ".-", color=colour, ms=3, lw=0.8,
                  label=label)  # fmt: skip
        axes.plot(x, bound[:, n], "--", color=colour, lw=1.2)
    axes.plot([], [], "--", color="grey", label=f"bound, level {curves.level.name} (SPEC §8.7)")
    over = int(np.count_nonzero(np.isfinite(error) & (error > bound)))
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("position p  (p = 0 drawn at 0.5)")
    axes.set_ylabel("|φ̂_j(p) − φ_j(p)|  (rad)")
    axes.set_title(f"(b) phase error vs exact — {over} of {error.size} values above the bound",
                   fontsize=10)  # fmt: skip
    axes.grid(True, which="major", alpha=0.3)
    axes.legend(fontsize=8, loc="upper left")


def diagnosis_figure(
    backend: Any,
    config: Any,
    level: Any = None,
    *,
    timeout: float | None = None,
    max_position: int | None = None,
) -> Any:
    """matplotlib Figure of a rotary backend's diagnosis (SPEC Annex D.9): (a) measured
    against declared frequency per pair, (b) the phase error against position for the
    worst pair and a few others, with the bound of the level.

    ``backend``: a rotary spec, callable or Backend; ``config``: a RopeConfig, preset name or
    dict; ``level``: ``PHASE/CACHE/ROTATION`` (None: the backend's claim, else its output
    dtype's default). Positions probed as the suite's domain (``max_position``);
    ``timeout``: seconds per backend call. NotMeasured when the probes cannot be read.
    """
    import textwrap

    plt = _pyplot()  # before the backend runs: its absence is said at once
    name, curves = _rope_curves(backend, config, level, timeout, max_position)
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(8.0, 9.0), layout="constrained")
    _frequency_panel(top, curves)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    _phase_panel(bottom, curves, _worst_pairs(curves), colours)
    sentence = textwrap.fill(curves.diagnosis.sentence, 110)
    figure.suptitle(f"{name}: rotary diagnosis, {curves.output_dtype} output\n{sentence}",
                    fontsize=8)  # fmt: skip
    return figure


def diagnosis_plot(
    backend: Any,
    config: Any,
    path: str | os.PathLike[str],
    level: Any = None,
    *,
    timeout: float | None = None,
    max_position: int | None = None,
) -> Path:
    """Write :func:`diagnosis_figure` to ``path`` (.png, .pdf or .svg); returns the path."""
    plot_format(path)
    figure = diagnosis_figure(backend, config, level, timeout=timeout, max_position=max_position)
    return _save(figure, path)
