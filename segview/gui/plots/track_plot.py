"""Diagnostic tracks under the series plot, x-linked to it, with draggable threshold lines.

A track over the series' samples shares the series' x axis (zoom and pan follow it). A track whose
x is another quantity (``Track.x_label``, e.g. segneigh's criterion against the number of segments)
is a small plot with an x axis of its own, labelled, its points drawn as dots, the detector's
choice (``Track.mark_x``) ringed, its title above the view box: linked to the samples its few
points would sit at the left edge.
A track whose ``threshold_param`` is set gets a movable horizontal line; dropping it calls the
``on_threshold`` callback, which writes the value back through the parameter panel (and so through
the job runner's debounced path). Lines are only moved programmatically while not being dragged.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from ...core.result import Track
from .style import light_grid, peak_downsampling
from .title import ElidedTitle
from .title import install as install_elided_title
from .lanes import short_label
from .series_plot import AXIS_WIDTH

TRACK_HEIGHT = 80
OWN_TITLE_HEIGHT = 18
OWN_AXIS_EXTRA = 58  # a track with its own x axis: room for its title, tick values and axis label
TITLE_HEADROOM = 0.35  # of a fixed-range track's span, above it, for the title


@dataclass
class TrackView:
    """One track's PlotItem and items."""

    method: str
    name: str
    plot: pg.PlotItem
    curve: pg.PlotDataItem
    title: pg.TextItem | ElidedTitle
    threshold: pg.InfiniteLine | None = None
    param: str | None = None
    fixed_range: tuple[float, float] | None = None
    pending: bool = False  # blanked for a new series, its values not there yet
    own_x: bool = False  # x is not the sample index: its own axis, not linked to the series
    mark: pg.ScatterPlotItem | None = None  # ring around the point the detector chose


class TrackStack:
    """Creates and updates the track plots; the owner lays them out (see :meth:`views`)."""

    def __init__(self, main: pg.PlotItem,
                 on_threshold: Callable[[str, str, float], None] | None = None) -> None:
        self.main = main
        self.on_threshold = on_threshold
        self._views: dict[tuple[str, str], TrackView] = {}
        self.focus: str | None = None  # only this method's tracks are shown

    def views(self) -> list[TrackView]:
        """Views to show: the tracks of the focused method, in the detector's order."""
        return [v for v in self._views.values() if v.method == self.focus]

    def all_views(self) -> list[TrackView]:
        return list(self._views.values())

    def view(self, method: str, name: str) -> TrackView:
        return self._views[(method, name)]

    def set_tracks(self, method: str, tracks: tuple[Track, ...], color: str, label: str,
                   params: dict, x_map: Callable[[np.ndarray], np.ndarray]) -> bool:
        """Show ``tracks`` of ``method``; returns True when plots were added or removed."""
        wanted = {t.name for t in tracks}
        stale = [k for k in self._views if k[0] == method and k[1] not in wanted]
        for k in stale:
            del self._views[k]
        added = False
        for t in tracks:
            key = (method, t.name)
            if key in self._views and self._views[key].own_x == t.over_samples:
                del self._views[key]  # the same name now over another x: a plot of the other kind
            if key not in self._views:
                self._views[key] = self._make_view(method, t, color, label)
                added = True
            self._update(self._views[key], t, params, x_map)
        return added or bool(stale)

    def clear_method(self, method: str) -> bool:
        keys = [k for k in self._views if k[0] == method]
        for k in keys:
            del self._views[k]
        return bool(keys)

    def clear(self) -> None:
        self._views.clear()

    def blank(self) -> None:
        """Empty every curve but keep the plots (creating PlotItems is the expensive part).
        Until a track gets the new series' values its y axis shows no numbers and its threshold
        line is hidden: they were the previous series' (:meth:`is_pending`)."""
        for v in self._views.values():
            v.curve.setData([], [])
            if v.mark is not None:
                v.mark.setData([], [])
            v.plot.getAxis("left").setStyle(showValues=False)
            if v.threshold is not None:
                v.threshold.setVisible(False)
            v.pending = True

    def is_pending(self, method: str, name: str) -> bool:
        return self._views[(method, name)].pending

    def _make_view(self, method: str, t: Track, color: str, label: str) -> TrackView:
        plot = pg.PlotItem()
        plot.setMenuEnabled(False)
        light_grid(plot)
        plot.getAxis("left").setWidth(AXIS_WIDTH)
        own = not t.over_samples
        extra = OWN_AXIS_EXTRA if own else 0
        plot.setMaximumHeight(TRACK_HEIGHT * 1.5 + extra)
        plot.setMinimumHeight(TRACK_HEIGHT * 0.5 + extra)
        plot.setPreferredHeight(TRACK_HEIGHT + extra)
        if own:  # a few points against their own quantity: all of them always in view
            plot.setMouseEnabled(x=False, y=False)
            plot.hideButtons()
            plot.showAxis("bottom", True)
            plot.setLabel("bottom", t.x_label)
            curve = pg.PlotDataItem(pen=pg.mkPen(color, width=1), symbol="o", symbolSize=5,
                                    symbolPen=pg.mkPen(color), symbolBrush=pg.mkBrush(color))
        else:
            plot.setMouseEnabled(x=True, y=False)
            plot.getAxis("bottom").setStyle(showValues=False)
            plot.setXLink(self.main)
            curve = pg.PlotDataItem(pen=pg.mkPen(color, width=1))
            peak_downsampling(plot)
        plot.addItem(curve)
        text = f"{short_label(label)}: {t.name}"
        title: pg.TextItem | ElidedTitle
        if own:  # above the view box: over a few points it would hide one (seen on a short screen)
            title = install_elided_title(plot)
            plot.setTitle(text, color=color, size="9pt")
            plot.titleLabel.setMaximumHeight(OWN_TITLE_HEIGHT)  # pyqtgraph's 30 px: room is short
            plot.layout.setRowFixedHeight(0, OWN_TITLE_HEIGHT)
        else:
            title = pg.TextItem(text, color=color, anchor=(0, 0),
                                fill=pg.mkBrush(255, 255, 255, 150))
            title.setParentItem(plot.vb)
            title.setPos(4, 2)
        view = TrackView(method, t.name, plot, curve, title, own_x=own)
        if own:
            view.mark = pg.ScatterPlotItem(size=13, pen=pg.mkPen(color, width=2),
                                           brush=pg.mkBrush(None))
            view.mark.setZValue(15)
            plot.addItem(view.mark)
        if t.threshold_param is not None:
            line = pg.InfiniteLine(angle=0, movable=True,
                                   pen=pg.mkPen(color, width=1.5, style=Qt.PenStyle.DashLine),
                                   hoverPen=pg.mkPen(color, width=3),
                                   label=f"{t.threshold_param} = {{value:.3g}}",
                                   labelOpts={"position": 0.8, "color": color, "anchors": [(0.5, 0), (0.5, 0)],
                                              "fill": (255, 255, 255, 190)})
            line.setZValue(20)
            line.sigPositionChangeFinished.connect(self._threshold_dropped(view))
            plot.addItem(line, ignoreBounds=True)
            view.threshold, view.param = line, t.threshold_param
        return view

    def _threshold_dropped(self, view: TrackView) -> Callable[[pg.InfiniteLine], None]:
        def dropped(line: pg.InfiniteLine) -> None:  # same thread: a plain callback is fine
            if self.on_threshold is not None and view.param is not None:
                self.on_threshold(view.method, view.param, float(line.value()))
        return dropped

    def _update(self, view: TrackView, t: Track, params: dict,
                x_map: Callable[[np.ndarray], np.ndarray]) -> None:
        x = t.xs() if view.own_x else x_map(t.xs())  # only sample indices map to the series' x
        y = np.asarray(t.y, dtype=np.float64)
        view.pending = False
        view.plot.getAxis("left").setStyle(showValues=True)
        if t.kind == "step" and y.size:
            view.curve.setData(x, y, stepMode="right")
        else:
            view.curve.setData(x, y, connect="finite")
        if view.own_x:
            self._fit_own_x(view, t, x, y)
        view.fixed_range = t.y_range
        if t.y_range is not None:
            view.plot.enableAutoRange(y=False)
            lo, hi = t.y_range
            top = hi + TITLE_HEADROOM * (hi - lo)  # the title sits above the values, not on them
            view.plot.setYRange(lo, top, padding=0.05)
            view.plot.setLimits(yMin=lo - 0.05 * (hi - lo), yMax=top + 0.05 * (hi - lo))
        else:
            view.plot.enableAutoRange(y=True)
        if view.threshold is not None and view.param in params:
            value = params[view.param]
            if isinstance(value, (int, float)) and not view.threshold.moving:
                view.threshold.setPos(float(value))
            view.threshold.setVisible(isinstance(value, (int, float)))

    @staticmethod
    def _fit_own_x(view: TrackView, t: Track, x: np.ndarray, y: np.ndarray) -> None:
        """Every point of an own-axis track in view, half a step of room at each end; the chosen
        point ringed."""
        finite = np.unique(x[np.isfinite(x)])  # sorted
        if finite.size:
            pad = 0.5 * (float(np.min(np.diff(finite))) if finite.size > 1 else 1.0)
            view.plot.setXRange(float(finite[0]) - pad, float(finite[-1]) + pad, padding=0)
        if view.mark is None:
            return
        hit = np.flatnonzero(x == t.mark_x) if t.mark_x is not None else np.zeros(0, dtype=int)
        if hit.size and np.isfinite(y[hit[0]]):
            view.mark.setData([float(x[hit[0]])], [float(y[hit[0]])])
        else:
            view.mark.setData([], [])
