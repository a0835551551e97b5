"""Plots as PNG bytes (matplotlib, headless), for embedding in self-contained HTML."""

from __future__ import annotations

import io


def budget_curve_png(curves: dict[str, list[tuple[int, float]]], title: str) -> bytes:
    import matplotlib

    matplotlib.use("Agg")  # no display; must precede pyplot
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    try:
        for name, points in curves.items():
            if points:
                ax.step([p[0] for p in points], [p[1] for p in points], where="post", label=name)
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle=":")
        ax.set_xlabel("evaluations spent per operator")
        ax.set_ylabel("geomean best speedup (search-time)")
        ax.set_title(title, fontsize=10)
        if any(curves.values()):
            ax.legend()
        ax.grid(alpha=0.3)
        buf = io.BytesIO()
        fig.tight_layout()
        fig.savefig(buf, format="png")
        return buf.getvalue()
    finally:
        plt.close(fig)
