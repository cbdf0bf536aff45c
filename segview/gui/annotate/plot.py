"""The annotation plot: one series against its sample index, with the judge's own marks.

* Steady-state protocol: a movable onset line (bounded to ``0..n-1``) and a highlighted dot on the
  snapped sample; the readout shows index and value.
* Change-point protocol: several movable lines (bounded to ``1..n-1``); a drag moves one, a right
  click (or :meth:`remove_nearest`) removes the nearest.

A plain left click saves nothing (an accidental click must not become a label): it places a
**pending** mark on the **nearest** sample (``round(x)``, not the truncation of the study's tool) —
the keyboard cursor moves there, drawn solid with a hollow dot and "Enter saves · Esc discards" —
and the window saves it when the judge presses Enter or O (:meth:`take_pending`), or puts the
cursor back on Esc (:meth:`discard_pending`).

Edits are reported through signals only when they are final (``sigPositionChangeFinished`` after a
drag, an add or remove), so the window commits each one exactly once. Overlays of other judges and
detectors (review mode) are separate, non-interactive items.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor

from ..plots.navigation import XZoomViewBox
from ..plots.overview import PanViewBox
from ..plots.style import envelope, for_display, label_exponent, light_grid, peak_downsampling

SERIES_PEN = "#3a3a3a"
CURSOR_COLOR = "#6a1b9a"
ONSET_COLOR = "#0072B2"
CP_COLOR = "#D55E00"
STEADY_FILL = (0, 114, 178, 28)
HIT_PIXELS = 6.0  # a click this close to a change-point line grabs it instead of marking a new one
SAMPLE_DOTS_BELOW = 400  # samples in view


class AnnotationPlot(pg.PlotWidget):
    """Plot widget of the annotation window (x = sample index)."""

    onset_picked = Signal(int)  # steady protocol: finished drag, snapped index
    pending_placed = Signal(int)  # a plain click: a mark on this sample, not saved yet
    change_points_edited = Signal(object)  # change-point protocol: sorted tuple after an edit
    cursor_moved = Signal(str)  # readout of the sample under the mouse

    def __init__(self, parent: object = None) -> None:
        super().__init__(parent, background="w", viewBox=XZoomViewBox())
        light_grid(self.plotItem)
        self.plotItem.setMenuEnabled(False)
        self.plotItem.getViewBox().setMenuEnabled(False)
        self.plotItem.getAxis("left").setWidth(64)
        self.plotItem.setLabel("bottom", "sample index")
        self.curve = pg.PlotDataItem(pen=pg.mkPen(SERIES_PEN, width=1))
        peak_downsampling(self.plotItem)
        self.plotItem.addItem(self.curve)
        self.plotItem.setAutoVisible(y=True)  # y fits the samples in view when zoomed in x
        self.plotItem.getViewBox().sigXRangeChanged.connect(self._on_x_range)
        self._symbols = False
        self.describe_sample: Callable[[int], str] | None = None
        self.values = np.empty(0)
        self.protocol = "steady_state"
        # onset line, its steady region and the snapped-sample dot
        self.region = pg.LinearRegionItem(movable=False, brush=pg.mkBrush(*STEADY_FILL),
                                          pen=pg.mkPen(None))
        self.region.setZValue(-5)
        self.region.hide()
        self.plotItem.addItem(self.region, ignoreBounds=True)
        self.onset_line = pg.InfiniteLine(
            angle=90, movable=True, pen=pg.mkPen(ONSET_COLOR, width=2),
            hoverPen=pg.mkPen(ONSET_COLOR, width=4), label="",
            labelOpts={"position": 0.94, "color": ONSET_COLOR, "fill": (255, 255, 255, 220),
                       "anchors": [(0, 0), (0, 0)]})
        self.onset_line.setZValue(40)
        self.onset_line.hide()
        self.onset_line.sigPositionChanged.connect(self._on_onset_dragging)
        self.onset_line.sigPositionChangeFinished.connect(self._on_onset_drag_finished)
        self.plotItem.addItem(self.onset_line, ignoreBounds=True)
        self.dot = pg.ScatterPlotItem(size=11, pen=pg.mkPen("w", width=1.5),
                                      brush=pg.mkBrush(ONSET_COLOR))
        self.dot.setZValue(45)
        self.plotItem.addItem(self.dot, ignoreBounds=True)
        # the keyboard cursor: arrows, Home/End and typed indices move it; Enter acts at it
        self.cursor = 0
        self.cursor_line = pg.InfiniteLine(
            angle=90, movable=False, pen=pg.mkPen(CURSOR_COLOR, width=1.5, style=Qt.PenStyle.DashLine),
            label="", labelOpts={"position": 0.06, "color": CURSOR_COLOR,
                                 "fill": (255, 255, 255, 220), "anchors": [(0, 1), (0, 1)]})
        self.cursor_line.setZValue(35)
        self.cursor_line.hide()
        self.plotItem.addItem(self.cursor_line, ignoreBounds=True)
        # a click's pending mark: the cursor, solid, with a hollow dot on the sample (not saved)
        self.pending: int | None = None
        self._pending_from = 0  # where the cursor was before the click (Esc goes back there)
        self.pending_dot = pg.ScatterPlotItem(size=13, pen=pg.mkPen(CURSOR_COLOR, width=2),
                                              brush=pg.mkBrush(255, 255, 255, 230))
        self.pending_dot.setZValue(46)
        self.plotItem.addItem(self.pending_dot, ignoreBounds=True)
        self.onset: int | None = None
        self.cp_lines: list[pg.InfiniteLine] = []
        self.overlays: list[pg.GraphicsObject] = []
        self._cursor_x: float | None = None
        self.scene().sigMouseClicked.connect(self._on_scene_clicked)
        self.scene().sigMouseMoved.connect(self._on_scene_moved)

    # ------------------------------------------------------------------ data
    def set_series(self, values: np.ndarray, protocol: str) -> None:
        """Show new values (clears the marks and overlays and fits the view)."""
        self.protocol = protocol
        self.values = np.asarray(values, dtype=np.float64)
        n = len(self.values)
        self.shown, k = for_display(self.values)  # drawn values; readouts use self.values
        self.curve.setData(np.arange(n, dtype=np.float64), self.shown, skipFiniteCheck=True)
        label_exponent(self.plotItem, k)
        self.plotItem.setLimits(xMin=-0.02 * n, xMax=1.02 * n, minXRange=min(10.0, max(n, 1)))
        self.onset_line.setBounds((0, max(n - 1, 0)))
        self.set_onset(None)
        self.pending = None
        self.set_cursor(0, reveal=False)
        self._set_cp_lines(())
        self.clear_overlays()
        self.reset_view()

    def _on_x_range(self, _vb: object, rng: tuple[float, float]) -> None:
        """Show the individual samples as dots once few enough are in view (precise clicks)."""
        want = (rng[1] - rng[0]) <= SAMPLE_DOTS_BELOW
        if want != self._symbols:
            self._symbols = want
            if want:
                self.curve.setSymbol("o")
                self.curve.setSymbolSize(4)
                self.curve.setSymbolPen(None)
                self.curve.setSymbolBrush(pg.mkBrush(SERIES_PEN))
            else:
                self.curve.setSymbol(None)

    @property
    def n(self) -> int:
        return len(self.values)

    def reset_view(self) -> None:
        """Fit the whole series (the R key), y auto-ranged to the samples in view.

        The x range comes from the series: with clip-to-view on, the curve's own bounds are only
        the samples in view, so ``autoRange()`` would keep the zoom.
        """
        self.plotItem.enableAutoRange(x=False, y=True)
        self.plotItem.setXRange(0.0, float(max(self.n - 1, 1)), padding=0.02)

    def snap(self, x: float) -> int:
        """The nearest sample index to plot coordinate ``x`` (clipped to the series)."""
        return int(np.clip(np.floor(x + 0.5), 0, max(self.n - 1, 0)))

    def readout(self, index: int) -> str:
        if self.describe_sample is not None:  # e.g. every dimension of a multivariate series
            return f"sample {index}  {self.describe_sample(index)}"
        return f"sample {index}  value {self.values[index]:.6g}"

    # ------------------------------------------------------------------ keyboard cursor
    def set_cursor(self, index: int, reveal: bool = True) -> int:
        """Put the cursor on sample ``index`` (clipped); with ``reveal`` the view pans to it."""
        if self.n == 0:
            self.cursor_line.hide()
            return 0
        self.cursor = int(np.clip(index, 0, self.n - 1))
        self.cursor_line.setValue(self.cursor)
        if self.pending is not None:  # the keys move a pending mark with the cursor
            self.pending = self.cursor
        self._draw_pending()
        self.cursor_line.show()
        if reveal:
            (x0, x1), _ = self.plotItem.getViewBox().viewRange()
            if not x0 <= self.cursor <= x1:
                half = 0.5 * (x1 - x0)
                self.plotItem.setXRange(self.cursor - half, self.cursor + half, padding=0)
        self.cursor_moved.emit(self.readout(self.cursor))
        return self.cursor

    # ------------------------------------------------------------------ pending click
    def place_pending(self, index: int) -> int:
        """A click's mark on sample ``index``: the cursor moves there, nothing is saved."""
        if self.pending is None:
            self._pending_from = self.cursor
        self.pending = int(np.clip(index, 0, max(self.n - 1, 0)))
        return self.set_cursor(self.pending, reveal=False)

    def take_pending(self) -> int | None:
        """The pending mark's sample (None: no click pending); the mark becomes the cursor."""
        k, self.pending = self.pending, None
        self._draw_pending()
        return k

    def discard_pending(self) -> int | None:
        """Forget the pending mark (returns its sample, None if there was none); the cursor goes
        back to where it was before the click."""
        k = self.take_pending()
        if k is not None:
            self.set_cursor(self._pending_from, reveal=False)
        return k

    def _draw_pending(self) -> None:
        k = self.pending
        style = Qt.PenStyle.DashLine if k is None else Qt.PenStyle.SolidLine
        self.cursor_line.setPen(pg.mkPen(CURSOR_COLOR, width=1.5 if k is None else 2, style=style))
        if k is None or self.n == 0:
            self.cursor_line.label.setFormat(f"cursor {self.cursor}")
            self.pending_dot.setData([], [])
            return
        what = "onset" if self.protocol == "steady_state" else "change point"
        self.cursor_line.label.setFormat(f"{what} {k}? Enter saves · Esc discards")
        self.pending_dot.setData([k], [self.shown[k]])

    # ------------------------------------------------------------------ onset
    def set_onset(self, index: int | None) -> None:
        """Show the onset (None hides it); does not emit."""
        self.onset = None if index is None else int(index)
        if self.onset is None or self.protocol != "steady_state":
            self.onset_line.hide()
            self.region.hide()
            self.dot.setData([], [])
            return
        self.onset_line.blockSignals(True)
        self.onset_line.setValue(self.onset)
        self.onset_line.blockSignals(False)
        self.onset_line.show()
        self.region.setRegion((self.onset, self.n - 1))
        self.region.show()
        self._mark(self.onset)

    def _mark(self, index: int) -> None:
        self.dot.setData([index], [self.shown[index]])
        self.onset_line.label.setFormat(f"onset {index}\n{self.values[index]:.6g}")

    def _on_onset_dragging(self, line: pg.InfiniteLine) -> None:
        k = self.snap(line.value())
        self._mark(k)
        self.region.setRegion((k, self.n - 1))

    def _on_onset_drag_finished(self, line: pg.InfiniteLine) -> None:
        k = self.snap(line.value())
        self.set_onset(k)
        self.onset_picked.emit(k)

    # ------------------------------------------------------------------ change points
    def change_points(self) -> tuple[int, ...]:
        return tuple(sorted({self.snap(ln.value()) for ln in self.cp_lines}))

    def set_change_points(self, cps: Sequence[int]) -> None:
        """Show the judge's change points (does not emit)."""
        self._set_cp_lines(cps)

    def _set_cp_lines(self, cps: Sequence[int]) -> None:
        for ln in self.cp_lines:
            self.plotItem.removeItem(ln)
        self.cp_lines = []
        if self.protocol != "change_points":
            return
        for k, c in enumerate(sorted(set(int(c) for c in cps))):
            # labels right of their line, staggered so that close change points stay readable
            ln = pg.InfiniteLine(pos=c, angle=90, movable=True, pen=pg.mkPen(CP_COLOR, width=2),
                                 hoverPen=pg.mkPen(CP_COLOR, width=4), label=str(c),
                                 labelOpts={"position": 0.96 - 0.05 * (k % 3), "color": CP_COLOR,
                                            "fill": (255, 255, 255, 220),
                                            "anchors": [(0, 0), (0, 0)]})
            ln.setBounds((1, max(self.n - 1, 1)))
            ln.setZValue(40)
            ln.sigPositionChanged.connect(self._on_cp_dragging)
            ln.sigPositionChangeFinished.connect(self._on_cp_drag_finished)
            self.plotItem.addItem(ln, ignoreBounds=True)
            self.cp_lines.append(ln)

    def _on_cp_dragging(self, line: pg.InfiniteLine) -> None:
        line.label.setFormat(str(self.snap(line.value())))

    def _on_cp_drag_finished(self, line: pg.InfiniteLine) -> None:
        line.setValue(self.snap(line.value()))
        cps = self.change_points()
        self._set_cp_lines(cps)
        self.change_points_edited.emit(cps)

    def add_change_point(self, index: int) -> bool:
        if not 0 < index < self.n or index in self.change_points():
            return False
        cps = tuple(sorted((*self.change_points(), int(index))))
        self._set_cp_lines(cps)
        self.change_points_edited.emit(cps)
        return True

    def remove_nearest(self, x: float | None = None) -> int | None:
        """Remove the change point nearest to ``x`` (default: the mouse, else the keyboard cursor)."""
        cps = self.change_points()
        if not cps:
            return None
        if x is None:
            x = self._cursor_x
        if x is None:
            x = float(self.cursor)  # the keyboard cursor
        victim = min(cps, key=lambda c: abs(c - x))
        rest = tuple(c for c in cps if c != victim)
        self._set_cp_lines(rest)
        self.change_points_edited.emit(rest)
        return victim

    def _near_line(self, x: float) -> bool:
        vb = self.plotItem.getViewBox()
        px = vb.viewPixelSize()[0] or 1.0
        return any(abs(ln.value() - x) <= HIT_PIXELS * px for ln in self.cp_lines)

    # ------------------------------------------------------------------ mouse
    def _in_view(self, scene_pos: QPointF) -> bool:
        return self.plotItem.getViewBox().sceneBoundingRect().contains(scene_pos)

    def _on_scene_clicked(self, ev: object) -> None:
        if self.n == 0 or ev.double() or not self._in_view(ev.scenePos()):
            return
        x = self.plotItem.getViewBox().mapSceneToView(ev.scenePos()).x()
        if ev.button() == Qt.MouseButton.LeftButton:
            # a mark to confirm, never a label at once (a change-point line grabs its own clicks)
            if self.protocol == "steady_state" or not self._near_line(x):
                self.pending_placed.emit(self.place_pending(self.snap(x)))
        elif ev.button() == Qt.MouseButton.RightButton and self.protocol == "change_points":
            self.remove_nearest(x)

    def _on_scene_moved(self, pos: QPointF) -> None:
        if self.n == 0 or not self._in_view(pos):
            self._cursor_x = None
            return
        self._cursor_x = self.plotItem.getViewBox().mapSceneToView(pos).x()
        self.cursor_moved.emit(self.readout(self.snap(self._cursor_x)))

    def view_to_widget(self, x: float, y: float) -> QPointF:
        """Widget (viewport) coordinates of a data point; used by tests to click precisely."""
        scene = self.plotItem.getViewBox().mapViewToScene(QPointF(x, y))
        return self.mapFromScene(scene)

    # ------------------------------------------------------------------ review overlays
    def clear_overlays(self) -> None:
        for item in self.overlays:
            self.plotItem.removeItem(item)
        self.overlays = []

    def add_overlay_lines(self, xs: Sequence[float], color: str, label: str,
                          style: Qt.PenStyle = Qt.PenStyle.DashLine, position: float = 0.1) -> None:
        """Non-interactive marks (another judge's onset / change points, a detector's output)."""
        for k, x in enumerate(xs):
            ln = pg.InfiniteLine(pos=float(x), angle=90, movable=False,
                                 pen=pg.mkPen(QColor(color), width=1.5, style=style),
                                 label=label if k == 0 else None,
                                 labelOpts={"position": position, "color": color,
                                            "fill": (255, 255, 255, 210),
                                            "anchors": [(0, 0), (0, 0)]})
            ln.setZValue(20)
            self.plotItem.addItem(ln, ignoreBounds=True)
            self.overlays.append(ln)


class OverviewStrip(pg.PlotWidget):
    """The whole series, small, with the main plot's visible x range as a draggable region."""

    def __init__(self, main: AnnotationPlot, parent: object = None) -> None:
        vb = PanViewBox(None)  # click or drag anywhere: the main view centres there
        super().__init__(parent, background="w", viewBox=vb)
        vb.owner = self
        self.main = main
        self.setFixedHeight(70)
        self.plotItem.hideAxis("bottom")
        left = self.plotItem.getAxis("left")  # same width as the main plot's axis: x aligned
        left.setWidth(64)
        left.setStyle(showValues=False, tickLength=0)
        left.setPen(pg.mkPen(None))
        self.plotItem.setMenuEnabled(False)
        self.plotItem.setMouseEnabled(x=False, y=False)
        self.plotItem.hideButtons()
        self.curve = pg.PlotDataItem(pen=pg.mkPen("#777777", width=1))
        self.plotItem.setDownsampling(ds=1, auto=False)  # see plots/overview.py: envelope instead
        self.plotItem.addItem(self.curve)
        self.region = pg.LinearRegionItem(brush=pg.mkBrush(0, 114, 178, 40),
                                          pen=pg.mkPen(ONSET_COLOR, width=1))
        self.region.setZValue(10)
        self.plotItem.addItem(self.region, ignoreBounds=True)
        self.region.sigRegionChanged.connect(self._on_region)
        main.plotItem.getViewBox().sigXRangeChanged.connect(self._on_main_range)

    def set_values(self, values: np.ndarray) -> None:
        x, y = envelope(None, for_display(values)[0])
        self.curve.setData(x, y, skipFiniteCheck=True)
        self.plotItem.autoRange(padding=0.02)
        self._on_main_range(None, self.main.plotItem.getViewBox().viewRange()[0])

    def center_on(self, x: float) -> None:
        (lo, hi), _ = self.main.plotItem.getViewBox().viewRange()
        half = 0.5 * (hi - lo)
        self.main.plotItem.setXRange(x - half, x + half, padding=0)

    def _on_region(self, region: pg.LinearRegionItem) -> None:
        lo, hi = region.getRegion()
        if hi > lo:
            self.main.plotItem.setXRange(lo, hi, padding=0)

    def _on_main_range(self, _vb: object, rng: tuple[float, float]) -> None:
        self.region.blockSignals(True)
        self.region.setRegion(tuple(rng))
        self.region.blockSignals(False)
