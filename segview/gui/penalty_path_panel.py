"""The Penalty path panel: a method's CROPS path as cost against number of change points.

Each point is one segmentation that is optimal for some range of penalties
(:func:`segview.core.penalty_path.penalty_path`, computed off the GUI thread by the job runner);
the elbow is a star, the segmentation the method's lane shows is ringed. Clicking a point (or
Enter on it in the list under the plot) sets the method's ``penalty`` to a value inside that
segmentation's range, through the parameter panel, so the lane shows it, Ctrl+Z undoes it, and the
slider follows. Signals: ``segmentation_chosen(method, penalty)``, ``method_changed(method)``.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QListWidget, QListWidgetItem,
                               QVBoxLayout, QWidget)

from ..core.penalty_path import PenaltyPath
from .plots.style import light_grid

POINT = "#1f77b4"
ELBOW = "#d62728"
CURRENT = "#202020"


def point_text(path: PenaltyPath, i: int) -> str:
    """One segmentation as the list and the tooltips show it."""
    k = int(path.n_changes[i])
    elbow = "  (elbow)" if i == path.elbow else ""
    return (f"{k} change point{'' if k == 1 else 's'}: cost {path.costs[i]:.4g}, penalty "
            f"{path.penalty_low[i]:.4g} to {path.penalty_high[i]:.4g}{elbow}")


class PenaltyPathPanel(QWidget):
    """Plot and list of a CROPS path; choosing a point asks for its segmentation."""

    segmentation_chosen = Signal(str, float)
    method_changed = Signal(str)

    def __init__(self, methods: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path: PenaltyPath | None = None
        self.current: int | None = None
        self.combo = QComboBox(self)
        self.combo.addItems(methods)
        self.combo.setToolTip("The penalised method whose path is shown (its lane follows the "
                              "point you choose)")
        self.combo.currentTextChanged.connect(self._on_combo_changed)
        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        self.plot_widget = pg.PlotWidget(self)
        self.plot_widget.setMinimumHeight(160)
        self.plot = self.plot_widget.getPlotItem()
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.setLabel("bottom", "change points")
        self.plot.setLabel("left", "cost")
        light_grid(self.plot)
        self.line = pg.PlotCurveItem(pen=pg.mkPen(POINT, width=1))
        self.points = pg.ScatterPlotItem(size=10, pen=pg.mkPen("w"), brush=pg.mkBrush(POINT),
                                         hoverable=True, hoverSize=13, tip=self._tip)
        self.points.sigClicked.connect(self._on_points_clicked)
        self.elbow_mark = pg.ScatterPlotItem(size=18, symbol="star", pen=pg.mkPen("w"),
                                             brush=pg.mkBrush(ELBOW))
        self.current_mark = pg.ScatterPlotItem(size=20, symbol="o", brush=None,
                                               pen=pg.mkPen(CURRENT, width=2))
        for item in (self.line, self.elbow_mark, self.points, self.current_mark):
            self.plot.addItem(item)
        self.points.setZValue(6)
        for mark, z in ((self.elbow_mark, 7), (self.current_mark, 8)):  # drawn over the points:
            mark.setZValue(z)  # a click on them is a click on their point (data = its index)
            mark.sigClicked.connect(self._on_points_clicked)
        self.list = QListWidget(self)
        self.list.setMaximumHeight(110)
        self.list.itemActivated.connect(self._on_list_item_activated)
        top = QHBoxLayout()
        top.addWidget(QLabel("Method", self))
        top.addWidget(self.combo, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(top)
        lay.addWidget(self.status)
        lay.addWidget(self.plot_widget, 1)
        lay.addWidget(self.list)

    # -- state
    def method(self) -> str:
        return self.combo.currentText()

    def set_method(self, name: str) -> None:
        if name != self.method() and self.combo.findText(name) >= 0:
            self.combo.setCurrentText(name)  # emits method_changed

    def set_pending(self, text: str) -> None:
        self._clear()
        self.status.setText(text)

    def set_failed(self, text: str) -> None:
        self._clear()
        self.status.setText(f"\u26a0 {text.strip().splitlines()[-1]}")
        self.status.setToolTip(text)

    def set_path(self, path: PenaltyPath, penalty: float | None = None) -> None:
        """Show ``path``; ``penalty`` (the lane's, if a number) rings its segmentation."""
        self.path = path
        k = path.n_changes.astype(float)
        self.line.setData(k, path.costs)
        self.points.setData(k, path.costs, data=np.arange(len(path)))
        if path.elbow is None:
            self.elbow_mark.setData([], [])
        else:
            self.elbow_mark.setData([k[path.elbow]], [path.costs[path.elbow]], data=[path.elbow])
        self.list.clear()
        for i in range(len(path)):
            item = QListWidgetItem(point_text(path, i))
            item.setData(Qt.ItemDataRole.UserRole, i)
            self.list.addItem(item)
        elbow = "" if path.elbow is None else f"; elbow at {int(path.n_changes[path.elbow])}"
        self.status.setText(f"{path.method}: {len(path)} segmentations for penalties "
                            f"{path.beta_min:.3g} to {path.beta_max:.3g} ({path.runs} runs{elbow}). "
                            "Click a point to show it in the lane.")
        self.status.setToolTip("")
        self.plot.autoRange()
        self.mark_penalty(penalty)

    def mark_penalty(self, penalty: float | None) -> None:
        """Ring the segmentation whose penalty range holds ``penalty`` (None: no ring)."""
        if self.path is None or penalty is None or not len(self.path):
            self.current = None
            self.current_mark.setData([], [])
            return
        i = self.path.index_of(penalty)
        self.current = i
        self.current_mark.setData([float(self.path.n_changes[i])], [self.path.costs[i]], data=[i])
        self.list.setCurrentRow(i)

    def choose(self, i: int) -> None:
        """Ask for segmentation ``i`` (as a click on its point does)."""
        if self.path is None or not 0 <= i < len(self.path):
            return
        self.mark_penalty(self.path.penalty_for(i))
        self.segmentation_chosen.emit(self.path.method, self.path.penalty_for(i))

    def point_position(self, i: int) -> tuple[float, float]:
        """Point ``i`` in plot coordinates (tests and screenshots click there)."""
        assert self.path is not None
        return float(self.path.n_changes[i]), float(self.path.costs[i])

    # -- slots
    def _clear(self) -> None:
        self.path = None
        self.current = None
        for item in (self.line, self.points, self.elbow_mark, self.current_mark):
            item.setData([], [])
        self.list.clear()

    def _tip(self, x: float, y: float, data: object) -> str:
        if self.path is None or data is None:
            return ""
        return point_text(self.path, int(data))

    @Slot(object, object)
    def _on_points_clicked(self, _item: object, points: object, *_rest: object) -> None:
        if len(points):
            self.choose(int(points[0].data()))

    @Slot(QListWidgetItem)
    def _on_list_item_activated(self, item: QListWidgetItem) -> None:
        self.choose(int(item.data(Qt.ItemDataRole.UserRole)))

    @Slot(str)
    def _on_combo_changed(self, name: str) -> None:
        self.method_changed.emit(name)
