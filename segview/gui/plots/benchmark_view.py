"""The benchmark view: every process execution of one benchmark, one above the other (small
multiples sharing the x axis) or overlaid, with the harness's warm-up shaded.

Small multiples: one PlotItem per execution in a single :class:`pyqtgraph.GraphicsLayoutWidget`
(one scene, one paint; not a widget per execution), x-linked to the first, each with a
:class:`~.lanes.MethodLanes` strip under it drawing the enabled methods' change points and onset
exactly as the explorer's lanes do (thinner rows, the colours say which method). Curves are
peak-downsampled and clipped to the view; the y range of each execution is fixed to its data, so a
pan or zoom in x redraws the curves and marks but no y axis. Overlaid: one plot with every
execution's curve in its own colour, and one lane per execution with the focused method's result.

Rows are pooled: selecting another benchmark reuses the plot items instead of building new ones.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QCheckBox, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout,
                               QWidget)

from ...core.benchmark import Benchmark, execution_index, warmup_count
from ...core.model import Series
from .classes import CLASS_COLORS, CLASS_LABELS, class_html
from .lanes import MethodLanes
from .navigation import XZoomViewBox
from .series_plot import AXIS_WIDTH, SERIES_PEN
from .style import for_display, light_grid
from .warmup_shade import WarmupShade

ROW_PX = 64  # least height of one execution's plot (logical pixels)
SMALL_LANE_PX = 7  # one method's lane under an execution
OVERLAY_LANE_PX = 10
# Up to this many samples a curve is drawn whole: peak downsampling and clipping recompute every
# curve on every pan (30 x 3,000 samples: ~60 ms per pan), while Qt draws 3,000 points in well
# under a millisecond. Longer executions are peak-downsampled and clipped to the view.
DOWNSAMPLE_ABOVE = 20_000
AXIS_PX = 26  # the shared x axis under the last execution
CLASS_TINT_ALPHA = 34  # an execution's plot background in its warm-up class's colour (0-255)
OVERLAY_CLASS_ALPHA = 70  # an execution's lane under the overlay, in its class's colour (0-255)


def set_curve(curve: pg.PlotDataItem, x: np.ndarray, y: np.ndarray) -> None:
    """``curve.setData`` drawn whole when short, peak-downsampled and clipped when long."""
    long = len(y) > DOWNSAMPLE_ABOVE
    curve.setDownsampling(ds=1, auto=long, method="peak")
    curve.setClipToView(long)
    curve.setData(x, y, skipFiniteCheck=True)


def unlink_axes(plot: pg.PlotItem, names: Sequence[str] = ("top", "right", "bottom")) -> None:
    """Detach axes that are not shown from their view: every x range change re-lays out a linked
    axis' label (``QGraphicsTextItem.setHtml``, ~0.5 ms each), hidden or not; with 60 plots that
    was ~45 ms of every pan."""
    for name in names:
        plot.getAxis(name).unlinkFromView()


def execution_colors(n: int) -> list[str]:
    """``n`` distinguishable colours along viridis (its pale yellow end left out: unreadable on
    white)."""
    cmap = pg.colormap.get("viridis")
    return [cmap.map(0.85 * k / max(n - 1, 1), mode="qcolor").name() for k in range(n)]


def _x_of(series: Series, index: float) -> float:
    if series.x is None:
        return float(index)
    return float(np.interp(index, np.arange(series.x.size), series.x))


def _y_range(values: np.ndarray) -> tuple[float, float]:
    finite = values[np.isfinite(values)] if values.size else values
    if finite.size == 0:
        return 0.0, 1.0
    lo, hi = float(finite.min()), float(finite.max())
    pad = 0.05 * (hi - lo) if hi > lo else (abs(hi) * 0.05 or 1.0)
    return lo - pad, hi + pad


def _fix_height(plot: pg.PlotItem, px: float) -> None:
    plot.setMinimumHeight(px)
    plot.setMaximumHeight(px)
    plot.setPreferredHeight(px)


def _quiet_plot() -> pg.PlotItem:
    plot = pg.PlotItem(viewBox=XZoomViewBox())
    light_grid(plot)
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.getAxis("left").setWidth(AXIS_WIDTH)
    plot.getAxis("bottom").setStyle(showValues=False)
    return plot


class ExecutionRow:
    """One execution: its curve, its warm-up shading and its method lanes."""

    def __init__(self, methods: Sequence[tuple[str, str, str]]) -> None:
        self.plot = _quiet_plot()
        self.plot.setMinimumHeight(ROW_PX)
        self.curve = pg.PlotDataItem(pen=pg.mkPen(SERIES_PEN, width=1))
        self.plot.addItem(self.curve)
        self.shade = WarmupShade(self.plot)
        self.lanes = MethodLanes(self.plot, methods, lane_px=SMALL_LANE_PX)
        self.lanes.axis.setStyle(showValues=False)  # 7-px rows: the colours name the methods
        # the view keeps every row's x range in step itself (BenchmarkView._on_view_x_changed):
        # pyqtgraph's linking maps each range through both views' screen geometry, per link
        self.lanes.plot.setXLink(None)
        unlink_axes(self.plot)
        unlink_axes(self.lanes.plot)
        self.series: Series | None = None
        self.warmup_class: str | None = None

    def _label(self, color: str | None = None) -> None:
        s = self.series
        if s is None:
            return
        k = warmup_count(s)
        text = f"exec {execution_index(s)}" + (f" · w{k}" if k else "")
        if color is not None:
            self.plot.setLabel("left", text, color=color, **{"font-weight": "bold"})
        else:
            self.plot.setLabel("left", text, color="#000000")

    def set_class(self, cls: str | None, color: str | None) -> None:
        """Tint the plot and colour the label by the execution's warm-up class (None: plain)."""
        self.warmup_class = cls
        if color is None:
            self.plot.vb.setBackgroundColor(None)
        else:
            tint = QColor(color)
            tint.setAlpha(CLASS_TINT_ALPHA)
            self.plot.vb.setBackgroundColor(tint)
        self._label(color)

    def set_series(self, series: Series, x_span: tuple[float, float]) -> None:
        self.series = series
        self.set_class(None, None)
        self.plot.setLimits(xMin=x_span[0], xMax=x_span[1])
        shown, _ = for_display(series.values)
        self.plot.enableAutoRange(x=False, y=False)
        self.plot.setYRange(*_y_range(np.asarray(shown)), padding=0)
        set_curve(self.curve, series.xs(), np.asarray(shown))
        self.shade.set_series(series, lambda i: _x_of(series, i))
        for name in self.lanes.lanes:
            self.lanes[name].clear()

    def x_end(self) -> float:
        s = self.series
        if s is None or len(s) == 0:
            return 0.0
        return _x_of(s, len(s) - 1) + (1.0 if s.x is None else 0.0)


class BenchmarkView(QWidget):
    """All executions of a benchmark; ``execution_activated(series_id)`` on a double click."""

    execution_activated = Signal(str)
    mode_changed = Signal(bool)  # True: overlaid

    def __init__(self, methods: Sequence[tuple[str, str, str]],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.methods = list(methods)
        self.color_of = {name: color for name, _label, color in self.methods}
        self.label_of = {name: label for name, label, _color in self.methods}
        self.benchmark: Benchmark | None = None
        self.order: list[str] = []
        self.focus: str | None = None
        self.overlaid = False
        self.rows: list[ExecutionRow] = []  # pooled; the first len(benchmark) are in use
        self._row_of: dict[str, ExecutionRow] = {}
        self._results: dict[tuple[str, str], tuple[list[float], float | None]] = {}
        self._syncing = False
        self._classes: dict[str, str | None] = {}  # series id: warm-up class (issue 27)
        self._class_rule = ""
        self._axis_owner: pg.PlotItem | None = None  # the plot whose bottom axis is shown

        self.title = QLabel(self)
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        self.overlay_box = QCheckBox("Overlay executions", self)
        self.overlay_box.setToolTip("Draw every execution in one plot (each in its own colour, the "
                                    "focused method's result in one lane per execution) instead "
                                    "of one above the other")
        self.overlay_box.toggled.connect(self.set_overlaid)
        head = QHBoxLayout()
        head.setContentsMargins(4, 2, 4, 2)
        head.addWidget(self.title, 1)
        head.addWidget(self.overlay_box)
        self.plot_widget = pg.GraphicsLayoutWidget(self)
        self.layout_item = self.plot_widget.ci
        self.layout_item.setSpacing(0)
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setWidget(self.plot_widget)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addLayout(head)
        lay.addWidget(self.scroll, 1)

        self.overlay_plot = _quiet_plot()
        self.overlay_plot.getAxis("bottom").setStyle(showValues=True)
        self.overlay_curves: list[pg.PlotDataItem] = []
        self.overlay_shades: list[WarmupShade] = []
        self.overlay_lanes: MethodLanes | None = None
        self.plot_widget.scene().sigMouseClicked.connect(self._on_scene_clicked)

    # ------------------------------------------------------------------ content
    def set_benchmark(self, bench: Benchmark, order: Sequence[str], focus: str | None) -> None:
        """Show ``bench``'s executions with lanes for the methods in ``order``."""
        self.benchmark = bench
        self.order = [n for n in order if n in self.color_of]
        self.focus = focus
        self._results.clear()
        self._classes = {}
        execs = list(bench.executions)
        while len(self.rows) < len(execs):
            row = ExecutionRow(self.methods)
            for vb in (row.plot.vb, row.lanes.plot.vb):
                vb.sigXRangeChanged.connect(self._on_view_x_changed)
            self.rows.append(row)
        ends = [float(s.xs()[-1]) if len(s) else 0.0 for s in execs]
        starts = [float(s.xs()[0]) if len(s) else 0.0 for s in execs]
        lo, hi = min(starts), max(ends)
        span = (hi - lo) or 1.0
        x_span = (lo - 0.02 * span, hi + 0.02 * span)
        self._row_of = {}
        for row, s in zip(self.rows, execs):
            row.set_series(s, x_span)
            row.lanes.set_order(self.order)
            self._row_of[s.id] = row
        self._set_title()
        self._build_overlay(execs, x_span)
        self._relayout()
        self.reset_view()

    def _set_title(self) -> None:
        b = self.benchmark
        if b is None:
            self.title.setText("")
            return
        way = {"lower": "lower is better", "higher": "higher is better"}.get(b.direction or "",
                                                                         "direction unknown")
        warm = sorted({warmup_count(s) for s in b.executions})
        warm_text = ("no warm-up recorded by the harness" if warm == [0] else
                     f"harness warm-up (shaded): {'/'.join(map(str, warm))} iterations")
        names = " ".join(f"<span style='color:{self.color_of[n]}'>&#9632; "
                         f"{self.label_of[n].split(' (')[0]}</span>" for n in self.order)
        if self.overlaid:  # the lanes under the overlay are one per execution
            focus = self.label_of.get(self.focus or "", "")
            names = (f"lanes: <span style='color:{self.color_of[self.focus]}'>"
                     f"{focus.split(' (')[0]}</span> on each execution (click a method in the "
                     "Methods list to show another)" if focus else "")
        classes = ""
        if self._classes:
            shown = [c for c in CLASS_LABELS if c in self._classes.values()]
            classes = (f"<br>classes ({self._class_rule}): "
                       + " ".join(class_html(c) for c in shown)
                       + (" (lane background)" if self.overlaid else " (plot background)"))
        self.title.setText(f"<b>{b.name}</b> — {len(b)} executions · {b.harness}"
                           f"{' · ' + b.unit if b.unit else ''} · {way} · {warm_text}"
                           f"{'<br>' + names if names else ''}{classes}")

    def _build_overlay(self, execs: list[Series], x_span: tuple[float, float]) -> None:
        colors = execution_colors(len(execs))
        plot = self.overlay_plot
        while len(self.overlay_curves) < len(execs):
            c = pg.PlotDataItem()
            plot.addItem(c)
            self.overlay_curves.append(c)
        for c in self.overlay_curves[len(execs):]:
            c.setData([], [])
            c.hide()
        lo, hi = np.inf, -np.inf
        for c, s, color in zip(self.overlay_curves, execs, colors):
            shown, _ = for_display(s.values)
            c.setPen(pg.mkPen(color, width=1))
            set_curve(c, s.xs(), np.asarray(shown))
            c.show()
            a, b = _y_range(np.asarray(shown))
            lo, hi = min(lo, a), max(hi, b)
        for shade in self.overlay_shades:
            shade.set_series(None)
        distinct = {}  # one shade per distinct warm-up length
        for s in execs:
            distinct.setdefault(warmup_count(s), s)
        while len(self.overlay_shades) < len(distinct):
            self.overlay_shades.append(WarmupShade(plot))
        for shade, s in zip(self.overlay_shades, distinct.values()):
            shade.set_series(s, lambda i, s=s: _x_of(s, i))
        plot.setLimits(xMin=x_span[0], xMax=x_span[1])
        plot.enableAutoRange(x=False, y=False)
        if np.isfinite(lo):
            plot.setYRange(lo, hi, padding=0)
        old = self.overlay_lanes
        if old is not None:  # its lanes were named after the previous benchmark's executions
            if old.plot in self.layout_item.items:
                self.layout_item.removeItem(old.plot)
            old.plot.setXLink(None)
        named = len(execs) <= 12  # room for each lane's name
        self.overlay_lanes = MethodLanes(plot, [(s.id, f"exec {execution_index(s)}", color)
                                                for s, color in zip(execs, colors)],
                                         lane_px=OVERLAY_LANE_PX + (4 if named else 0))
        self.overlay_lanes.set_order([s.id for s in execs])
        if not named:
            self.overlay_lanes.axis.setStyle(showValues=False)
        plot.setLabel("left", f"{len(execs)} executions")

    def set_classes(self, classes: Mapping[str, str | None] | None, rule: str = "") -> None:
        """Colour each execution by its warm-up class (``{series id: class}``, from the Warm-up
        panel's analysis; None: no colours): its plot's background and its label in small
        multiples, its lane's background under the overlay; a legend joins the title."""
        self._classes = dict(classes or {})
        self._class_rule = rule
        for row in self.rows[:self._used()]:
            cls = self._classes.get(row.series.id) if row.series is not None else None
            row.set_class(cls, CLASS_COLORS.get(cls or ""))
        self._tint_overlay_lanes()
        self._set_title()

    def _tint_overlay_lanes(self) -> None:
        if self.overlay_lanes is None:
            return
        for sid, lane in self.overlay_lanes.lanes.items():
            lane.set_tint(CLASS_COLORS.get(self._classes.get(sid) or ""), OVERLAY_CLASS_ALPHA)

    def overlay_class_color(self, series_id: str) -> str | None:
        """The colour (``#rrggbb``) of an execution's lane under the overlay (None: plain)."""
        lane = None if self.overlay_lanes is None else self.overlay_lanes.lanes.get(series_id)
        return None if lane is None or lane.tint is None else lane.tint.name()

    def execution_class(self, series_id: str) -> str | None:
        """The warm-up class an execution is coloured by (None: not coloured)."""
        row = self._row_of.get(series_id)
        return None if row is None else row.warmup_class

    def set_order(self, order: Sequence[str], focus: str | None) -> None:
        """The enabled methods changed (lanes follow) or the focused one (overlay lanes)."""
        self.order = [n for n in order if n in self.color_of]
        for row in self.rows[:self._used()]:
            row.lanes.set_order(self.order)
        self.set_focus(focus)
        self._set_title()
        self._relayout()

    def set_focus(self, focus: str | None) -> None:
        self.focus = focus
        if self.overlaid:
            self._set_title()
        if self.overlay_lanes is None:
            return
        for sid in self.overlay_lanes.order:
            lane = self.overlay_lanes[sid]
            got = self._results.get((sid, focus)) if focus else None
            if got is None:
                lane.clear()
            else:
                row = self._row_of[sid]
                lane.set_change_points(got[0])
                lane.set_onset(got[1], row.x_end())

    def _used(self) -> int:
        return 0 if self.benchmark is None else len(self.benchmark)

    def set_result(self, series_id: str, method: str, change_points: Sequence[int],
                   onset: int | None) -> bool:
        """Draw one method's result on one execution; False when it is not shown here."""
        row = self._row_of.get(series_id)
        if row is None or row.series is None or method not in self.color_of:
            return False
        s = row.series
        xs = [_x_of(s, c) for c in change_points]
        x_onset = None if onset is None else _x_of(s, onset)
        self._results[(series_id, method)] = (xs, x_onset)
        row.lanes[method].set_change_points(xs)
        row.lanes[method].set_onset(x_onset, row.x_end())
        if method == self.focus and self.overlay_lanes is not None:
            lane = self.overlay_lanes[series_id]
            lane.set_change_points(xs)
            lane.set_onset(x_onset, row.x_end())
        return True

    def clear_method(self, method: str) -> None:
        for row in self.rows[:self._used()]:
            if method in row.lanes.lanes:
                row.lanes[method].clear()
        for key in [k for k in self._results if k[1] == method]:
            del self._results[key]
        if method == self.focus:
            self.set_focus(method)

    def has_result(self, series_id: str, method: str) -> bool:
        return (series_id, method) in self._results

    # ------------------------------------------------------------------ layout and view
    def set_overlaid(self, on: bool) -> None:
        on = bool(on)
        if self.overlay_box.isChecked() != on:
            self.overlay_box.setChecked(on)  # comes back here through toggled
            return
        if on == self.overlaid:
            return
        self.overlaid = on
        self._set_title()
        self._relayout()
        self.reset_view()
        self.mode_changed.emit(on)

    def plots(self) -> list[pg.PlotItem]:
        """The execution plots shown (one in overlay mode)."""
        if self.overlaid:
            return [self.overlay_plot]
        return [row.plot for row in self.rows[:self._used()]]

    def _relayout(self) -> None:
        lay = self.layout_item
        for item in list(lay.items):
            lay.removeItem(item)
        n = self._used()
        if self.overlaid:
            lay.addItem(self.overlay_plot, row=0, col=0)
            lanes = self.overlay_lanes
            if lanes is not None and lanes.order:
                lanes.plot.setVisible(True)
                lanes.plot.showAxis("bottom", False)
                lay.addItem(lanes.plot, row=1, col=0)
            self.overlay_plot.showAxis("bottom", True)
            self.overlay_plot.setVisible(True)
            self.plot_widget.setMinimumHeight(0)
            return
        last = None
        for k, row in enumerate(self.rows[:n]):
            row.plot.setVisible(True)
            row.plot.showAxis("bottom", False)
            lay.addItem(row.plot, row=2 * k, col=0)
            lay.layout.setRowStretchFactor(2 * k, 1)
            last = row.plot
            if row.lanes.order:
                row.lanes.plot.showAxis("bottom", False)
                lay.addItem(row.lanes.plot, row=2 * k + 1, col=0)
                lay.layout.setRowStretchFactor(2 * k + 1, 0)
                last = row.lanes.plot
        for row in self.rows[n:]:
            row.plot.setVisible(False)
            row.lanes.plot.setVisible(False)
        if self._axis_owner is not None and self._axis_owner is not last:
            self._axis_owner.showAxis("bottom", False)
            self._axis_owner.getAxis("bottom").unlinkFromView()
        self._axis_owner = last
        for row in self.rows[:n]:  # lanes back to their own height (set_order's)
            _fix_height(row.lanes.plot, row.lanes.lane_px * len(row.lanes.order) + 4
                        if row.lanes.order else 0)
        if last is not None and last is not self.rows[n - 1].plot:
            # the last lanes carry the x axis: taller by the axis, or the axis squeezes them
            _fix_height(last, last.maximumHeight() + AXIS_PX)
        if last is not None:  # one x axis, under the last execution
            last.showAxis("bottom", True)
            last.getAxis("bottom").setStyle(showValues=True)
            last.getAxis("bottom").linkToView(last.vb)
        lane_px = SMALL_LANE_PX * len(self.order) + 4 if self.order else 0
        self.plot_widget.setMinimumHeight(n * (ROW_PX + lane_px) + 30)

    def reset_view(self) -> None:
        """Every execution in full (x), y fitted to each execution's data."""
        b = self.benchmark
        if b is None or not len(b):
            return
        execs = list(b.executions)
        lo = min(float(s.xs()[0]) for s in execs if len(s)) if any(len(s) for s in execs) else 0.0
        hi = max((_x_of(s, len(s) - 1) for s in execs if len(s)), default=1.0)
        for plot in ([self.overlay_plot] if self.overlaid else [self.rows[0].plot]):
            plot.setXRange(lo, hi if hi > lo else lo + 1.0, padding=0.02)
        if self.overlaid:
            return
        for row in self.rows[:self._used()]:
            if row.series is not None:
                shown, _ = for_display(row.series.values)
                row.plot.setYRange(*_y_range(np.asarray(shown)), padding=0)

    def _on_view_x_changed(self, vb: pg.ViewBox, rng: object) -> None:
        """One execution's x range changed (pan, zoom, View all): every other follows."""
        if self._syncing:
            return
        self._syncing = True
        try:
            lo, hi = float(rng[0]), float(rng[1])
            for row in self.rows[:self._used()]:
                for other in (row.plot.vb, row.lanes.plot.vb):
                    if other is not vb:
                        other.setXRange(lo, hi, padding=0)
        finally:
            self._syncing = False

    def x_range(self) -> tuple[float, float]:
        lo, hi = self.plots()[0].vb.viewRange()[0]
        return float(lo), float(hi)

    def _on_scene_clicked(self, ev: object) -> None:
        if not ev.double() or ev.button() != Qt.MouseButton.LeftButton:
            return
        pos = ev.scenePos()
        for row in self.rows[:self._used()]:
            if row.series is not None and row.plot.sceneBoundingRect().contains(pos):
                self.execution_activated.emit(row.series.id)
                return
