"""The page's two pictures as inline SVG (no script, no external file): the trend of counts by
verdict over the history snapshots, and a row's error against position (each check's worst
element: its error as a ratio to its bound, at its position). Each picture has a ``<title>``
and the page shows the same numbers as text beside it.

The markup is compact (the page carries one picture per row and has a 5 MB budget): inline SVG
in HTML needs no ``xmlns``, its presentation (colours, font sizes, anchors, the dashed bound)
comes from page.css classes (``svg.err``, ``svg.trend``), and coordinates are whole pixels
(the 560 × 240 picture resolves no finer)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

__all__ = ["error_picture", "trend_picture"]

COLOURS = {"CONFORMANT": "#1a7f37", "NON-CONFORMANT": "#b42318", "not run": "#6e7781"}
"""Verdict colours (each at least 4.5:1 against white, WCAG AA for text)."""


def _svg(kind: str, width: int, height: int, title: str, body: list[str]) -> str:
    return (
        f'<svg class="{kind}" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img"><title>{escape(title)}</title>' + "".join(body) + "</svg>"
    )


def _px(value: float) -> int:
    """A coordinate in whole pixels (half a pixel off at most)."""
    return round(value)


def trend_picture(points: Sequence[tuple[str, Mapping[str, int]]]) -> str:
    """Stacked bars, one per snapshot (label, counts by verdict), oldest on the left."""
    width, height, pad, bottom = 640, 220, 40, 40
    top = max((sum(c.values()) for _, c in points), default=1) or 1
    bar = (width - 2 * pad) / max(len(points), 1)
    body = [f'<line x1="{pad}" y1="{height - bottom}" x2="{width - pad}" y2="{height - bottom}"/>']
    for i, (label, count) in enumerate(points):
        x, y = pad + i * bar + bar * 0.15, float(height - bottom)
        for verdict, colour in COLOURS.items():
            h = count.get(verdict, 0) / top * (height - bottom - 20)
            if h > 0:
                y -= h
                body.append(
                    f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar * 0.7:.1f}" height="{h:.1f}" '
                    f'fill="{colour}"><title>{escape(label)}: {count[verdict]} {verdict}'
                    "</title></rect>"
                )
        body.append(
            f'<text x="{_px(x + bar * 0.35)}" y="{height - bottom + 14}">{escape(label)}</text>'
            f'<text x="{_px(x + bar * 0.35)}" y="{_px(y - 4)}">{sum(count.values())}</text>'
        )
    return _svg("trend", width, height, "Rows by verdict in each snapshot of the table", body)


def _scale(value: float, low: float, high: float, start: float, end: float) -> float:
    if high <= low:
        return (start + end) / 2
    return start + (value - low) / (high - low) * (end - start)


def error_picture(checks: Sequence[Mapping[str, Any]]) -> str | None:
    """Each check's worst element as a point: position (log scale, position + 1) across,
    error/bound (log scale) up, the bound (ratio 1) as a line; None when no check has both."""
    points = [
        (float(c["position"]), float(c["ratio"]), str(c["id"]), str(c["status"]))
        for c in checks
        if isinstance(c.get("position"), (int, float))
        and isinstance(c.get("ratio"), (int, float))
        and c["ratio"] > 0
        and c["position"] >= 0
    ]
    if not points:
        return None
    width, height, left, bottom = 560, 240, 56, 36
    xs = [math.log10(p + 1) for p, *_ in points]
    ys = [math.log10(r) for _, r, *_ in points]
    x0, x1 = min(xs) - 0.1, max(xs) + 0.1
    y0, y1 = math.floor(min([*ys, 0.0])) - 0.2, math.ceil(max([*ys, 0.0])) + 0.2

    def sx(v: float) -> float:
        return _scale(v, x0, x1, left, width - 10)

    def sy(v: float) -> float:
        return _scale(v, y0, y1, height - bottom, 10)

    bound = _px(sy(0))
    # page.css draws line.bound dashed, g.end's labels anchored at their end, g.axis's
    # titles centred and larger, a circle (passed) green and a rect (failed) red.
    body = [
        f'<line class="bound" x1="{left}" x2="{width - 10}" y1="{bound}" y2="{bound}"/>',
        f'<g class="axis"><text x="{(left + width) // 2}" y="{height - 4}">position of the '
        "worst element (log scale, position + 1)</text>"
        f'<text x="12" y="{height // 2}" transform="rotate(-90 12 {height // 2})">'
        "error / bound (log)</text></g>",
        f'<g class="end"><text x="{width - 12}" y="{bound - 4}">bound (error/bound = 1)</text>',
    ]
    decades = range(math.ceil(y0), math.floor(y1) + 1)
    step = max(1, math.ceil(len(decades) / 8))  # at most about 8 labels
    for decade in decades[::step]:
        body.append(f'<text x="{left - 4}" y="{_px(sy(decade) + 3)}">1e{decade}</text>')
    body.append("</g>")
    for (position, ratio, name, status), x, y in zip(points, xs, ys, strict=True):
        shape = (
            f'<rect x="{_px(sx(x)) - 4}" y="{_px(sy(y)) - 4}" width="8" height="8"'
            if status == "failed"
            else f'<circle cx="{_px(sx(x))}" cy="{_px(sy(y))}" r="4"'
        )
        body.append(
            f"{shape}><title>{escape(name)} ({status}): error/bound "
            f"{ratio:.3g} at position {position:g}</title>"
            + ("</rect>" if status == "failed" else "</circle>")
        )
    title = "Each check's worst error as a ratio of its bound, by position"
    return _svg("err", width, height, title, body)
