"""Labeled-data additions to the explorer's plots: multivariate series drawn as stacked bands, the
annotators' change points of a TCPD data set (or a change-point export), and x-axis labels from
TCPD's ``time.raw`` dates. Self-contained: the series plot and the window call in here."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pyqtgraph as pg
from numpy.typing import NDArray
from PySide6.QtCore import Qt

from ...core.model import Series

BAND = 0.85  # height of one dimension's band (bands are 1 apart, the first on top)
ANNOTATOR_COLORS = ("#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
                    "#7f7f7f", "#bcbd22", "#1f77b4")


def bands(series: Series) -> list[tuple[str, NDArray[np.float64], float]]:
    """Each dimension scaled into its band: ``(name, y, band bottom)``, the first dimension on top
    (band ``d - 1``). A constant dimension sits in the middle of its band."""
    d = series.ndim
    out = []
    for k, name in enumerate(series.dims):
        v = series.values[:, k]
        lo, hi = float(v.min()), float(v.max())
        scaled = (v - lo) / (hi - lo) if hi > lo else np.full(v.shape, 0.5)
        base = float(d - 1 - k)
        out.append((name, base + BAND * scaled, base))
    return out


def overview_values(series: Series) -> NDArray[np.float64]:
    """One curve for small views (overview strip, annotator): the values, or for a multivariate
    series the mean of its min-max scaled dimensions."""
    if not series.dims:
        return series.values
    return np.mean([y - base for _, y, base in bands(series)], axis=0)


class DimensionStack:
    """Draws a multivariate series' dimensions stacked in one plot (the series curve carries the
    first band, extra curves the others) and names them on the left axis."""

    def __init__(self, plot: pg.PlotItem, pen: object) -> None:
        self.plot = plot
        self.pen = pen
        self.extra: list[pg.PlotDataItem] = []
        self.series: Series | None = None

    def display(self, series: Series) -> NDArray[np.float64]:
        """The y values for the main curve; adds the other bands and the axis names."""
        self.series = series
        for c in self.extra:
            self.plot.removeItem(c)
        self.extra = []
        axis = self.plot.getAxis("left")
        if not series.dims:
            axis.setTicks(None)
            return series.values
        parts = bands(series)
        x = series.xs()
        for _, y, _ in parts[1:]:
            c = pg.PlotDataItem(x, y, pen=self.pen, skipFiniteCheck=True)
            self.plot.addItem(c)
            self.extra.append(c)
        axis.setTicks([[(base + BAND / 2, name) for name, _, base in parts], []])
        return parts[0][1]

    def span(self) -> tuple[float, float] | None:
        if self.series is None or not self.series.dims:
            return None
        return (-10.0, self.series.ndim + 10.0)

    def describe(self, i: int) -> str:
        s = self.series
        if s is None:
            return ""
        if not s.dims:
            return f"value {s.values[i]:.6g}"
        return "  ".join(f"{name} {s.values[i, k]:.6g}" for k, name in enumerate(s.dims))


class AnnotationLines:
    """Each annotator's change points as dashed vertical lines in the annotator's colour, with a
    legend naming the annotators (and how many points each marked) in the plot's corner."""

    def __init__(self, plot: pg.PlotItem) -> None:
        self.plot = plot
        self.lines: list[pg.InfiniteLine] = []
        self.legend = pg.LegendItem(offset=(8, 4), labelTextSize="8pt", brush=(255, 255, 255, 210),
                                    verSpacing=-6)
        self.legend.setParentItem(plot.vb)
        self.legend.setZValue(40)
        self.legend.hide()

    def set_annotations(self, per_annotator: Mapping[str, Sequence[int]],
                        x_of: object = float) -> None:
        for line in self.lines:
            self.plot.removeItem(line)
        self.lines = []
        self.legend.clear()
        for k, (who, cps) in enumerate(sorted(per_annotator.items(),
                                                     key=lambda kv: (len(kv[0]), kv[0]))):
            color = ANNOTATOR_COLORS[k % len(ANNOTATOR_COLORS)]
            pen = pg.mkPen(color, width=1.5, style=Qt.PenStyle.DashLine)
            for cp in cps:
                line = pg.InfiniteLine(pos=x_of(cp), angle=90, movable=False, pen=pen)
                line.setZValue(25)
                self.plot.addItem(line, ignoreBounds=True)
                self.lines.append(line)
            self.legend.addItem(pg.PlotDataItem(pen=pen),
                                f"annotator {who}: {len(cps)} change point{'' if len(cps) == 1 else 's'}")
        self.legend.setVisible(bool(per_annotator))

    def count(self) -> int:
        return len(self.lines)


def label_axis_with_times(axis: pg.AxisItem, times: Sequence[object] | None,
                          x_values: NDArray[np.float64] | None = None) -> None:
    """Tick labels from ``times`` (TCPD ``time.raw``: the i-th sample's date) instead of sample
    indices; None restores numbers. Ticks between samples get no label."""
    if times is None:
        if "tickStrings" in axis.__dict__:
            del axis.tickStrings
            axis.picture = None
            axis.update()
        return
    texts = [str(t) for t in times]
    one_day = len({t.split(" ", 1)[0] for t in (texts[0], texts[-1])}) == 1
    base = pg.AxisItem.tickStrings

    def tick_strings(values: Sequence[float], scale: float, spacing: float) -> list[str]:
        out = []
        for v in values:
            i = (int(np.searchsorted(x_values, v)) if x_values is not None else int(round(v)))
            ok = 0 <= i < len(texts) and (x_values is not None or abs(v - round(v)) < 1e-6)
            out.append(_short(texts[i], spacing, one_day) if ok else "")
        return out if any(out) else base(axis, values, scale, spacing)

    axis.tickStrings = tick_strings  # type: ignore[method-assign]  # deliberate: this axis instance formats its ticks with our function
    axis.picture = None
    axis.update()


def _short(text: str, spacing: float, one_day: bool) -> str:
    """A date-time within one day shows its time of day; across days it drops the time of day when
    ticks are many samples apart."""
    if " " not in text:
        return text
    day, clock = text.split(" ", 1)
    if one_day:
        return clock
    return day if spacing >= 10 else text
