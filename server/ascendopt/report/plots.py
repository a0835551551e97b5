"""The campaign's budget curve as a PNG (matplotlib, headless) for report.md; the HTML pages draw
theirs as inline SVG (report/svg.py). The same axis rule: from 1.0, with the bands shaded."""

from __future__ import annotations

import io

from ascendopt.report.svg import Bands

CAMPAIGN_AXES = ("evaluations spent per operator", "geomean best speedup (search-time)")


def budget_curve_png(curves: dict[str, list[tuple[int, float]]], title: str, bands: Bands) -> bytes:
    """Best-so-far step curves against evaluations, the y axis from 1.0 (the baseline) to above
    every curve and band, so a 0.4 % step is drawn as one."""
    import matplotlib

    matplotlib.use("Agg")  # no display; must precede pyplot
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    try:
        for name, points in curves.items():
            if points:
                ax.step([p[0] for p in points], [p[1] for p in points], where="post", label=name)
        if bands.model_error:
            ax.axhspan(1.0, 1.0 + bands.model_error, color="tab:olive", alpha=0.12, linewidth=0)
            ax.text(
                0.99,
                1.0 + bands.model_error,
                f"timing model's stated error ±{bands.model_error:.0%}",
                transform=ax.get_yaxis_transform(),
                ha="right",
                va="top",
                fontsize=8,
                color="dimgrey",
            )
        if bands.noise:
            ax.axhspan(1.0, 1.0 + bands.noise, color="tab:blue", alpha=0.15, linewidth=0)
        high = max(
            [1.0 + (bands.model_error or 0.0), 1.0 + bands.noise, *(y for c in curves.values() for _, y in c)]
        )
        ax.set_ylim(1.0, 1.0 + max(high - 1.0, 0.05) * 1.08)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # evaluations are counted, not measured
        ax.set_xlabel(CAMPAIGN_AXES[0])
        ax.set_ylabel(CAMPAIGN_AXES[1])
        ax.set_title(title, fontsize=10)
        if any(curves.values()):
            ax.legend(loc="upper left")
        ax.grid(alpha=0.3)
        buf = io.BytesIO()
        fig.tight_layout()
        fig.savefig(buf, format="png")
        return buf.getvalue()
    finally:
        plt.close(fig)
