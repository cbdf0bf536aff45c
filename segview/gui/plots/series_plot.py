"""The main series plot: peak downsampling, clip-to-view, limits, reference onset and hover readout."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from ...core.model import Series
from .labeled import AnnotationLines, DimensionStack
from .warmup_shade import WarmupShade
from .style import for_display, label_exponent, light_grid, peak_downsampling

SERIES_PEN = "#3a3a3a"
REFERENCE_COLOR = "#000000"
AXIS_WIDTH = 84  # wide enough for the method lanes' names


class SeriesPlot:
    """Wraps the PlotItem showing the current series (x = sample index, or the series' x values)."""

    def __init__(self, plot: pg.PlotItem) -> None:
        self.plot = plot
        light_grid(plot)
        plot.getAxis("left").setWidth(AXIS_WIDTH)
        plot.setMenuEnabled(False)
        plot.setAutoVisible(y=True)  # y fits the samples in view when the wheel zooms x
        self.curve = pg.PlotDataItem(pen=pg.mkPen(SERIES_PEN, width=1))
        peak_downsampling(plot)
        plot.addItem(self.curve)
        self.reference = pg.InfiniteLine(
            angle=90, movable=False, pen=pg.mkPen(REFERENCE_COLOR, width=2, style=Qt.PenStyle.DotLine),
            label="reference", labelOpts={"position": 0.96, "color": REFERENCE_COLOR,
                                          "fill": (255, 255, 255, 200)})
        self.reference.setZValue(30)
        self.reference.hide()
        plot.addItem(self.reference, ignoreBounds=True)
        self.series: Series | None = None
        self._xs = np.zeros(0)
        self.stack = DimensionStack(plot, pg.mkPen(SERIES_PEN, width=1))  # multivariate bands
        self.annotations = AnnotationLines(plot)  # annotators' change points (TCPD)
        self.warmup = WarmupShade(plot)  # the harness's own warm-up iterations
        self._hover: Callable[[str], None] | None = None
        self._proxy: pg.SignalProxy | None = None

    def set_series(self, series: Series) -> None:
        self.series = series
        n = len(series)
        x = self._xs = series.xs()  # once per series: np.arange of 1e7 points is 80 MB and ~50 ms
        # Limits and view range first, on an empty curve, then the data once: every range change
        # re-downsamples the curve, which for 1e7 points cost ~0.1 s each (six of them).
        self.curve.setData(np.zeros(0), np.zeros(0))
        shown, k = for_display(self.stack.display(series))
        label_exponent(self.plot, k)
        span = float(x[-1] - x[0]) if n > 1 else 1.0
        self.plot.setLimits(xMin=float(x[0]) - 0.02 * span, xMax=float(x[-1]) + 0.02 * span,
                            minXRange=min(10.0, span) if span > 0 else 1.0)
        self.reset_view()
        self.curve.setData(x, shown, skipFiniteCheck=True)
        self.warmup.set_series(series, self.x_of)

    def reset_view(self) -> None:
        """Fit the whole series, y auto-ranged; x auto-range stays off so clipping to the view works.

        The x range comes from the series: with clip-to-view on, the curve's own bounds are only
        the samples in view, so ``autoRange()`` would keep the zoom.
        """
        if self.series is None:
            return
        xs = self._xs
        self.plot.setAutoVisible(y=True)
        self.plot.enableAutoRange(x=False, y=True)
        self.plot.setXRange(float(xs[0]), float(xs[-1]) if xs.size > 1 else float(xs[0]) + 1.0,
                            padding=0.02)

    def x_of(self, index: int | float) -> float:
        """Plot x of a sample index."""
        if self.series is None or self.series.x is None:
            return float(index)
        xs = self.series.x
        return float(np.interp(index, np.arange(xs.size), xs))

    def x_end(self) -> float:
        if self.series is None:
            return 0.0
        return float(self._xs[-1]) + (1.0 if self.series.x is None else 0.0)

    def y_span(self) -> tuple[float, float]:
        if self.series is None:
            return (0.0, 1.0)
        if self.series.dims:
            return self.stack.span() or (0.0, 1.0)
        v = self.series.values
        lo, hi = float(v.min()), float(v.max())
        pad = (hi - lo) or 1.0
        return lo - 10 * pad, hi + 10 * pad

    def set_reference(self, index: int | None, text: str = "reference") -> None:
        if index is None:
            self.reference.hide()
            return
        self.reference.setPos(self.x_of(index))
        self.reference.label.setFormat(text)
        self.reference.show()

    def on_hover(self, callback: Callable[[str], None]) -> None:
        """Report the sample under the mouse (rate-limited); call once the plot is in a scene."""
        self._hover = callback
        self._proxy = pg.SignalProxy(self.plot.scene().sigMouseMoved, rateLimit=30,
                                     slot=self._on_scene_mouse_moved)

    def _on_scene_mouse_moved(self, event: tuple) -> None:
        if self._hover is None or self.series is None:
            return
        pos = event[0]
        if not self.plot.sceneBoundingRect().contains(pos):
            return
        p = self.plot.vb.mapSceneToView(pos)
        xs = self._xs
        i = int(np.clip(np.searchsorted(xs, p.x()), 0, xs.size - 1))
        if i > 0 and abs(xs[i - 1] - p.x()) < abs(xs[i] - p.x()):
            i -= 1
        when = self.series.metadata.get("time")
        at = f"  {when[i]}" if isinstance(when, list) and i < len(when) else ""
        self._hover(f"{self.series.id}  index {i}{at}  {self.stack.describe(i)}")
