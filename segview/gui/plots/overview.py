"""A small overview strip of the whole series whose region follows the main plot's x range."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt

from ...core.model import Series
from .labeled import overview_values
from .series_plot import AXIS_WIDTH, SERIES_PEN
from .style import envelope, for_display


class PanViewBox(pg.ViewBox):
    """Click or drag anywhere on the strip: the main view centres there (keeps its width), so the
    view pans even when its region is too narrow to grab at full zoom."""

    def __init__(self, owner: Overview) -> None:
        super().__init__(enableMenu=False)
        self.owner = owner

    def mouseClickEvent(self, ev) -> None:  # noqa: N802 (Qt override)
        if ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            self.owner.center_on(self.mapSceneToView(ev.scenePos()).x())

    def mouseDragEvent(self, ev, axis=None) -> None:  # noqa: N802
        if ev.button() != Qt.MouseButton.LeftButton:
            ev.ignore()
            return
        ev.accept()
        self.owner.center_on(self.mapSceneToView(ev.scenePos()).x())

    def wheelEvent(self, ev, axis=None) -> None:  # noqa: N802
        ev.ignore()


class Overview:
    """Overview PlotItem; dragging its region pans the main plot and vice versa."""

    def __init__(self, main: pg.PlotItem) -> None:
        self.main = main
        self.plot = pg.PlotItem(viewBox=PanViewBox(self))
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.getAxis("left").setWidth(AXIS_WIDTH)
        self.plot.getAxis("left").setStyle(showValues=False)
        self.plot.setMaximumHeight(70)
        self.plot.setMinimumHeight(45)  # stays usable when many tracks share a short window
        self.curve = pg.PlotDataItem(pen=pg.mkPen(SERIES_PEN, width=1))
        # No automatic downsampling here: pyqtgraph picks its factor from the strip's width when the
        # data arrive, before the window is laid out (a few pixels wide), and keeps it while the
        # range does not change, so the strip showed a 75x-decimated sawtooth. The envelope below
        # already caps the curve at 8192 points with every block's peaks.
        self.plot.setDownsampling(ds=1, auto=False)
        self.plot.setClipToView(False)
        self.plot.addItem(self.curve)
        self.region = pg.LinearRegionItem(brush=pg.mkBrush(80, 120, 200, 40))
        self.region.setZValue(10)
        self.plot.addItem(self.region, ignoreBounds=True)
        self.region.sigRegionChanged.connect(self._on_region_changed)
        main.vb.sigXRangeChanged.connect(self._on_main_range_changed)

    def set_series(self, series: Series) -> None:
        x, y = envelope(series.x, for_display(overview_values(series))[0])
        self.curve.setData(x, y, skipFiniteCheck=True)
        self.plot.autoRange(padding=0.01)  # the default pads a 70 px strip by ~10 % on each side
        self._on_main_range_changed(self.main, self.main.viewRange()[0])

    def sync(self) -> None:
        """Make the region match the main plot's x range (after programmatic range changes)."""
        self._on_main_range_changed(self.main.vb, self.main.vb.viewRange()[0])

    def center_on(self, x: float) -> None:
        lo, hi = self.main.vb.viewRange()[0]
        half = 0.5 * (hi - lo)
        self.main.setXRange(x - half, x + half, padding=0)
        self.sync()

    def _on_region_changed(self, region: pg.LinearRegionItem) -> None:
        lo, hi = region.getRegion()
        if hi > lo:
            self.main.setXRange(lo, hi, padding=0)

    def _on_main_range_changed(self, _vb: object, rng: tuple[float, float]) -> None:
        with QSignalBlocker(self.region):
            self.region.setRegion(rng)
