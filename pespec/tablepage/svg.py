"""The page's two pictures as inline SVG (no script, no external file): the trend of counts by
verdict over the history snapshots, and a row's error against position (each check's worst
element: its error as a ratio to its bound, at its position). Each picture has a ``<title>``
and ``<desc>``, and the page shows the same numbers as text beside it."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

__all__ = ["error_picture", "trend_picture"]

COLOURS = {"CONFORMANT": "#1a7f37", "NON-CONFORMANT": "#b42318", "not run": "#6e7781"}
"""Verdict colours (each at least 4.5:1 against white, WCAG AA for text)."""


def _svg(width: int, height: int, title: str, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img">'
        f"<title>{escape(title)}</title><desc>{escape(title)}</desc>" + "".join(body) + "</svg>"
    )


def trend_picture(points: Sequence[tuple[str, Mapping[str, int]]]) -> str:
    """Stacked bars, one per snapshot (label, counts by verdict), oldest on the left."""
    width, height, pad, bottom = 640, 220, 40, 40
    top = max((sum(c.values()) for _, c in points), default=1) or 1
    bar = (width - 2 * pad) / max(len(points), 1)
    body = [
        f'<line x1="{pad}" y1="{height - bottom}" x2="{width - pad}" '
        f'y2="{height - bottom}" stroke="#24292f"/>'
    ]
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
            f'<text x="{x + bar * 0.35:.1f}" y="{height - bottom + 14}" font-size="10" '
            f'text-anchor="middle">{escape(label)}</text>'
            f'<text x="{x + bar * 0.35:.1f}" y="{y - 4:.1f}" font-size="10" '
            f'text-anchor="middle">{sum(count.values())}</text>'
        )
    return _svg(width, height, "Rows by verdict in each snapshot of the table", body)


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

    body = [
        f'<line x1="{left}" x2="{width - 10}" y1="{sy(0):.1f}" y2="{sy(0):.1f}" '
        'stroke="#24292f" stroke-dasharray="4 3"/>',
        f'<text x="{width - 12}" y="{sy(0) - 4:.1f}" font-size="10" text-anchor="end">'
        "bound (error/bound = 1)</text>",
        f'<text x="{(left + width) / 2}" y="{height - 4}" font-size="11" text-anchor="middle">'
        "position of the worst element (log scale, position + 1)</text>",
        f'<text x="12" y="{height / 2}" font-size="11" transform="rotate(-90 12 {height / 2})" '
        'text-anchor="middle">error / bound (log)</text>',
    ]
    decades = range(math.ceil(y0), math.floor(y1) + 1)
    step = max(1, math.ceil(len(decades) / 8))  # at most about 8 labels
    for decade in decades[::step]:
        body.append(
            f'<text x="{left - 4}" y="{sy(decade) + 3:.1f}" font-size="10" '
            f'text-anchor="end">1e{decade}</text>'
        )
    for (position, ratio, name, status), x, y in zip(points, xs, ys, strict=True):
        colour = COLOURS["NON-CONFORMANT"] if status == "failed" else COLOURS["CONFORMANT"]
        shape = (
            f'<rect x="{sx(x) - 4:.1f}" y="{sy(y) - 4:.1f}" width="8" height="8"'
            if status == "failed"
            else f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="4"'
        )
        body.append(
            f'{shape} fill="{colour}"><title>{escape(name)} ({status}): error/bound '
            f"{ratio:.3g} at position {position:g}</title>"
            + ("</rect>" if status == "failed" else "</circle>")
        )
    title = "Each check's worst error as a ratio of its bound, by position"
    return _svg(width, height, title, body)
