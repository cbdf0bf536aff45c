"""Plot styling that keeps repaints cheap: a light grid beneath the data, peak downsampling.

Grid: pyqtgraph draws its grid as translucent tick lines of the axes, above the data. Qt's raster engine
blends a translucent cosmetic line pixel by pixel, so every repaint of a plot with ``showGrid(alpha)``
spent ~10 ms per axis on the grid alone (measured offscreen: a 1200x800 plot repainted in 59 ms with
the translucent grid, 4 ms with this one). Here the grid lines are opaque and light, only the major
ticks get one, and the axes sit below the view box so the data is drawn over the grid.
"""
from __future__ import annotations

import pyqtgraph as pg

GRID_COLOR = "#e4e4e4"
TEXT_COLOR = "#202020"


def light_grid(plot: pg.PlotItem, x: bool = True, y: bool = True) -> None:
    """Give ``plot`` an opaque light grid under its data (major ticks only)."""
    plot.showGrid(x=x, y=y)
    below = plot.vb.zValue() - 1
    for name in ("left", "bottom", "right", "top"):
        axis = plot.getAxis(name)
        axis.setStyle(tickAlpha=255, maxTickLevel=0)
        axis.setTickPen(pg.mkPen(GRID_COLOR))
        axis.setPen(pg.mkPen(TEXT_COLOR))
        axis.setTextPen(pg.mkPen(TEXT_COLOR))
        axis.setZValue(below)


def peak_downsampling(plot: pg.PlotItem, clip: bool = True) -> None:
    """Draw the plot's curves peak-downsampled to the view's pixels (and clipped to the view).

    Set on the PlotItem, not on each curve: ``PlotItem.addItem`` applies the plot's own modes to
    every data item it receives, which silently undid per-curve settings made before adding
    (a 1,000,000-point series was drawn point by point).
    """
    plot.setDownsampling(auto=True, mode="peak")
    plot.setClipToView(clip)


def for_display(values: object) -> tuple[object, int]:
    """``(values / 10**k, k)`` with ``k = 0`` for ordinary magnitudes.

    Qt's raster engine crashes (segfault) when a view transform's scale overflows, and a series of
    subnormal values spans about 1e-323: fitting it to a few hundred pixels needs a scale of 1e325.
    Values whose magnitude is beyond 1e+-100 are therefore drawn in units of 10**k, and the y axis
    says so (:func:`label_exponent`); readouts keep the original values.
    """
    import numpy as np

    arr = np.asarray(values, dtype=np.float64)
    if arr.size == 0:
        return arr, 0
    # min and max first: two passes without temporaries (a 1e7-point series: ~20 ms, not ~300 ms);
    # only a series holding NaN or inf pays for the filtered copy
    top = max(abs(float(np.min(arr))), abs(float(np.max(arr))))
    if not np.isfinite(top):
        finite = arr[np.isfinite(arr)]
        top = float(np.max(np.abs(finite))) if finite.size else 0.0
    if top == 0.0:
        return arr, 0
    k = int(np.floor(np.log10(top)))
    if -100 <= k <= 100:
        return arr, 0
    # two steps: 10.0**k itself under- or overflows near the ends of the float range
    half = k // 2
    return (arr / 10.0 ** half) / 10.0 ** (k - half), k


def label_exponent(plot: pg.PlotItem, k: int, axis: str = "left") -> None:
    """Show (or clear) the ``x 1eK`` unit of values drawn by :func:`for_display`."""
    ax = plot.getAxis(axis)
    if k:
        ax.setLabel(f"× 1e{k}")
    else:
        ax.showLabel(False)


def envelope(x: object, y: object, max_points: int = 8192) -> tuple[object, object]:
    """A strip-sized stand-in for a long curve: per block of samples its minimum and maximum, in
    sample order (what peak downsampling would draw at a few thousand pixels), so a 1e7-point
    series costs the overview one pass instead of bounds, copies and downsampling on every change.
    ``x`` None means the sample index. Short curves come back unchanged (x filled in)."""
    import numpy as np

    yv = np.asarray(y, dtype=np.float64)
    n = yv.shape[0]
    if n <= max_points:
        return (np.arange(n, dtype=np.float64) if x is None else np.asarray(x, np.float64)), yv
    block = -(-n // (max_points // 2))
    m = n // block
    body = yv[: m * block].reshape(m, block)
    lo_i = body.argmin(axis=1) + np.arange(m) * block
    hi_i = body.argmax(axis=1) + np.arange(m) * block
    idx = np.sort(np.concatenate([lo_i, hi_i, np.arange(m * block, n)]))
    xs = idx.astype(np.float64) if x is None else np.asarray(x, np.float64)[idx]
    return xs, yv[idx]
