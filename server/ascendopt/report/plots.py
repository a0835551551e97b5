"""Plots (matplotlib, headless): PNG bytes for the campaign's files, inline SVG for pages that must
carry everything themselves (the episode report, also shown in the editor's webview)."""

from __future__ import annotations

import io

CAMPAIGN_AXES = ("evaluations spent per operator", "geomean best speedup (search-time)")
EPISODE_AXES = ("evaluations spent", "best speedup so far (search-time)")


def step_plot(
    curves: dict[str, list[tuple[int, float]]], title: str, axes: tuple[str, str], fmt: str = "png"
) -> bytes:
    """Best-so-far step curves against evaluations, with the 1.0 (baseline) line."""
    import matplotlib

    matplotlib.use("Agg")  # no display; must precede pyplot
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    # Text as paths would make every label a shape; as text the SVG stays small and searchable.
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "ascendopt"}):
        fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
        try:
            for name, points in curves.items():
                if points:
                    ax.step([p[0] for p in points], [p[1] for p in points], where="post", label=name)
            ax.axhline(1.0, color="grey", linewidth=0.8, linestyle=":")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # evaluations are counted, not measured
            ax.set_xlabel(axes[0])
            ax.set_ylabel(axes[1])
            ax.set_title(title, fontsize=10)
            if any(curves.values()):
                ax.legend()
            ax.grid(alpha=0.3)
            buf = io.BytesIO()
            fig.tight_layout()
            fig.savefig(buf, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
            return buf.getvalue()
        finally:
            plt.close(fig)


def budget_curve_png(curves: dict[str, list[tuple[int, float]]], title: str) -> bytes:
    return step_plot(curves, title, CAMPAIGN_AXES)


def inline_svg(curves: dict[str, list[tuple[int, float]]], title: str, axes: tuple[str, str]) -> str:
    """The plot as an `<svg>` element to put straight into HTML (no XML prolog or DOCTYPE)."""
    text = step_plot(curves, title, axes, fmt="svg").decode("utf-8")
    return text[text.index("<svg") :]
