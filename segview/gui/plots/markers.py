"""Detector overlays on the series plot: pooled change-point lines and a shaded onset region.

Each lane (detector) keeps a pool of ``InfiniteLine`` items that are moved with ``setPos`` and hidden
when surplus, so a slider tick never recreates items. Above ``PAIRS_THRESHOLD`` change points a single
``PlotCurveItem(connect="pairs")`` draws them all, with a solid 1-px pen: Qt dashes a stroked line
over its whole length, and 10,000 dashed lines spanning the series' range took 25 s to paint.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

PAIRS_THRESHOLD = 200


class LaneMarkers:
    """Change points and onset of one detector on a PlotItem."""

    def __init__(self, plot: pg.PlotItem, color: str, name: str, z: float = 10) -> None:
        self.plot, self.name, self.z = plot, name, z
        self.color = QColor(color)
        self.pen = pg.mkPen(self.color, width=1.5, style=Qt.PenStyle.DashLine)
        self.lines: list[pg.InfiniteLine] = []
        self._n_used = 0
        self.curve = pg.PlotCurveItem(pen=pg.mkPen(self.color, width=1), connect="pairs")
        self.curve.setZValue(z)
        self.curve.hide()
        plot.addItem(self.curve, ignoreBounds=True)
        self.region = pg.LinearRegionItem(movable=False, pen=pg.mkPen(self.color, width=2.5))
        self.region.setZValue(z - 5)
        self.region.hide()
        plot.addItem(self.region, ignoreBounds=True)
        self.visible = True
        self.set_emphasis(False)
        self.cps: np.ndarray = np.empty(0)
        self.onset: float | None = None

    def set_emphasis(self, on: bool) -> None:
        """Shade the steady region of the focused method only; others show just its start line."""
        fill = QColor(self.color)
        fill.setAlpha(45 if on else 0)
        self.region.setBrush(pg.mkBrush(fill))
        self.region.update()

    def set_change_points(self, xs: Sequence[float], y_span: tuple[float, float]) -> None:
        xs = np.asarray(xs, dtype=np.float64)
        self.cps = xs
        if xs.size > PAIRS_THRESHOLD:
            for line in self.lines:
                line.hide()
            self._n_used = 0
            lo, hi = y_span
            self.curve.setData(np.repeat(xs, 2), np.tile([lo, hi], xs.size))
            self.curve.setVisible(self.visible)
            return
        self.curve.hide()
        while len(self.lines) < xs.size:
            line = pg.InfiniteLine(angle=90, movable=False, pen=self.pen)
            line.setZValue(self.z)
            self.plot.addItem(line, ignoreBounds=True)
            self.lines.append(line)
        for i, line in enumerate(self.lines):
            if i < xs.size:
                line.setPos(float(xs[i]))
                line.setVisible(self.visible)
            else:
                line.hide()
        self._n_used = int(xs.size)

    def set_onset(self, x_onset: float | None, x_end: float) -> None:
        self.onset = x_onset
        if x_onset is None:
            self.region.hide()
            return
        self.region.setRegion((float(x_onset), float(x_end)))
        self.region.setVisible(self.visible)

    def set_visible(self, visible: bool) -> None:
        self.visible = visible
        for i, line in enumerate(self.lines):
            line.setVisible(visible and i < self._n_used)
        self.curve.setVisible(visible and self.cps.size > PAIRS_THRESHOLD)
        self.region.setVisible(visible and self.onset is not None)

    def clear(self) -> None:
        self.set_change_points([], (0.0, 1.0))
        self.set_onset(None, 0.0)

    def positions(self) -> list[float]:
        """Positions of the change-point markers currently shown."""
        if not self.visible:
            return []
        if self.cps.size > PAIRS_THRESHOLD:
            return [float(x) for x in self.cps]
        return [float(self.lines[i].value()) for i in range(self._n_used)]

    def visible_count(self) -> int:
        return len(self.positions())

    def region_bounds(self) -> tuple[float, float] | None:
        if not (self.visible and self.onset is not None):
            return None
        return tuple(float(v) for v in self.region.getRegion())  # type: ignore[return-value]  # a region has exactly two ends; tuple() of a generator is typed variadic

    def remove(self) -> None:
        for item in [*self.lines, self.curve, self.region]:
            self.plot.removeItem(item)
        self.lines.clear()
