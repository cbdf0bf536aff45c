"""Method lanes: one thin row per enabled detector under the series, x-linked to it.

Each lane shows its detector's change points as short ticks (one ``connect="pairs"`` curve, so 10,000
ticks are one item) and its steady-state onset as a bar from the onset to the end, with the
detector's name in its colour at the lane's start (on the lanes' left axis, so the name never
covers a tick). Dense results stay ticks in an 18-px row instead of
full-height walls over the series; the main plot draws full-height lines only for the focused (or
hovered) method. A change point's tick is as tall as its strength (``DetectionResult.strengths``,
:func:`tick_fractions`), full height for methods without one; hovering a tick shows its position
and strength. A glance down a column of lanes shows where the methods agree; the judges'
reference onset is a dotted line across all lanes.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPen
from PySide6.QtWidgets import QGraphicsRectItem

from .navigation import XZoomViewBox
from .series_plot import AXIS_WIDTH, REFERENCE_COLOR
from .style import light_grid

def short_label(label: str) -> str:
    """"KB-KSSD (kernel-based Kelly)" -> "KB-KSSD": names that fit the lanes' axis."""
    return label.split(" (", 1)[0].strip() or label


def tick_fractions(strengths: Sequence[float] | None) -> np.ndarray | None:
    """Height of each change point's tick as a fraction of the full tick (None: all full).

    Strengths in [0, 1] (probabilities, confidences) map as they are; larger ones (a cost
    decrease) relative to the lane's strongest change point. Every tick keeps at least 15 % so
    a weak change point stays visible."""
    if strengths is None:
        return None
    s = np.clip(np.nan_to_num(np.asarray(strengths, dtype=np.float64), nan=0.0), 0.0, None)
    if s.size == 0:
        return s
    top = max(float(s.max()), 1.0)
    return 0.15 + 0.85 * (s / top)


def strength_text(value: float) -> str:
    return f"{value:.3g}"


LANE_PX = 20  # height of one lane in pixels (logical)
TICK = (0.12, 0.88)  # tick extent inside a lane (lane k spans k..k+1, top to bottom)
BAR = (0.32, 0.68)


class Lane:
    """One detector's row; the API of the former full-height markers (positions, region_bounds)."""

    def __init__(self, owner: MethodLanes, name: str, label: str, color: str) -> None:
        self.owner, self.name, self.label = owner, name, label
        short = short_label(label)
        self.short = short if len(short) <= 11 else name
        self.color = QColor(color)
        self.row = 0
        self.visible = False
        self.cps: np.ndarray = np.empty(0)
        self.strengths: np.ndarray | None = None  # one per change point, or None
        self.strength_label = ""
        self.onset: float | None = None
        self.x_end = 0.0
        self.status = ""
        plot = owner.plot
        self.ticks = pg.PlotCurveItem(pen=pg.mkPen(self.color, width=1.5), connect="pairs")
        self.ticks.setZValue(10)
        plot.addItem(self.ticks, ignoreBounds=True)
        self.bar = QGraphicsRectItem()
        fill = QColor(self.color)
        fill.setAlpha(110)
        self.bar.setBrush(QBrush(fill))
        pen = QPen(self.color)
        pen.setCosmetic(True)
        pen.setWidthF(1.0)
        self.bar.setPen(pen)
        self.bar.setZValue(5)
        plot.addItem(self.bar, ignoreBounds=True)
        self.start = pg.PlotCurveItem(pen=pg.mkPen(self.color, width=3))  # the onset's own tick
        self.start.setZValue(11)
        plot.addItem(self.start, ignoreBounds=True)
        self.emphasis = False
        self.tint: QColor | None = None   # the lane's background (the benchmark view's classes)
        self.tint_item: pg.LinearRegionItem | None = None
        self.set_visible(False)

    # -- the drawing API of the explorer
    def set_change_points(self, xs: Sequence[float], _y_span: object = None,
                          strengths: Sequence[float] | None = None,
                          strength_label: str = "") -> None:
        """Ticks at ``xs``; with ``strengths`` (one per change point) each tick's height shows
        its strength (:func:`tick_fractions`) and hovering it shows the value."""
        self.cps = np.asarray(xs, dtype=np.float64)
        if strengths is not None and len(strengths) != self.cps.size:
            raise ValueError(f"{len(strengths)} strengths for {self.cps.size} change points")
        self.strengths = None if strengths is None else np.asarray(strengths, dtype=np.float64)
        self.strength_label = strength_label if strengths is not None else ""
        self._draw()

    def tick_heights(self) -> np.ndarray:
        """Each tick's drawn height in lane units (as in the tick curve's data)."""
        frac = tick_fractions(self.strengths)
        full = TICK[1] - TICK[0]
        return np.full(self.cps.size, full) if frac is None else frac * full

    def tooltip_at(self, x: float, tolerance: float) -> str:
        """The hovered change point (within ``tolerance`` in x) and its strength, or ""."""
        if not self.cps.size:
            return ""
        i = int(np.argmin(np.abs(self.cps - x)))
        if abs(self.cps[i] - x) > tolerance:
            return ""
        text = f"{self.short}: change point at {self.cps[i]:g}"
        if self.strengths is not None:
            text += f"\nstrength {strength_text(self.strengths[i])}"
            if self.strength_label:
                text += f" ({self.strength_label})"
        return text

    def set_onset(self, x_onset: float | None, x_end: float) -> None:
        self.onset = None if x_onset is None else float(x_onset)
        self.x_end = float(x_end)
        self._draw()

    def set_status(self, text: str) -> None:
        self.status = text

    def set_emphasis(self, on: bool) -> None:
        self.emphasis = on
        self.owner.axis.update_names()

    def set_visible(self, visible: bool) -> None:
        self.visible = visible
        if self.tint_item is not None:
            self.tint_item.setVisible(visible and self.tint is not None)
        self.ticks.setVisible(visible)
        self.bar.setVisible(visible and self.onset is not None)
        self.start.setVisible(visible and self.onset is not None)

    def set_tint(self, color: str | None, alpha: int = 60) -> None:
        """Fill the lane's row across the whole x range with ``color`` at ``alpha`` (0-255), under
        its ticks; None: no fill."""
        if color is None:
            self.tint = None
            if self.tint_item is not None:
                self.tint_item.hide()
            return
        self.tint = QColor(color)
        self.tint.setAlpha(alpha)
        if self.tint_item is None:
            self.tint_item = pg.LinearRegionItem(orientation="horizontal", movable=False,
                                                 pen=pg.mkPen(None))
            self.tint_item.setZValue(-20)
            self.owner.plot.addItem(self.tint_item, ignoreBounds=True)
        self.tint_item.setBrush(QBrush(self.tint))
        self._draw()

    def clear(self) -> None:
        self.cps = np.empty(0)
        self.strengths = None
        self.strength_label = ""
        self.onset = None
        self.status = ""
        self._draw()

    def positions(self) -> list[float]:
        return [float(x) for x in self.cps] if self.visible else []

    def visible_count(self) -> int:
        return len(self.positions())

    def region_bounds(self) -> tuple[float, float] | None:
        if not (self.visible and self.onset is not None):
            return None
        return (self.onset, self.x_end)

    def remove(self) -> None:
        for item in (self.ticks, self.bar, self.start, self.tint_item):
            if item is not None:
                self.owner.plot.removeItem(item)

    # -- drawing
    def _draw(self) -> None:
        k = self.row
        if self.tint_item is not None:
            self.tint_item.setRegion((k, k + 1))
            self.tint_item.setVisible(self.visible and self.tint is not None)
        xs = self.cps
        if xs.size:
            bottom = np.full(xs.size, k + TICK[1])  # y grows downwards: ticks rise from the bottom
            ys = np.column_stack([bottom - self.tick_heights(), bottom]).ravel()
            self.ticks.setData(np.repeat(xs, 2), ys)
        else:
            self.ticks.setData([], [])
        if self.onset is None:
            self.bar.hide()
            self.start.hide()
        else:
            self.bar.setRect(QRectF(self.onset, k + BAR[0], max(self.x_end - self.onset, 0.0),
                                    BAR[1] - BAR[0]))
            self.start.setData([self.onset, self.onset], [k + 0.05, k + 0.95])
            self.bar.setVisible(self.visible)
            self.start.setVisible(self.visible)


class LaneAxis(pg.AxisItem):
    """Left axis of the lanes: each lane's name, in its method's colour (bold when focused)."""

    def __init__(self) -> None:
        super().__init__("left")
        self.owner: MethodLanes | None = None

    def update_names(self) -> None:
        if self.owner is None:
            return
        self.setTicks([[(k + 0.5, self.owner.lanes[n].short) for k, n in
                        enumerate(self.owner.order)], []])
        self.picture = None
        self.update()

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs) -> None:  # noqa: N802 (pyqtgraph)
        super().drawPicture(p, axisSpec, tickSpecs, [])
        if self.owner is None:
            return
        by_short = {lane.short: lane for lane in self.owner.lanes.values()}
        font = QFont(self.style["tickFont"] or p.font())
        for rect, flags, text in textSpecs:
            lane = by_short.get(text)
            font.setBold(bool(lane and lane.emphasis))
            p.setFont(font)
            p.setPen(QPen(lane.color if lane else QColor("#202020")))
            p.drawText(rect, int(flags), text)


class MethodLanes:
    """The lanes PlotItem; rows follow the order of ``set_order`` (the enabled methods)."""

    def __init__(self, main: pg.PlotItem, methods: Sequence[tuple[str, str, str]],
                 lane_px: int = LANE_PX) -> None:
        self.main = main
        self.lane_px = lane_px  # the benchmark view's small multiples use thinner lanes
        self.axis = LaneAxis()
        self.axis.owner = self
        self.plot = pg.PlotItem(viewBox=XZoomViewBox(), axisItems={"left": self.axis})
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=True, y=False)
        self.plot.hideButtons()
        light_grid(self.plot, y=False)
        self.axis.setWidth(AXIS_WIDTH)
        self.axis.setStyle(tickLength=0)
        self.axis.setPen(pg.mkPen(None))
        self.plot.getAxis("bottom").setStyle(showValues=False)
        self.plot.setXLink(main)
        self.plot.invertY(True)
        self.plot.vb.setDefaultPadding(0)
        self.order: list[str] = []
        self.lanes: dict[str, Lane] = {name: Lane(self, name, label, color)
                                       for name, label, color in methods}
        self.reference = pg.InfiniteLine(angle=90, movable=False,
                                         pen=pg.mkPen(REFERENCE_COLOR, width=1.5,
                                                      style=Qt.PenStyle.DotLine))
        self.reference.setZValue(40)
        self.reference.hide()
        self.plot.addItem(self.reference, ignoreBounds=True)
        self.plot.vb.sigResized.connect(self._on_resized)
        self.on_hover: Callable[[str | None], None] | None = None
        self.on_click: Callable[[str], None] | None = None
        self._hovered: str | None = None
        self.set_order([])

    def __getitem__(self, name: str) -> Lane:
        return self.lanes[name]

    def set_order(self, names: Sequence[str]) -> None:
        """Show lanes for ``names`` (top to bottom); the others are hidden."""
        self.order = [n for n in names if n in self.lanes]
        n = max(len(self.order), 1)
        for name, lane in self.lanes.items():
            if name in self.order:
                lane.row = self.order.index(name)
                lane.set_visible(True)
                lane._draw()
            else:
                lane.set_visible(False)
        self.axis.update_names()
        self.plot.setLimits(yMin=0, yMax=n)  # limits first: the old ones would clamp the range
        self.plot.setYRange(0, n, padding=0)
        height = self.lane_px * len(self.order) + 4
        self.plot.setMinimumHeight(height if self.order else 0)
        self.plot.setMaximumHeight(height if self.order else 0)
        self.plot.setPreferredHeight(height)
        self.plot.setVisible(bool(self.order))

    def set_reference(self, x: float | None) -> None:
        if x is None:
            self.reference.hide()
        else:
            self.reference.setPos(float(x))
            self.reference.show()

    def lane_at(self, scene_pos: object) -> str | None:
        vb = self.plot.vb
        if not self.order or not vb.sceneBoundingRect().contains(scene_pos):
            return None
        y = vb.mapSceneToView(scene_pos).y()
        k = int(np.floor(y))
        return self.order[k] if 0 <= k < len(self.order) else None

    def scene_moved(self, scene_pos: object) -> None:
        name = self.lane_at(scene_pos)
        self._update_tooltip(name, scene_pos)
        if name != self._hovered:
            self._hovered = name
            if self.on_hover is not None:
                self.on_hover(name)

    def pointer_left(self) -> None:
        """The pointer left the plot (a fast move out sends no last move over the scene): the
        hover ends, so the focused method's lines come back on the series."""
        if self._hovered is not None:
            self._hovered = None
            self.plot.vb.setToolTip("")
            if self.on_hover is not None:
                self.on_hover(None)

    def scene_clicked(self, ev: object) -> None:
        name = self.lane_at(ev.scenePos())
        if name is not None and self.on_click is not None and \
                ev.button() == Qt.MouseButton.LeftButton:
            self.on_click(name)

    def _update_tooltip(self, name: str | None, scene_pos: object) -> None:
        """The hovered tick's position and strength as the lanes' tooltip (6 px either side)."""
        text = ""
        if name is not None:
            vb = self.plot.vb
            x = vb.mapSceneToView(scene_pos).x()
            text = self.lanes[name].tooltip_at(x, 6.0 * vb.viewPixelSize()[0])
        if text != self.plot.vb.toolTip():
            self.plot.vb.setToolTip(text)

    def _on_resized(self) -> None:
        self.axis.update_names()
