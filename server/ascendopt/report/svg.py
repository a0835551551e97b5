"""Speedup charts as inline SVG, written here in Python: no script, nothing fetched, so a report opens
offline and in the editor's webview. Colours are CSS classes (blocks.STYLE) over VS Code's theme
variables, so one page reads in the dark and the light theme.

Every chart's y axis starts at 1.0 (the baseline) and shows the bands a speedup must clear to mean
anything: the noise band (what the episode calls "beyond the noise") and, for estimates, the timing
model's stated error. Evaluations without a speedup of at least 1.0 (slower, wrong, refused before
timing) sit in a strip under the axis, so nothing is dropped and the axis is not stretched below 1.0.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import NamedTuple

# Verdict classes of the charts (journal/view.py's verdicts grouped), with their legend words.
CLASSES: dict[str, str] = {
    "better": "better (a new best)",
    "not-faster": "not faster",
    "wrong": "wrong",
    "refused": "refused",
    "measure": "baseline, noise, re-check",
}
VERDICT_CLASS: dict[str, str] = {
    "winner": "better",
    "accepted": "better",
    "not faster": "not-faster",
    "slower": "not-faster",
    "wrong": "wrong",
    "compile error": "wrong",
    "rejected": "refused",
    "failed re-check": "refused",
}


class Point(NamedTuple):
    x: float | str  # an evaluation's number, or a knob's value
    y: float | None  # its speedup; None: none (wrong, or refused before timing)
    cls: str  # a key of CLASSES
    tip: str  # the hover text (escaped here)


class Bands(NamedTuple):
    noise: float  # the measured noise band, relative (0 for a deterministic estimate)
    threshold: float  # how much a new best must beat the best so far by (relative)
    model_error: float | None  # the timing model's stated error; None for measured durations


W, H = 640, 300
LEFT, RIGHT, TOP = 58, 14, 14
STRIP = 26  # the strip under the axis: speedups under 1.0 and none


class _Frame:
    """Pixel positions of one chart: x linear over `span` or evenly over `cats` (a knob's values),
    y from 1.0 (the axis) to `top`."""

    def __init__(
        self,
        width: int,
        height: int,
        top: float,
        span: tuple[float, float] = (0.0, 1.0),
        cats: Sequence[str] = (),
    ) -> None:
        self.width, self.height, self.top = width, height, top
        self.x0, self.x1 = LEFT, width - RIGHT
        self.y1 = TOP  # pixel of `top`
        self.y0 = height - 34 - STRIP  # pixel of 1.0
        self.span, self.cats = span, list(cats)

    def px(self, x: float | str) -> float:
        if self.cats:
            step = (self.x1 - self.x0) / len(self.cats)
            return self.x0 + step * (self.cats.index(str(x)) + 0.5)
        lo, hi = self.span
        return self.x0 + (float(x) - lo) / ((hi - lo) or 1) * (self.x1 - self.x0)

    def py(self, y: float) -> float:
        return self.y0 - (y - 1.0) / (self.top - 1.0) * (self.y0 - self.y1)

    def strip_y(self, i: int) -> float:
        return self.y0 + 8 + (i % 3) * 6  # a little apart, so points at one x do not hide each other


def _top(values: Sequence[float], bands: Bands) -> float:
    """The axis top: above every speedup and every band, so a 0.4 % step looks like 0.4 %."""
    high = max([1.0, *values, 1 + bands.threshold, 1 + bands.noise, 1 + (bands.model_error or 0.0)])
    return 1.0 + max(high - 1.0, 0.05) * 1.08


def _nice_step(span: float, most: int) -> float:
    for exp in range(-4, 4):  # the smallest step that gives at most `most` intervals
        for mult in (1, 2, 2.5, 5):
            step = mult * 10.0**exp
            if span / step <= most:
                return step
    return span


def _fmt_y(v: float, step: float) -> str:
    """A tick's label with as many decimals as its step needs (at least two: "1.05×", "1.025×")."""
    decimals = f"{step:g}".partition(".")[2]
    return f"{v:.{max(len(decimals), 2)}f}×"


def _axes(f: _Frame, x_label: str, y_label: str, x_ticks: list[tuple[float | str, str]]) -> list[str]:
    out = [f'<rect class="ao-plot" x="{f.x0}" y="{f.y1}" width="{f.x1 - f.x0}" height="{f.y0 - f.y1}"/>']
    step = _nice_step(f.top - 1.0, 5)
    v = 1.0
    while v <= f.top + 1e-9:
        y = f.py(v)
        out.append(f'<line class="ao-grid" x1="{f.x0}" x2="{f.x1}" y1="{y:.1f}" y2="{y:.1f}"/>')
        out.append(
            f'<text class="ao-tick" x="{f.x0 - 5}" y="{y + 3.5:.1f}" text-anchor="end">'
            f"{_fmt_y(v, step)}</text>"
        )
        v += step
    out.append(f'<line class="ao-axis" x1="{f.x0}" x2="{f.x1}" y1="{f.y0}" y2="{f.y0}"/>')
    strip_mid = f.y0 + STRIP / 2 + 3
    out.append(
        f'<text class="ao-tick" x="{f.x0 - 5}" y="{strip_mid:.1f}" text-anchor="end">&lt;1 / none</text>'
    )
    base = f.y0 + STRIP
    out.append(f'<line class="ao-grid" x1="{f.x0}" x2="{f.x1}" y1="{base}" y2="{base}"/>')
    for x, label in x_ticks:
        px = f.px(x)
        out.append(f'<line class="ao-axis" x1="{px:.1f}" x2="{px:.1f}" y1="{base}" y2="{base + 4}"/>')
        out.append(
            f'<text class="ao-tick" x="{px:.1f}" y="{base + 15}" text-anchor="middle">'
            f"{html.escape(label)}</text>"
        )
    out.append(
        f'<text class="ao-label" x="{(f.x0 + f.x1) / 2:.1f}" y="{f.height - 3}" text-anchor="middle">'
        f"{html.escape(x_label)}</text>"
    )
    mid = (f.y0 + f.y1) / 2
    out.append(
        f'<text class="ao-label" transform="translate(12,{mid:.1f}) rotate(-90)" text-anchor="middle">'
        f"{html.escape(y_label)}</text>"
    )
    return out


def _model_band(f: _Frame, bands: Bands, labelled: bool = True) -> list[str]:
    if not bands.model_error:
        return []
    y = f.py(min(1 + bands.model_error, f.top))
    band = (
        f'<rect class="ao-band-model" x="{f.x0}" y="{y:.1f}" width="{f.x1 - f.x0}" height="{f.y0 - y:.1f}">'
        f"<title>the timing model's stated error: ±{bands.model_error:.0%} on a duration</title></rect>"
    )
    label = (
        f'<text class="ao-note" x="{f.x1 - 4}" y="{y + 12:.1f}" text-anchor="end">'
        f"timing model's stated error ±{bands.model_error:.0%}</text>"
    )
    return [band, label] if labelled else [band]


def _points(f: _Frame, points: Sequence[Point]) -> list[str]:
    out = []
    for i, p in enumerate(points):
        x = f.px(p.x)
        y = f.py(min(p.y, f.top)) if p.y is not None and p.y >= 1.0 else f.strip_y(i)
        tip = f"<title>{html.escape(p.tip)}</title>"
        if p.cls == "wrong":  # a cross: readable without its colour
            d = 3.5
            out.append(
                f'<path class="ao-pt ao-{p.cls}" d="M{x - d:.1f},{y - d:.1f}L{x + d:.1f},{y + d:.1f}'
                f'M{x - d:.1f},{y + d:.1f}L{x + d:.1f},{y - d:.1f}">{tip}</path>'
            )
        elif p.cls == "refused":  # a square
            out.append(
                f'<rect class="ao-pt ao-{p.cls}" x="{x - 3.5:.1f}" y="{y - 3.5:.1f}" width="7" height="7">'
                f"{tip}</rect>"
            )
        else:
            out.append(f'<circle class="ao-pt ao-{p.cls}" cx="{x:.1f}" cy="{y:.1f}" r="3.6">{tip}</circle>')
    return out


def _svg(width: int, height: int, label: str, parts: list[str], wide: bool = True) -> str:
    return (
        f'<svg class="ao-chart{" ao-wide" if wide else ""}" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{html.escape(label)}">'
        f"<title>{html.escape(label)}</title>" + "".join(parts) + "</svg>"
    )


def _int_ticks(lo: int, hi: int) -> list[tuple[float | str, str]]:
    step = max(1, round(_nice_step(max(hi - lo, 1), 8)))
    first = math.ceil(lo / step) * step
    return [(v, str(v)) for v in range(max(first, lo), hi + 1, step)]


def history(points: Sequence[Point], best: Sequence[tuple[int, float]], bands: Bands, label: str) -> str:
    """Optimization history: one point per evaluation by verdict, under the best-so-far step line,
    with the noise band a new best had to clear drawn over that line."""
    n = max([len(best), *(int(p.x) for p in points if isinstance(p.x, int | float))], default=1)
    ys = [p.y for p in points if p.y is not None] + [b for _, b in best]
    f = _Frame(W, H, _top(ys, bands), span=(0.5, n + 0.5))
    parts = _axes(f, "evaluation", "speedup against the baseline", _int_ticks(1, n))
    parts += _model_band(f, bands)
    if best:
        # The band a new best had to beat, riding on the best so far: inside it is "not faster".
        up = [(e, min(b / (1 - bands.threshold), f.top)) for e, b in best] if bands.threshold < 1 else []
        edge = _step_path(f, best) + "".join(
            f"L{f.px(e + 0.5):.1f},{f.py(u):.1f}L{f.px(e - 0.5):.1f},{f.py(u):.1f}" for e, u in reversed(up)
        )
        parts.append(
            f'<path class="ao-band-noise" d="{edge}Z"><title>noise band: a new best must beat the best '
            f"so far by {bands.threshold:.1%} (measured noise {bands.noise:.1%})</title></path>"
        )
        parts.append(f'<path class="ao-best" d="{_step_path(f, best)}"/>')
    parts += _points(f, points)
    return _svg(W, H, label, parts)


def _step_path(f: _Frame, best: Sequence[tuple[int, float]]) -> str:
    """The best-so-far line, flat across each evaluation's slot (from e-0.5 to e+0.5)."""
    out = []
    for i, (e, b) in enumerate(best):
        y = f.py(min(b, f.top))
        out.append(f"{'M' if i == 0 else 'L'}{f.px(e - 0.5):.1f},{y:.1f}L{f.px(e + 0.5):.1f},{y:.1f}")
    return "".join(out)


def slice_plot(
    knob: str, values: Sequence[str], points: Sequence[Point], bands: Bands, marks: dict[str, str]
) -> str:
    """Speedup against one knob's values (in `values`' order), a point per evaluated candidate;
    `marks`: value -> "baseline" (a dashed line) or "winner" (a solid one)."""
    ys = [p.y for p in points if p.y is not None]
    width, height = 320, 240
    f = _Frame(width, height, _top(ys, bands), cats=values)
    parts = _axes(f, knob, "speedup", [(v, v) for v in values])
    parts += _model_band(f, bands, labelled=False)
    for value, word in marks.items():
        if value in values:
            x = f.px(value)
            parts.append(
                f'<line class="ao-mark-{html.escape(word)}" x1="{x:.1f}" x2="{x:.1f}" y1="{f.y1}" '
                f'y2="{f.y0 + STRIP}"><title>the {html.escape(word)}: {html.escape(value)}</title></line>'
            )
    # spread the points of one value a little, in the order they were evaluated
    seen: dict[str, int] = {}
    spread = []
    step = (f.x1 - f.x0) / max(len(values), 1)
    for p in points:
        k = seen[str(p.x)] = seen.get(str(p.x), -1) + 1
        off = ((k % 5) - 2) * min(4.0, step / 8)
        spread.append((off, p))
    out = _points(f, [p for _, p in spread])
    parts += [_shift(svg, off) for svg, (off, _) in zip(out, spread, strict=True)]
    return _svg(width, height, f"speedup against {knob}", parts, wide=False)


def _shift(element: str, dx: float) -> str:
    return element if dx == 0 else element.replace("<", f'<g transform="translate({dx:.1f},0)"><', 1) + "</g>"


def curves(lines: dict[str, Sequence[tuple[int, float]]], bands: Bands, x_label: str, label: str) -> str:
    """Best-so-far curves (a campaign's geomean per strategy) against evaluations, from 1.0."""
    n = max((e for pts in lines.values() for e, _ in pts), default=1)
    ys = [b for pts in lines.values() for _, b in pts]
    f = _Frame(W, H, _top(ys, bands), span=(0.5, n + 0.5))
    parts = _axes(f, x_label, "best speedup (search-time)", _int_ticks(1, n))
    parts += _model_band(f, bands)
    if bands.noise:
        y = f.py(min(1 + bands.noise, f.top))
        parts.append(
            f'<rect class="ao-band-noise" x="{f.x0}" y="{y:.1f}" width="{f.x1 - f.x0}" '
            f'height="{f.y0 - y:.1f}"><title>the largest measured noise band: {bands.noise:.1%}</title>'
            "</rect>"
        )
    for i, (name, pts) in enumerate(lines.items()):
        if pts:
            parts.append(
                f'<path class="ao-series ao-s{i % 6}" d="{_step_path(f, pts)}">'
                f"<title>{html.escape(name)}</title></path>"
            )
            parts.append(
                f'<text class="ao-series-label ao-s{i % 6}" x="{f.x0 + 6}" y="{f.y1 + 14 + 13 * i}">'
                f"― {html.escape(name)}</text>"
            )
    return _svg(W, H, label, parts)


def legend(counts: dict[str, int] | None = None) -> str:
    """The verdict classes with their counts (those that occur), or all of them, as HTML."""
    items = "".join(
        f'<span class="ao-key"><svg width="12" height="12" viewBox="0 0 12 12" aria-hidden="true">'
        f"{_swatch(cls)}</svg> {html.escape(CLASSES[cls])}"
        + (f": {counts[cls]}" if counts else "")
        + "</span>"
        for cls in CLASSES
        if counts is None or counts.get(cls)
    )
    return f'<p class="ao-legend">{items}</p>'


def _swatch(cls: str) -> str:
    if cls == "wrong":
        return f'<path class="ao-pt ao-{cls}" d="M2.5,2.5L9.5,9.5M2.5,9.5L9.5,2.5"/>'
    if cls == "refused":
        return f'<rect class="ao-pt ao-{cls}" x="2.5" y="2.5" width="7" height="7"/>'
    return f'<circle class="ao-pt ao-{cls}" cx="6" cy="6" r="3.6"/>'
