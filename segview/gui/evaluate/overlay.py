"""Draw the evaluation's truth and predicted onsets on the explorer's main plot.

The explorer draws its own enabled detectors live; this overlay adds the evaluated predictions (files,
published columns, runs) as labelled dashed lines, replaces the explorer's reference line by the
evaluation truth (``series_plot.set_reference``) and summarises the onsets in the plot title. It uses
only the explorer's public attributes: ``main_plot``, ``series_plot``, ``current``, ``model`` and
the ``series_shown`` signal.

The truth and predictions are kept by the explorer's model
(:meth:`~segview.core.explorer_model.ExplorerModel.set_overlay`), tied to the dataset they were
made on: a dataset opened afterwards never shows them, even where its series ids are the same.
"""
from __future__ import annotations

from collections.abc import Mapping

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Slot

from ...core.evaluation.inputs import Onsets
from ...core.evaluation.metrics import TruthRow


class ExplorerOverlay(QObject):
    """Pool of one labelled line per evaluated method on the explorer's plot."""

    def __init__(self, explorer, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.explorer = explorer
        self.truth: dict[str, TruthRow] = {}
        self.preds: dict[str, Onsets] = {}
        self.colors: dict[str, str] = {}
        self.lines: dict[str, pg.InfiniteLine] = {}
        self.shown: str | None = None
        self.model = explorer.model
        self.model.overlay_changed.connect(self._on_model_overlay_changed)
        explorer.series_shown.connect(self._on_explorer_series_shown)

    def set_data(self, truth: Mapping[str, TruthRow], predictions: Mapping[str, Onsets],
                 colors: Mapping[str, str]) -> None:
        self.truth, self.preds, self.colors = dict(truth), dict(predictions), dict(colors)
        for name in [n for n in self.lines if n not in self.preds]:
            self.explorer.main_plot.removeItem(self.lines.pop(name))
        self.model.set_overlay(truth, predictions, colors)  # for the dataset shown now
        cur = self.explorer.current
        if cur is not None and self.shown == cur.id:
            self.draw(cur.id)

    def _line(self, name: str, k: int) -> pg.InfiniteLine:
        line = self.lines.get(name)
        if line is None:
            color = self.colors.get(name, "#555555")
            line = pg.InfiniteLine(angle=90, movable=False,
                                   pen=pg.mkPen(color, width=2, style=Qt.PenStyle.DashLine),
                                   label=name, labelOpts={"position": 0.88 - 0.08 * (k % 8),
                                                          "color": color,
                                                          "fill": (255, 255, 255, 210)})
            line.setZValue(40)
            self.explorer.main_plot.addItem(line, ignoreBounds=True)
            self.lines[name] = line
        return line

    def draw(self, series_id: str) -> None:
        """Show the truth and the predictions of ``series_id`` (the explorer's current series)."""
        self.shown = series_id
        sp = self.explorer.series_plot
        ov = self.model.overlay_for(series_id)  # None: another dataset's, or no truth here
        row = None if ov is None else ov.truth.get(series_id)
        if row is None:
            self.hide()
            return
        sp.set_reference(row.reference, "truth" if row.steady else "")
        parts = [f"truth {row.reference}" if row.steady else "truth never steady"]
        for k, (name, onsets) in enumerate(ov.predictions.items()):
            line = self._line(name, k)
            p = onsets.get(series_id)
            if p is None:
                line.hide()
                parts.append(f"{name} never")
            else:
                line.setPos(sp.x_of(p))
                line.label.setFormat(f"{name} {p}")
                line.show()
                err = f", e={row.reference - p:+d}" if row.steady and row.reference is not None else ""
                parts.append(f"{name} {p}{err}")
        self.explorer.main_plot.setTitle(f"{series_id}: " + " · ".join(parts), size="9pt")

    def hide(self) -> None:
        for line in self.lines.values():
            line.hide()
        self.explorer.main_plot.setTitle(None)

    def positions(self) -> dict[str, float | None]:
        """Visible line positions per method (None: hidden), for tests."""
        return {n: (float(ln.value()) if ln.isVisible() else None) for n, ln in self.lines.items()}

    def detach(self) -> None:
        try:
            self.explorer.series_shown.disconnect(self._on_explorer_series_shown)
        except (RuntimeError, TypeError):
            pass
        self.model.overlay_changed.disconnect(self._on_model_overlay_changed)
        self.model.clear_overlay()
        for line in self.lines.values():
            self.explorer.main_plot.removeItem(line)
        self.lines.clear()
        self.explorer.main_plot.setTitle(None)

    def _on_model_overlay_changed(self) -> None:
        cur = self.explorer.current
        if self.model.overlay is None or cur is None or self.model.overlay_for(cur.id) is None:
            self.shown = None
            self.hide()

    @Slot(str)
    def _on_explorer_series_shown(self, series_id: str) -> None:
        if self.model.overlay_for(series_id) is not None:
            self.draw(series_id)
        else:
            self.shown = None
            self.hide()
