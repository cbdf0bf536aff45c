"""The harness's warm-up iterations shaded on a plot (:func:`segview.core.benchmark.warmup_count`).

A harness such as JMH or pyperf records its first iterations of each process execution as warm-up
itself; segview keeps them in the series and shades them, so a detector's onset can be read against
what the harness discarded. One grey, non-movable region from the first sample to the first measured
one (sample ``k``), under the data, outside auto-range.
"""
from __future__ import annotations

from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtGui import QColor

from ...core.benchmark import warmup_count
from ...core.model import Series

WARMUP_FILL = QColor(120, 120, 120, 45)
WARMUP_EDGE = QColor(120, 120, 120, 160)


class WarmupShade:
    """A shaded region over the harness's warm-up iterations of the series shown on ``plot``."""

    def __init__(self, plot: pg.PlotItem) -> None:
        self.plot = plot
        self.region = pg.LinearRegionItem(movable=False, brush=pg.mkBrush(WARMUP_FILL),
                                          pen=pg.mkPen(WARMUP_EDGE, width=1))
        self.region.setZValue(-20)  # under the curve and the detectors' marks
        self.region.setToolTip("iterations the harness recorded as warm-up")
        self.region.hide()
        plot.addItem(self.region, ignoreBounds=True)
        self.count = 0

    def set_series(self, series: Series | None, x_of: Callable[[int], float] | None = None) -> None:
        """Shade ``series``' warm-up (hidden when it has none); ``x_of`` maps a sample index to
        plot x (default: the index)."""
        self.count = 0 if series is None else warmup_count(series)
        if not self.count:
            self.region.hide()
            return
        to_x = x_of or float
        self.region.setRegion((to_x(0), to_x(self.count)))
        self.region.show()

    def bounds(self) -> tuple[float, float] | None:
        """The shaded x range, or None when nothing is shaded."""
        if not self.region.isVisible():
            return None
        lo, hi = self.region.getRegion()
        return float(lo), float(hi)
