"""pyqtgraph figures of the evaluation view: agreement bars per method, onset-error histograms and
the paired comparison of two methods (|e_A| vs |e_B| scatter and the histogram of e_B - e_A)."""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from ...core.evaluation.evaluate import EvaluationReport
from ..plots.style import light_grid

PLOT_MIN_WIDTH = 200  # logical pixels of one plot, axes included
PLOT_MIN_HEIGHT = 200
BAR_KEYS = (("agreement", "agree"), ("false_positive", "FP"), ("false_negative", "FN"))
N_BINS = 40


def _short(name: str, n: int) -> str:
    """A method name cut to ``n`` characters for an axis label or legend (the pair combo and the
    tables show it whole): long names of two methods must not run into each other."""
    return name if len(name) <= n else name[: n - 1] + "…"


def _alpha(color: str, a: int) -> QColor:
    c = QColor(color)
    c.setAlpha(a)
    return c


def _bins(values: list[np.ndarray]) -> np.ndarray:
    allv = np.concatenate([v for v in values if v.size]) if any(v.size for v in values) else \
        np.zeros(1)
    lo, hi = float(allv.min()), float(allv.max())
    if hi <= lo:
        lo, hi = lo - 1, hi + 1
    return np.linspace(lo, hi, N_BINS + 1)


class EvaluationPlots(pg.GraphicsLayoutWidget):
    """Four plots in a row, or two by two where the window is narrow (:meth:`fit_width`);
    :meth:`set_report` redraws them all."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setBackground("w")
        self.bars, self.hist, self.scatter, self.diff = (pg.PlotItem() for _ in range(4))
        self._title(self.bars, "Agreement with the truth")
        self._title(self.hist, "Onset errors")
        for p in (self.bars, self.hist, self.scatter, self.diff):
            light_grid(p, x=False, y=True)
            p.setMenuEnabled(False)
            p.getViewBox().setMouseEnabled(x=True, y=False)
        self.bars.getViewBox().setMouseEnabled(x=False, y=False)
        self.hist.setLabel("bottom", "e = truth − predicted")  # samples (the headline says)
        self.hist.setLabel("left", "series")
        self.diff.setLabel("left", "series")
        self.legends = [self.hist.addLegend(offset=(5, 5), labelTextSize="8pt")]
        self.pair: tuple[str, str] | None = None
        self.columns = 0
        self.set_columns(4)

    def set_columns(self, columns: int) -> None:
        """Lay the plots out in 4 columns (one row) or 2 (two rows); the widget's minimum size
        follows, so that no plot is ever cut off at the widget's edge."""
        columns = 4 if columns >= 4 else 2
        if columns == self.columns:
            return
        plots = (self.bars, self.hist, self.scatter, self.diff)
        if self.columns:
            for p in plots:
                self.ci.removeItem(p)
        for k, p in enumerate(plots):
            self.ci.addItem(p, row=k // columns, col=k % columns)
        self.columns = columns
        self.setMinimumSize(columns * PLOT_MIN_WIDTH, (len(plots) // columns) * PLOT_MIN_HEIGHT)

    def fit_width(self, width: int) -> None:
        """Four columns when ``width`` (the room the window has for the plots) holds them."""
        self.set_columns(4 if width >= 4 * PLOT_MIN_WIDTH + 16 else 2)

    @staticmethod
    def _title(plot: pg.PlotItem, text: str) -> None:
        plot.setTitle(text, size="9pt")
        # a title wider than a plot's minimum is cut, never widens its column off the widget
        label = plot.titleLabel
        label.setMinimumWidth(min(label.itemRect().width(), PLOT_MIN_WIDTH - 20))

    def clear_all(self) -> None:
        for p in (self.bars, self.hist, self.scatter, self.diff):
            p.clear()
        for leg in self.legends:
            leg.clear()

    def set_report(self, report: EvaluationReport | None, colors: Mapping[str, str],
                   pair: tuple[str, str] | None = None) -> None:
        self.clear_all()
        if report is None:
            return
        self._draw_bars(report, colors)
        self._draw_hist(report, colors)
        names = report.methods
        if pair is None and len(names) >= 2:
            pair = (names[0], names[1])
        self.pair = pair
        self._draw_pair(report, pair)

    def _draw_bars(self, report: EvaluationReport, colors: Mapping[str, str]) -> None:
        names = report.methods
        width = 0.8 / max(1, len(names))
        for i, m in enumerate(names):
            x = np.arange(len(BAR_KEYS)) - 0.4 + width * (i + 0.5)
            h = [getattr(report.counts[m], k) for k, _ in BAR_KEYS]
            item = pg.BarGraphItem(x=x, height=h, width=width * 0.92, brush=colors.get(m, "#777"),
                                   pen=pg.mkPen(None), name=m)
            self.bars.addItem(item)
            for xi, hi in zip(x, h):
                label = pg.TextItem(str(hi), color="#222", anchor=(0.5, 1.0))
                label.setPos(float(xi), float(hi))
                self.bars.addItem(label)
        ax = self.bars.getAxis("bottom")
        ax.setTicks([[(j, t) for j, (_, t) in enumerate(BAR_KEYS)]])
        self.bars.setLabel("left", f"series (of {report.n_series})")
        top = max([getattr(report.counts[m], k) for m in names for k, _ in BAR_KEYS] + [1])
        self.bars.setXRange(-0.6, len(BAR_KEYS) - 0.4, padding=0)
        self.bars.setYRange(0, top * 1.25, padding=0)

    def _draw_hist(self, report: EvaluationReport, colors: Mapping[str, str]) -> None:
        errs = [report.errors[m].errors.astype(np.float64) for m in report.methods]
        edges = _bins(errs)
        for m, e in zip(report.methods, errs):
            if not e.size:
                continue
            counts, _ = np.histogram(e, bins=edges)
            c = colors.get(m, "#777")
            self.hist.plot(edges, counts, stepMode="center", fillLevel=0,
                           brush=_alpha(c, 60), pen=pg.mkPen(c, width=1.5),
                           name=f"{_short(m, 10)} (n={e.size})")
        self.hist.addItem(pg.InfiniteLine(0, angle=90, pen=pg.mkPen("#888", style=Qt.PenStyle.DotLine)))

    def _draw_pair(self, report: EvaluationReport, pair: tuple[str, str] | None) -> None:
        if pair is None:
            self._title(self.scatter, "Paired |e|: needs two methods")
            self._title(self.diff, "Paired difference")
            return
        a, b = pair
        ea, eb = report.errors[a], report.errors[b]
        if ea.series_ids != eb.series_ids or not ea.series_ids:
            self._title(self.scatter, "Paired |e|: no common series")
            return
        xa, xb = np.abs(ea.errors).astype(float), np.abs(eb.errors).astype(float)
        self._title(self.scatter, f"|e| paired on {xa.size} series")
        self.scatter.plot(xa, xb, pen=None, symbol="o", symbolSize=5,
                          symbolBrush=_alpha("#0072B2", 140), symbolPen=None)
        hi = float(max(xa.max(), xb.max(), 1.0))
        self.scatter.plot([0, hi], [0, hi], pen=pg.mkPen("#888", style=Qt.PenStyle.DashLine))
        self.scatter.setLabel("bottom", f"|e| {_short(a, 18)}")
        self.scatter.setLabel("left", f"|e| {_short(b, 18)}")
        d = (eb.errors - ea.errors).astype(float)
        counts, edges = np.histogram(d, bins=_bins([d]))
        self.diff.plot(edges, counts, stepMode="center", fillLevel=0, brush=_alpha("#009E73", 90),
                       pen=pg.mkPen("#009E73", width=1.5))
        self.diff.addItem(pg.InfiniteLine(0, angle=90, pen=pg.mkPen("#888", style=Qt.PenStyle.DotLine)))
        self._title(self.diff, "Paired difference")
        self.diff.setLabel("bottom", f"e({_short(b, 9)}) − e({_short(a, 9)})")
